/** Notes of two zero-config sources (the pooled KB and Claude Code memory) that declare one id stay two notes. */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_COMMAND, runRecall } from '../../pipeline/run.js';
import { claudeProjectSlug } from '../../sources/harness-memory/index.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-ids-')));
  made.push(root);
  const home = path.join(root, 'home');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const memory = path.join(home, '.claude', 'projects', claudeProjectSlug(project), 'memory');
  const learnings = path.join(home, '.learnings', 'documents');
  fs.mkdirSync(memory, { recursive: true });
  fs.mkdirSync(learnings, { recursive: true });
  return { home, project, memory, learnings };
}

describe('one id declared in two sources', () => {
  it('gives two results, one per file', async () => {
    const w = world();
    // One file name in both sources too: the readable id and its hash are the same, the notes are not.
    fs.writeFileSync(
      path.join(w.learnings, 'learn.md'),
      '---\nid: Learn note one\ntitle: Cache warmup order\n---\nWarm the cache before the pool sizing check.\n',
    );
    fs.writeFileSync(
      path.join(w.memory, 'learn.md'),
      '---\nname: Learn note one\ndescription: cache warmup after deploy\n---\nWarm the cache after the pool sizing check.\n',
    );
    fs.writeFileSync(path.join(w.learnings, 'plain.md'), '---\nid: deploy-order\ntitle: Deploy order\n---\nDeploy the cache first.\n');
    fs.writeFileSync(path.join(w.memory, 'plain.md'), '---\nname: deploy-order\ndescription: deploy order\n---\nDeploy the cache last.\n');
    const env = { HOME: w.home, REFLECT_STATE_DIR: path.join(w.home, '.reflect') };
    const r = await runRecall(
      { ...DEFAULT_COMMAND, format: 'json', cache: false, floor: 0, limit: 50, query: 'cache warmup deploy pool sizing' },
      { env, cwd: w.project, warn: () => undefined },
    );
    const results = r.outcome?.results ?? [];
    const paths = results.map((c) => c.note.path).sort();
    expect(paths).toEqual(
      [
        path.join(w.learnings, 'learn.md'),
        path.join(w.learnings, 'plain.md'),
        path.join(w.memory, 'learn.md'),
        path.join(w.memory, 'plain.md'),
      ].sort(),
    );
    expect(results.filter((c) => c.note.key === 'deploy-order')).toHaveLength(2);
  });
});
