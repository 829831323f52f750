#!/usr/bin/env node
/**
 * The hops of one UserPromptSubmit, counted on a real run (docs/hooks.md, "Measurements"): a temporary KB of
 * eight notes on one problem, a prompt about it, and the built hook run twice (the first call builds
 * the index; the second is measured) with node's V8 coverage on, which counts every call of every
 * function in every node process that took part.
 *
 *   npm run build && node scripts/hook-hops.mjs [--json]
 *
 * Printed: the node processes of one call in-process (RECALL_NO_SERVER=1) and through the recall
 * server; for the in-process call, the project modules and functions it entered, the calls of the
 * functions that read the settings, render markdown and write the recall log; how many notes the
 * hook injected against how many the recall log line names; and, where strace is installed, every
 * process the command of hooks/hooks.json starts for one call through the server, run by `sh -c`
 * as a harness runs it (a shell keeper, its timer and temp-file helpers show up there). Nothing is
 * written outside a temp dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(repo, 'dist');
/** Functions whose call counts say what the issue is about: settings reads, renders, log writes. */
const WATCHED = ['withConfigFile', 'loadConfig', 'renderMarkdown', 'logRecall', 'recall$'];
const PROMPT = 'the postgres connection pool runs out of connections under load in the test suite';

function note(i) {
  const title = `Postgres pool exhaustion fix ${i}: close idle connections in the test fixture`;
  return [
    '---',
    `id: "lrn-pool-${i}"`,
    `title: ${JSON.stringify(title)}`,
    'confidence: "medium"',
    'tags: ["postgres", "testing"]',
    `key_insight: ${JSON.stringify(title)}`,
    '---',
    '## Learning',
    '',
    `Variant ${i}: the postgres connection pool ran out of connections under load in the test suite;`,
    'each test opened a client and never released it. Release clients in afterEach and cap the pool size.',
    '',
    `**How to apply:** ${title}`,
    '',
  ].join('\n');
}

function tempSetup() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hops-'));
  const kb = path.join(base, 'kb');
  const state = path.join(base, 'state');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  for (let i = 1; i <= 8; i++) fs.writeFileSync(path.join(kb, 'documents', `pool-${i}.md`), note(i));
  const env = { PATH: process.env.PATH ?? '', HOME: state, REFLECT_STATE_DIR: state, GLOBAL_LEARNINGS_PATH: kb };
  if (process.env.RECALL_SQLITE_DRIVER) env.RECALL_SQLITE_DRIVER = process.env.RECALL_SQLITE_DRIVER;
  return { base, kb, state, env };
}

