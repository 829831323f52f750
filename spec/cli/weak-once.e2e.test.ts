/**
 * A note id is never listed as a result and again as a weak match (issue 37, item 5). Two KBs
 * read together may hold the same note (a KB copied, a note kept in two places): each KB ranks its
 * own copy, and the copy that clears the floor in one KB and the one under it in the other were
 * fused as two lists, so the answer showed the id as a result and as a weak match. Driven through the
 * built bin/recall, `--kb A --kb B` and RECALL_KBS, markdown and JSON, several floors.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repo } from '../helpers/zero-config.js';
import { driverEnv } from '../helpers/driver.js';

let dir = '';
let a = '';
let b = '';
const QUERY = 'redis flush friday release';

function note(kb: string, file: string, id: string, title: string, insight: string): void {
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.writeFileSync(path.join(kb, 'documents', file), `---\nid: ${id}\ntitle: ${title}\nkey_insight: ${insight}\n---\n${insight}\n`);
}

function recall(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string } {
  const r = spawnSync(path.join(repo, 'bin', 'recall'), args, {
    env: { PATH: process.env['PATH'] ?? '', HOME: path.join(dir, 'home'), RECALL_NO_SERVER: '1', ...driverEnv(), ...env },
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout };
}

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-weak-once-')));
  fs.mkdirSync(path.join(dir, 'home'));
  a = path.join(dir, 'kb-a');
  b = path.join(dir, 'kb-b');
  // The same note, as A keeps it (about the query) and as B keeps an older, vaguer copy of it.
  note(a, 'flush.md', 'lrn-flush-1', 'redis flush on friday release', 'redis cache flush happens every friday release before deploy');
  note(b, 'flush.md', 'lrn-flush-1', 'cache note', 'the redis cache is flushed sometimes');
  note(b, 'vacuum.md', 'lrn-vacuum', 'postgres vacuum', 'vacuum the orders table nightly');
}, 30_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('one id, listed once', () => {
  // The KBs are made in beforeAll, after the table is read: each way is a function of them.
  const ways: [string, () => { args: string[]; env: Record<string, string> }][] = [
    ['--kb A --kb B', () => ({ args: ['--kb', a, '--kb', b], env: {} })],
    ['--kb B --kb A', () => ({ args: ['--kb', b, '--kb', a], env: {} })],
    ['RECALL_KBS', () => ({ args: [], env: { RECALL_KBS: `${a}${path.delimiter}${b}` } })],
  ];
  it.each(ways)(
    '%s: the id is a result and not a weak match too, in JSON and markdown',
    (_name, way) => {
      const { args: kbArgs, env: e } = way();
      for (const floor of [[], ['--floor', '0.3'], ['--floor', '0.5'], ['--floor', '0']]) {
        const j = recall([QUERY, ...kbArgs, ...floor, '--json'], e);
        expect(j.code).toBe(0);
        const out = JSON.parse(j.stdout) as { results: { id: string }[]; weak: { id: string }[] };
        const results = out.results.map((r) => r.id);
        expect(results).toContain('lrn-flush-1');
        expect({ floor, twice: out.weak.map((r) => r.id).filter((id) => results.includes(id)) }).toEqual({ floor, twice: [] });
        // The markdown: the id's result lines (with the floor off both copies, two files, each a note), no weak line.
        const md = recall([QUERY, ...kbArgs, ...floor], e).stdout;
        expect(md).toContain('- **[lrn-flush-1]** redis cache flush happens every friday release before deploy');
        expect({ floor, lines: md.split('\n').filter((l) => l.includes('lrn-flush-1')).length }).toEqual({
          floor,
          lines: results.filter((id) => id === 'lrn-flush-1').length,
        });
      }
    },
    120_000,
  );
});
