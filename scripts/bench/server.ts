/**
 * `npm run bench -- --server [--sizes 1000,10000,100000 --runs 15 --qmd PATH --ab DIR]`: the recall
 * server path next to the in-process path, a bare `node -e 0` and qmd's BM25 search, measured in one
 * run with the cases alternating (one of each per round), so a busy machine slows all of them alike.
 *
 * Per KB size: `recall QUERY` (whole process, through the thin client and the server, and in its
 * own process with RECALL_NO_SERVER=1), each hook (spawn to envelope, both ways), and with `--ab DIR`
 * (another built checkout, e.g. main) that checkout's figures as "before" (hooks both ways), with its
 * own index, state dir and recall server (when it has one). Then the servers' RSS and idle CPU, and the cost of a
 * hung server (the client's accept budget).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface ServerBenchOptions {
  repo: string;
  tmp: string;
  sizes: number[];
  runs: number;
  qmd: string | null;
  qmdMax: number;
  ab: string | null;
  generateKb: (dir: string, n: number) => string[];
  print: (...lines: string[]) => void;
}

type Case = { label: string; run: (i: number) => void };

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function must(r: ReturnType<typeof spawnSync>, what: string): void {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${String(r.stderr).slice(0, 300)}`);
}

function spawned(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string, cwd?: string): () => void {
  return () =>
    must(spawnSync(cmd, args, { env, input: input ?? '', encoding: 'utf8', ...(cwd ? { cwd } : {}) }), `${cmd} ${args[0] ?? ''}`);
}

/** Run every case once per round, `runs` rounds; p50 per case. */
function alternate(cases: Case[], runs: number): Map<string, number> {
  const times = new Map<string, number[]>(cases.map((c) => [c.label, []]));
  for (let i = 0; i < runs; i += 1) {
    for (const c of cases) {
      const t0 = performance.now();
      c.run(i);
      times.get(c.label)!.push(performance.now() - t0);
    }
  }
  return new Map([...times].map(([k, v]) => [k, p50(v)]));
}

function hookInputs(project: string): [string, (i: number) => string][] {
  return [
    ['session-start', () => JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: project })],
    [
      'user-prompt-submit',
      (i) =>
        JSON.stringify({
          session_id: `bench-${i}-${Math.random()}`,
          prompt: `why does postgres keep timing out when the pool is exhausted ${i}`,
        }),
    ],
    [
      'subagent-start',
      (i) => JSON.stringify({ agent_type: 'code-reviewer', cwd: project, prompt: `review the redis cache eviction change ${i}` }),
    ],
  ];
}