function run(argv, env, session, cwd) {
  const input = JSON.stringify({ session_id: session, prompt: PROMPT, cwd, hook_event_name: 'UserPromptSubmit' });
  const r = spawnSync(process.execPath, argv, { input, env, cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
  return { pid: r.pid, stdout: r.stdout };
}

/** Per coverage file (one per node process): the project functions called, with their call counts. */
function readCoverage(dir) {
  const out = [];
  for (const f of fs.readdirSync(dir)) {
    const pid = Number(/^coverage-(\d+)-/.exec(f)?.[1]);
    const { result } = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const calls = new Map();
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const file = fileURLToPath(script.url);
      if (!file.startsWith(dist + path.sep) || file.includes(`${path.sep}node_modules${path.sep}`)) continue;
      for (const fn of script.functions) {
        const count = fn.ranges[0]?.count ?? 0;
        // The nameless outermost range is the module's own top level: loading it is no call.
        if (!fn.functionName || count === 0) continue;
        const key = `${path.relative(dist, file)}#${fn.functionName}`;
        calls.set(key, (calls.get(key) ?? 0) + count);
      }
    }
    out.push({ pid, calls });
  }
  return out;
}

const contextOf = (stdout) => {
  const e = JSON.parse(stdout.trim());
  return e.hookSpecificOutput?.additionalContext ?? e.additionalContext ?? '';
};

function inProcess() {
  const t = tempSetup();
  const env = { ...t.env, RECALL_NO_SERVER: '1' };
  // The in-process path as compiled module by module (the bundles merge modules into chunks): the
  // call put together where the process starts (client/hook-call.ts) and answered by answerHook, the
  // code the recall server runs for each call and the thin client runs when there is no server.
  const call = pathToFileURL(path.join(dist, 'client', 'hook-call.js')).href;
  const answer = pathToFileURL(path.join(dist, 'hooks', 'answer.js')).href;
  const hook = [
    '--input-type=module',
    '-e',
    [
      `const { startHookCall, withStdin } = await import(${JSON.stringify(call)});`,
      `const { answerHook } = await import(${JSON.stringify(answer)});`,
      "const start = startHookCall('user-prompt-submit', { env: process.env, cwd: process.cwd(), startedMs: Math.round(performance.timeOrigin) });",
      'process.stdout.write(await answerHook(await withStdin(start, process.stdin)), () => process.exit(0));',
    ].join(' '),
  ];
  try {
    run(hook, env, 'warm-up', t.kb);
    const cov = path.join(t.base, 'coverage');
    const measured = run(hook, { ...env, NODE_V8_COVERAGE: cov }, 'measured', t.kb);
    const procs = readCoverage(cov);
    const calls = procs.find((p) => p.pid === measured.pid)?.calls ?? new Map();
    const modules = new Set([...calls.keys()].map((k) => k.split('#')[0]));
    const watched = Object.fromEntries(
      WATCHED.map((name) => [name, [...calls].filter(([k]) => k.endsWith(`#${name}`)).reduce((n, [, c]) => n + c, 0)]),
    );
    const injected = [...contextOf(measured.stdout).matchAll(/^- \*\*\[(.+?)\]\*\*/gm)].map((m) => m[1]);
    const log = fs
      .readFileSync(path.join(t.state, 'recall_log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const line = log.filter((l) => !l.kind && l.caller === 'user-prompt-submit').at(-1);
    return {
      processes: procs.length,
      modules: modules.size,
      functions: calls.size,
      calls: watched,
      injected: injected.length,
      logged: line?.ids?.length ?? null,
    };
  } finally {
    fs.rmSync(t.base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

/**
 * Every process the installed UserPromptSubmit command starts for one call (the recall server already
 * running): the command of hooks/hooks.json with CLAUDE_PLUGIN_ROOT set, run by `sh -c` as a harness
 * runs it, under `strace -f`. Each process is named by the program it last ran (a shell's forked
 * subshell by its parent's, "(fork)"); the harness's own `sh -c` is left out. Null when strace is missing or cannot trace.
 */
function traceInstalled(t) {
  const hooks = JSON.parse(fs.readFileSync(path.join(repo, 'hooks', 'hooks.json'), 'utf8'));
  const command = hooks.hooks.UserPromptSubmit[0].hooks[0].command;
  const trace = path.join(t.base, 'strace.txt');
  const input = JSON.stringify({ session_id: 'traced', prompt: PROMPT, cwd: t.kb, hook_event_name: 'UserPromptSubmit' });
  // strace ends when the last traced process does: a keeper's timer (its sleep) lives on to the hook's deadline.
  const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=process', '-o', trace, 'sh', '-c', command], {
    input,
    env: { ...t.env, CLAUDE_PLUGIN_ROOT: repo },
    cwd: t.kb,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error || !fs.existsSync(trace)) return null;
  const program = new Map();
  const parent = new Map();
  const pending = new Map();
  const threads = new Set();
  const cloning = new Map();
  let root = null;
  for (const line of fs.readFileSync(trace, 'utf8').split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [pid, rest] = [Number(m[1]), m[2]];
    root ??= pid;
    if (!program.has(pid)) program.set(pid, null);
    const exec = /^execve\("([^"]+)"/.exec(rest);
    if (exec) pending.set(pid, exec[1]);
    if ((exec || /^<\.\.\. execve resumed>/.test(rest)) && /= 0$/.test(rest)) program.set(pid, pending.get(pid));
    // A clone's flags and its result may come on two lines (another process's event between them).
    if (/^(?:clone3?|v?fork)\(.*<unfinished \.\.\.>$/.test(rest)) cloning.set(pid, rest);
    const child = /^(?:clone3?|v?fork)\(.*= (\d+)$/.exec(rest) ?? /^<\.\.\. (?:clone3?|v?fork) resumed>.*= (\d+)$/.exec(rest);
    const call = child && rest.startsWith('<...') ? `${cloning.get(pid) ?? ''} ${rest}` : rest;
    // A clone with CLONE_THREAD is one of node's threads, not a process.
    if (child && /CLONE_THREAD/.test(call)) threads.add(Number(child[1]));
    else if (child) parent.set(Number(child[1]), pid);
  }
  // strace could not trace (ptrace not permitted, say): no count rather than a wrong one.
  if (![...program.values()].some(Boolean)) return null;
  const name = (pid) => {
    const p = program.get(pid);
    if (p) return path.basename(p);
    const up = parent.get(pid);
    return up === undefined ? '?' : `${name(up).replace(/ \(fork\)$/, '')} (fork)`;
  };
  const counts = {};
  for (const pid of program.keys()) {
    if (threads.has(pid)) continue;
    // The harness's shell: the first process, unless it ran the command itself (bash execs a last simple command).
    if (pid === root && /^(sh|dash|bash)$/.test(name(pid))) continue;
    counts[name(pid)] = (counts[name(pid)] ?? 0) + 1;
  }
  const answered = (() => {
    try {
      return JSON.parse(r.stdout.trim()) !== null;
    } catch {
      return false;
    }
  })();
  return {
    command,
    processes: Object.values(counts).reduce((a, b) => a + b, 0),
    byProgram: counts,
    answered,
    keeper: /hook\.sh/.test(command),
  };
}

/** Node processes of one call through the thin client and the recall server (started by a first call). */
function viaServer() {
  const t = tempSetup();
  const launch = path.join(repo, 'scripts', 'launch.mjs');
  const recall = path.join(dist, 'bundle', 'recall.mjs');
  try {
    run([launch, 'hook', 'user-prompt-submit'], t.env, 'warm-up', t.kb);
    const socketUp = () => spawnSync(process.execPath, [recall, 'daemon', 'status', '--json'], { env: t.env, encoding: 'utf8' });
    let status = null;
    for (let i = 0; i < 200 && !status; i++) {
      const r = socketUp();
      try {
        status = r.status === 0 ? (JSON.parse(r.stdout).server?.status ?? null) : null;
      } catch {
        status = null;
      }
      if (!status) spawnSync('sleep', ['0.05']);
    }
    if (!status) return { processes: null, note: 'the recall server did not start' };
    const before = status.requests ?? 0;
    const measured = run([launch, 'hook', 'user-prompt-submit'], t.env, 'measured', t.kb);
    const after = JSON.parse(socketUp().stdout).server?.status ?? {};
    const served = (after.requests ?? 0) > before;
    const installed = traceInstalled(t);
    spawnSync(process.execPath, [recall, 'daemon', 'stop'], { env: t.env, encoding: 'utf8' });
    // The client process, and the server process when it answered the call.
    return { processes: served ? 2 : 1, served, clientPid: measured.pid, serverPid: after.pid ?? null, installed };
  } finally {
    fs.rmSync(t.base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

const report = { inProcess: inProcess(), viaServer: viaServer() };
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const a = report.inProcess;
  const lines = [
    `one UserPromptSubmit, in-process: ${a.processes} node process; ${a.modules} project modules, ${a.functions} project functions entered`,
    `  calls: ${Object.entries(a.calls)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  notes injected ${a.injected}, named by the recall log line ${a.logged}`,
    `through the recall server: ${report.viaServer.processes ?? '?'} node processes (client${report.viaServer.served ? ' + server' : ''})`,
  ];
  const i = report.viaServer.installed;
  if (i === undefined || i === null) lines.push('the installed command: not traced (strace not found, or not permitted)');
  else
    lines.push(
      `the installed command (${i.keeper ? 'through the shell keeper scripts/hook.sh' : 'no shell keeper'}), one call through the server: ` +
        `${i.processes} processes besides the harness's shell: ${Object.entries(i.byProgram)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${i.answered ? '' : ' (no envelope!)'}`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}
