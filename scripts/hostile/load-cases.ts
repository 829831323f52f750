/** Big and cold KBs: a cold 20k-note KB under a short deadline, hooks killed mid-refresh, huge hyphen-joined prompts, a recall while `recall index` runs. */
import fs from 'node:fs';
import path from 'node:path';
import { BIG, PROMPT, bigKbDir, cli, contextOf, freshCase, hook, hyphenCase, indexedNotes, note, row, run } from './harness.js';

export const LOAD_CASES: Record<string, () => Promise<void>> = {
  async 'cold-20k'() {
    const c = freshCase();
    const env = { ...c.env, GLOBAL_LEARNINGS_PATH: bigKbDir(), REFLECT_SUBAGENT_RECALL_TIMEOUT: '2' };
    const r = await run(hook('subagent-start'), { env, stdin: JSON.stringify({ agent_type: 'general', prompt: 'postgres pool timeout' }) });
    row(`cold ${BIG / 1000}k KB, subagent hook, 2 s deadline`, r, `context ${contextOf(r.stdout).length} chars`);
  },
  async 'killed-refresh'() {
    const c = freshCase();
    const env = { ...c.env, GLOBAL_LEARNINGS_PATH: bigKbDir() };
    const counts: number[] = [];
    let total = 0;
    for (let i = 0; i < 4; i += 1) {
      const r = await run(hook('user-prompt-submit'), { env, stdin: PROMPT, killAfterMs: 1500 });
      total += r.ms;
      counts.push(indexedNotes(c.state));
    }
    // Let a background refresher (if any) finish, then look again.
    await new Promise((r) => setTimeout(r, 20_000));
    counts.push(indexedNotes(c.state));
    row(
      `4 hooks killed at 1.5 s on a cold ${BIG / 1000}k KB`,
      { ms: total, code: null, killed: true, stdout: '', stderr: '' },
      `notes indexed after each: ${counts.join(', ')} (last: 20 s later)`,
    );
  },
  async 'hyphen-50k'() {
    await hyphenCase(10_000, '50 KB');
  },
  async 'hyphen-500k'() {
    await hyphenCase(100_000, '500 KB');
  },
  async 'concurrent-index'() {
    const c = freshCase();
    const env = { ...c.env, GLOBAL_LEARNINGS_PATH: bigKbDir() };
    await run(cli('index', '--kb', bigKbDir()), { env });
    // A KB edit, so the recall has a refresh to do while `recall index` holds the index.
    fs.writeFileSync(path.join(bigKbDir(), 'documents', 'zz-new.md'), note('lrn-zz', 'postgres pool timeout new', 'added during indexing'));
    const indexing = run(cli('index', '--kb', bigKbDir()), { env });
    await new Promise((r) => setTimeout(r, 700));
    const r = await run(cli('--kb', bigKbDir(), 'postgres pool timeout', '--no-cache'), { env });
    await indexing;
    fs.rmSync(path.join(bigKbDir(), 'documents', 'zz-new.md'), { force: true });
    row(
      'recall while `recall index` rewrites the index',
      { ...r, stdout: '{}' },
      `stdout ${r.stdout.length} chars, stderr ${JSON.stringify(r.stderr.trim().slice(0, 80))}`,
    );
  },
};
