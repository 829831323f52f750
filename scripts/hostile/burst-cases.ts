/**
 * Hooks under load: 200 UserPromptSubmit hooks (and 100 SubagentStart hooks) started at once against
 * a warm recall server. Prints the slowest hook, how many passed the harness's timeout (30 s and
 * 10 s, hooks/install/harness-config.ts) and their own deadline, how many answered with notes, and what the
 * hook logs say about the rest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freshCase, hook, envelopeOk, contextOf, note, repo, run, type Run } from './harness.js';

/** The server's status (null while it is not up), through the client library of the repo measured. */
async function serverStatus(socket: string): Promise<Record<string, unknown> | null> {
  const { ask } = (await import(
    path.join(repo, 'dist', 'sources', 'recall-server', 'ask.js')
  )) as typeof import('../../sources/recall-server/ask.js');
  // The protocol version of the repo measured: a server declines a request of another version.
  const { PROTOCOL_VERSION } = (await import(
    path.join(repo, 'dist', 'sources', 'recall-server', 'protocol.js')
  )) as typeof import('../../sources/recall-server/protocol.js');
  const out = await ask(socket, { op: 'status', v: PROTOCOL_VERSION }, 2000, Date.now() + 5000);
  return 'failed' in out || !out.answer.ok || !('status' in out.answer) ? null : (out.answer.status as unknown as Record<string, unknown>);
}

/** How many lines of the hook's log say each kind of thing (in-process fallback, busy, late). */
function logKinds(state: string, name: string): string {
  const file = path.join(state, 'logs', `${name}.log`);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const count = (re: RegExp): number => (text.match(re) ?? []).length;
  return [
    `${count(/answered in this process/g)} ran in-process after the server did not accept in time`,
    `${count(/no context given|server-busy/g)} answered empty (server busy / no place)`,
    `${count(/empty stdin/g)} logged "empty stdin"`,
    `${count(/started too late/g)} started past their deadline`,
  ].join(', ');
}

async function burst(name: 'user-prompt-submit' | 'subagent-start', n: number, harnessMs: number, deadlineMs: number): Promise<void> {
  const c = freshCase();
  for (let i = 0; i < 300; i += 1)
    fs.writeFileSync(
      path.join(c.kb, 'documents', `n${i}.md`),
      note(`n${i}`, `postgres pool note ${i}`, `connection pool case ${i} `.repeat(20)),
    );
  const env = { ...c.env };
  const socket = path.join(c.state, 'run', 'recall.sock');
  const stdin = (i: number): string =>
    name === 'subagent-start'
      ? JSON.stringify({ agent_type: 'general', prompt: `postgres connection pool exhausted case ${i}` })
      : JSON.stringify({ session_id: `burst-${i}`, prompt: `postgres connection pool exhausted in tests, case ${i}` });
  // One hook starts the server; wait until it answers, then warm it with one more.
  await run(hook(name), { env, stdin: stdin(-1) });
  for (let i = 0; i < 600 && !(await serverStatus(socket)); i += 1) await new Promise((r) => setTimeout(r, 100));
  await run(hook(name), { env, stdin: stdin(-2) });
  const runs: Run[] = await Promise.all(
    Array.from({ length: n }, (_, i) => run(hook(name), { env, stdin: stdin(i), killAfterMs: 120_000 })),
  );
  const status = await serverStatus(socket);
  const slowest = Math.max(...runs.map((r) => r.ms));
  const overHarness = runs.filter((r) => r.killed || r.ms > harnessMs).length;
  const overDeadline = runs.filter((r) => r.killed || r.ms > deadlineMs).length;
  const bad = runs.filter((r) => r.code !== 0 || !envelopeOk(r.stdout)).length;
  const withNotes = runs.filter((r) => contextOf(r.stdout).includes('**[')).length;
  const adm = status?.['admission'] as { shed?: number } | undefined;
  process.stdout.write(
    `| ${n} concurrent ${name} (warm server, 300-note KB) | ${Math.round(slowest)} ms (slowest) | ${bad ? `${bad} bad` : 'all 0'} | ${bad ? 'no' : 'yes'} | ` +
      `over the harness's ${harnessMs / 1000} s: ${overHarness}; over the hook's ${deadlineMs / 1000} s deadline: ${overDeadline}; with notes: ${withNotes}; ` +
      `${logKinds(c.state, name)}${adm ? `; server answered ${adm.shed} "too late"` : ''} |\n`,
  );
}

export const BURST_CASES: Record<string, () => Promise<void>> = {
  async 'burst-prompts'() {
    await burst('user-prompt-submit', 200, 30_000, 20_000);
  },
  async 'burst-subagents'() {
    await burst('subagent-start', 100, 10_000, 5_000);
  },
};
