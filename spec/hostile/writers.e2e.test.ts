/**
 * Writers of one KB at once: `recall add`, `supersede` and `forget` run as separate processes at
 * the same time (and beside a `recall index`) all land, and a write that did not happen never
 * exits 0. (The load figures, 64 writers at once, come from `node dist/scripts/hostile.js --only
 * concurrent-writers,supersede-hub`.)
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { hostileCase, note, runCli, type Case } from './helpers.js';

let c: Case;
afterEach(() => c?.cleanup());

function frontmatter(file: string): Record<string, unknown> {
  const text = fs.readFileSync(file, 'utf8');
  return parseDocument(text.slice(4, text.indexOf('\n---', 3))).toJS() as Record<string, unknown>;
}

describe('concurrent writers', () => {
  it('9 supersessions of one note at once: every old note is retired and listed under supersedes', async () => {
    c = hostileCase();
    const docs = path.join(c.kb, 'documents');
    fs.writeFileSync(path.join(docs, 'hub.md'), note('hub', 'postgres hub note', 'replaces them all'));
    for (let i = 0; i < 9; i += 1) fs.writeFileSync(path.join(docs, `old${i}.md`), note(`old${i}`, `postgres old ${i}`, `old ${i}`));
    const runs = await Promise.all(
      Array.from({ length: 9 }, (_, i) => runCli(['supersede', '--kb', c.kb, `old${i}`, 'hub'], { env: c.env })),
    );
    expect(runs.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual(runs.map(() => ({ code: 0, stderr: '' })));
    expect([...(frontmatter(path.join(docs, 'hub.md'))['supersedes'] as string[])].sort()).toEqual(
      Array.from({ length: 9 }, (_, i) => `old${i}`).sort(),
    );
    for (let i = 0; i < 9; i += 1) expect(frontmatter(path.join(docs, `old${i}.md`))['superseded_by']).toBe('hub');
  }, 60_000);

  it('adds, supersessions and forgets at once beside `recall index`: all exit 0 and all land', async () => {
    c = hostileCase();
    const docs = path.join(c.kb, 'documents');
    for (let i = 0; i < 6; i += 1) {
      fs.writeFileSync(path.join(docs, `old${i}.md`), note(`old${i}`, `postgres old ${i}`, `old ${i}`));
      fs.writeFileSync(path.join(docs, `gone${i}.md`), note(`gone${i}`, `postgres gone ${i}`, `gone ${i}`));
    }
    const kb = ['--kb', c.kb];
    const indexing = runCli(['index', ...kb], { env: c.env });
    const writes = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        runCli(['add', ...kb, '--title', `parallel add ${i}`, '--insight', `insight ${i}`], { env: c.env }),
      ),
      ...Array.from({ length: 6 }, (_, i) => runCli(['supersede', ...kb, `old${i}`, 'lrn-pool'], { env: c.env })),
      ...Array.from({ length: 6 }, (_, i) => runCli(['forget', ...kb, `gone${i}`], { env: c.env })),
    ]);
    expect((await indexing).code).toBe(0);
    expect(writes.map((r) => r.code)).toEqual(writes.map(() => 0));
    const texts = fs
      .readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => fs.readFileSync(path.join(docs, f), 'utf8'));
    for (let i = 0; i < 6; i += 1) {
      expect(texts.filter((t) => t.includes(`"parallel add ${i}"`))).toHaveLength(1);
      expect(frontmatter(path.join(docs, `old${i}.md`))['superseded_by']).toBe('lrn-pool');
      expect(fs.existsSync(path.join(docs, `gone${i}.md`))).toBe(false);
      expect(fs.existsSync(path.join(docs, '.forgotten', `gone${i}.md`))).toBe(true);
    }
    expect([...(frontmatter(path.join(docs, 'pool.md'))['supersedes'] as string[])].sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => `old${i}`).sort(),
    );
    // The writers' lock is gone once they are.
    expect(fs.existsSync(path.join(c.kb, '.recall-notes.lock'))).toBe(false);
  }, 90_000);

  it('a write that fails exits 1 with the reason, and leaves the note where it was', async () => {
    c = hostileCase();
    // The forgotten folder's name is taken by a file: the move cannot happen.
    fs.writeFileSync(path.join(c.kb, 'documents', '.forgotten'), 'not a folder');
    const r = await runCli(['forget', '--kb', c.kb, 'lrn-idle'], { env: c.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^recall: forget failed, nothing written: .*(ENOTDIR|EEXIST|not a directory)/m);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(c.kb, 'documents', 'idle.md'))).toBe(true);
  }, 30_000);
});