async function waitForServer(socket: string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    const ok = await new Promise<boolean>((r) => {
      const c = net.connect(socket);
      c.once('connect', () => (c.destroy(), r(true)));
      c.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no server on ${socket}`);
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function casesFor(
  o: ServerBenchOptions,
  kb: string,
  env: NodeJS.ProcessEnv,
  abEnv: NodeJS.ProcessEnv,
  queries: string[],
  project: string,
): Case[] {
  const bin = path.join(o.repo, 'bin', 'recall');
  const alone = { ...env, RECALL_NO_SERVER: '1' };
  const q = (i: number): string => queries[i % queries.length]!;
  const cli = (b: string, e: NodeJS.ProcessEnv) => (i: number) => spawned(b, ['--kb', kb, q(i), '--no-cache', '--format', 'json'], e)();
  const cases: Case[] = [
    { label: 'node -e 0', run: spawned(process.execPath, ['-e', '0'], env) },
    { label: 'recall QUERY, server', run: cli(bin, env) },
    { label: 'recall QUERY, in-process', run: cli(bin, alone) },
  ];
  if (o.ab) cases.push({ label: 'recall QUERY, before', run: cli(path.join(o.ab, 'bin', 'recall'), abEnv) });
  if (o.qmd && queries.length) {
    const qenv = {
      ...env,
      XDG_CACHE_HOME: path.join(path.dirname(kb), 'qmd-cache'),
      XDG_CONFIG_HOME: path.join(path.dirname(kb), 'qmd-config'),
    };
    cases.push({
      label: 'qmd search',
      run: (i) => void spawnSync(o.qmd!, ['search', q(i), '-c', 'learnings', '--json'], { env: qenv, encoding: 'utf8' }),
    });
  }
  for (const [name, input] of hookInputs(project)) {
    const hook = (root: string, e: NodeJS.ProcessEnv) => (i: number) =>
      spawned(process.execPath, [path.join(root, 'dist', 'hooks', `${name}.js`)], e, input(i))();
    cases.push({ label: `${name}, server`, run: hook(o.repo, env) }, { label: `${name}, in-process`, run: hook(o.repo, alone) });
    if (o.ab)
      cases.push(
        { label: `${name}, before`, run: hook(o.ab, abEnv) },
        { label: `${name}, before in-process`, run: hook(o.ab, { ...abEnv, RECALL_NO_SERVER: '1' }) },
      );
  }
  return cases;
}

function qmdIndex(o: ServerBenchOptions, kb: string, env: NodeJS.ProcessEnv): number | null {
  if (!o.qmd) return null;
  const qenv = {
    ...env,
    XDG_CACHE_HOME: path.join(path.dirname(kb), 'qmd-cache'),
    XDG_CONFIG_HOME: path.join(path.dirname(kb), 'qmd-config'),
  };
  const t0 = performance.now();
  const r = spawnSync(o.qmd, ['collection', 'add', path.join(kb, 'documents'), '--name', 'learnings'], { env: qenv, encoding: 'utf8' });
  return r.status === 0 ? performance.now() - t0 : null;
}

/** The bench environment of one checkout: its own state dir (index, run folder, server). */
function benchEnv(state: string, kb: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: state,
    REFLECT_STATE_DIR: state,
    GLOBAL_LEARNINGS_PATH: kb,
    REFLECT_IDLE_TIMEOUT: '600',
  };
  delete env['RECALL_NO_SERVER'];
  return env;
}

/** Index the KB with `root`'s build and start its recall server, if that build has one. */
async function startServer(root: string, kb: string, env: NodeJS.ProcessEnv): Promise<ChildProcess | null> {
  must(spawnSync(path.join(root, 'bin', 'recall'), ['index', '--kb', kb], { env, encoding: 'utf8' }), 'recall index');
  const entry = path.join(root, 'dist', 'bundle', 'server.mjs');
  if (!fs.existsSync(entry)) return null;
  const socket = path.join(env['REFLECT_STATE_DIR']!, 'run', 'recall.sock');
  const server = spawn(process.execPath, [entry, '--socket', socket], { env, stdio: 'ignore' });
  await waitForServer(socket);
  return server;
}

async function benchSize(o: ServerBenchOptions, n: number): Promise<void> {
  const dir = path.join(o.tmp, `server-${n}`);
  const kb = path.join(dir, 'kb');
  const queries = o.generateKb(kb, n);
  const project = path.join(dir, 'project');
  fs.mkdirSync(project, { recursive: true });
  spawnSync('git', ['-C', project, 'init', '-q']);
  const env = benchEnv(path.join(dir, 'state'), kb);
  // "Before" gets a state dir of its own: its client would otherwise hand its calls to this build's server.
  const abEnv = benchEnv(path.join(dir, 'state-before'), kb);
  const qmdMs = n <= o.qmdMax ? qmdIndex(o, kb, env) : null;
  const servers: ChildProcess[] = [];
  try {
    const server = (await startServer(o.repo, kb, env))!;
    servers.push(server);
    const before = o.ab ? await startServer(o.ab, kb, abEnv) : null;
    if (before) servers.push(before);
    const cases = casesFor({ ...o, qmd: qmdMs === null ? null : o.qmd }, kb, env, abEnv, queries, project);
    for (const c of cases) c.run(0); // warm: index, server state, caches of the OS
    const t = alternate(cases, o.runs);
    report(o, n, t, qmdMs);
    const cpu0 = cpuSeconds(server.pid!);
    await new Promise((r) => setTimeout(r, 10_000));
    const idle = ((cpuSeconds(server.pid!) - cpu0) / 10) * 100;
    const beforeRss = before ? `; before's server ${rssMb(before.pid!).toFixed(0)} MB` : '';
    o.print(`  server RSS ${rssMb(server.pid!).toFixed(0)} MB after the run${beforeRss}; idle CPU over 10 s ${idle.toFixed(2)} %`);
  } finally {
    for (const s of servers) s.kill();
  }
}

function report(o: ServerBenchOptions, n: number, t: Map<string, number>, qmdMs: number | null): void {
  const node = t.get('node -e 0')!;
  const qmd = t.get('qmd search');
  o.print(
    '',
    `${n} notes (p50 of ${o.runs} alternating runs, whole process; node -e 0 ${node.toFixed(0)} ms${qmdMs !== null ? `; qmd index ${(qmdMs / 1000).toFixed(1)} s` : ''}):`,
  );
  for (const [label, ms] of t) {
    if (label === 'node -e 0') continue;
    const vsQmd = qmd && label.startsWith('recall QUERY') ? `, ${(ms / qmd).toFixed(2)}x qmd` : '';
    o.print(`  ${label.padEnd(32)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / node).toFixed(2)}x node -e 0${vsQmd}`);
  }
}

/** What a hung server costs a hook: the client's accept budget, then the in-process run. */
async function hungServer(o: ServerBenchOptions): Promise<void> {
  const dir = path.join(o.tmp, 'server-hung');
  const kb = path.join(dir, 'kb');
  const state = path.join(dir, 'state');
  o.generateKb(kb, 1000);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: state, REFLECT_STATE_DIR: state, GLOBAL_LEARNINGS_PATH: kb };
  must(spawnSync(path.join(o.repo, 'bin', 'recall'), ['index', '--kb', kb], { env, encoding: 'utf8' }), 'recall index');
  const socket = path.join(state, 'run', 'recall.sock');
  fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const hung = net.createServer(() => undefined);
  await new Promise<void>((r) => hung.listen(socket, r));
  try {
    const input = JSON.stringify({ prompt: 'why does postgres keep timing out when the pool is exhausted' });
    const hook = path.join(o.repo, 'dist', 'hooks', 'user-prompt-submit.js');
    const t = alternate(
      [
        { label: 'hung', run: spawned(process.execPath, [hook], env, input) },
        { label: 'alone', run: spawned(process.execPath, [hook], { ...env, RECALL_NO_SERVER: '1' }, input) },
      ],
      Math.max(5, Math.floor(o.runs / 2)),
    );
    o.print(
      '',
      `hung server (accepts connections, never answers), 1000 notes: user-prompt-submit ${t.get('hung')!.toFixed(0)} ms vs ${t.get('alone')!.toFixed(0)} ms in-process without a server`,
    );
  } finally {
    hung.close();
  }
}

/** The options of `--server` runs: `--qmd-max N` (largest KB qmd is run on) and `--ab DIR` (a "before" checkout). */
export function serverBenchArgs(argv: readonly string[]): { qmdMax: number; ab: string | null } {
  const value = (flag: string): string | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const ab = value('--ab');
  return { qmdMax: Number(value('--qmd-max') ?? 10000), ab: ab ? path.resolve(ab) : null };
}

export async function benchServer(o: ServerBenchOptions): Promise<void> {
  o.print(
    `recall server vs in-process${o.ab ? ` vs before (${o.ab})` : ''}${o.qmd ? ` vs qmd (${o.qmd}, up to ${o.qmdMax} notes)` : ' (qmd not found: pass --qmd PATH)'}:`,
  );
  for (const n of o.sizes) await benchSize(o, n);
  await hungServer(o);
}
