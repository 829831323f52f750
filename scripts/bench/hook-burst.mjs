#!/usr/bin/env node
/**
 * Many hooks at once on a loaded machine, each with its stdin a file holding its JSON (as a harness
 * may hand it over): how many answer inside the hook's own deadline, counted from spawn.
 *
 *   npm run build && node scripts/bench/hook-burst.mjs [--root DIR] [--hooks 100] [--load 4]
 *     [--name subagent-start] [--deadline SEC] [--notes 300] [--no-server] [--via sh|launch|entry] [--json]
 *
 * --root: the built checkout measured (default: this one); --load: busy loops (`node -e 'for(;;){}'`)
 * run meanwhile, so the machine is loaded beyond its cores. A recall server is started first and
 * warmed (unless --no-server). --via: how each hook is started: `sh` (the default) as the harnesses'
 * commands start the hooks with a keeper (subagent-start, pre-tool-use), `sh scripts/hook.sh
 * scripts/launch.mjs hook NAME`; `launch`, node on scripts/launch.mjs alone (the commands of the
 * other hooks, and of every hook before scripts/hook.sh); `entry`, node on dist/hooks/NAME.js. Printed: the load average while the hooks ran, per hook the time from
 * spawn to its envelope and to its exit, how many passed the deadline (and by how much at most), how
 * many envelopes were not one valid JSON object, how many carried notes, and what the hook log says
 * ("empty stdin", answered empty). Everything lives in a temp dir, removed after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setInterval, clearInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { connects, opt as optOf } from './common.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => optOf(args, name, def);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const root = path.resolve(opt('root', here));
const hooks = Number(opt('hooks', '100'));
const loaders = Number(opt('load', '4'));
const name = opt('name', 'subagent-start');
const notes = Number(opt('notes', '300'));
const server = !args.includes('--no-server');
const via = opt('via', 'sh');
/** The command that starts one hook, as --via says. */
const hookArgv = () => {
  const launch = path.join(root, 'scripts', 'launch.mjs');
  if (via === 'sh') return ['sh', [path.join(root, 'scripts', 'hook.sh'), launch, 'hook', name]];
  if (via === 'launch') return [process.execPath, [launch, 'hook', name]];
  return [process.execPath, [path.join(root, 'dist', 'hooks', `${name}.js`)]];
};
/** The hook's deadline: `--deadline SEC` (set through its variable), else its default (hooks/hook-table.ts). */
const DEADLINE_ENV =
  { 'subagent-start': 'REFLECT_SUBAGENT_RECALL_TIMEOUT', 'pre-tool-use': 'RECALL_PRE_TOOL_TIMEOUT' }[name] ?? 'REFLECT_RECALL_TIMEOUT';
const deadlineArg = opt('deadline', '');
const DEADLINE_MS = deadlineArg ? Number(deadlineArg) * 1000 : ({ 'subagent-start': 5000, 'pre-tool-use': 2000 }[name] ?? 20_000);

function note(i) {
  const title = `postgres pool note ${i}`;
  const body = `connection pool case ${i} `.repeat(20);
  return `---\nid: n${i}\ntitle: ${JSON.stringify(title)}\nconfidence: medium\ntags: [test]\nkey_insight: ${JSON.stringify(title)}\n---\n## Learning\n\n${body}\n\n**How to apply:** ${title}\n`;
}

const payload = (i) =>
  name === 'subagent-start'
    ? JSON.stringify({ agent_type: 'general', prompt: `postgres connection pool exhausted case ${i}` })
    : JSON.stringify({ session_id: `burst-${i}`, prompt: `postgres connection pool exhausted in tests, case ${i}` });

/**
 * Preloaded into each hook: at exit, how long the process ran by its own clock (from node's start,
 * where a hook's deadline counts from), on stderr. On a loaded machine the time from spawn to that
 * start is the kernel's and node's, not the hook's.
 */
const OWN_TIME = `process.on('exit', () => { try { require('node:fs').writeSync(2, '\\nRECALL_BURST_OWN_MS ' + (Date.now() - Math.round(performance.timeOrigin)) + '\\n'); } catch {} });\n`;

/**
 * One hook, stdin a file and stdout a file: times from spawn to its envelope and to its exit, and its
 * own run time. The envelope's time is the kernel's (the stdout file's modification time), not when
 * this process, as starved as the hooks on a loaded machine, got round to reading a pipe: with 140
 * runnable processes that came seconds after the hook wrote (a hook that wrote at 2.5 s was read at 5.5 s).
 */
function runHook(env, file) {
  return new Promise((resolve) => {
    const fd = fs.openSync(file, 'r');
    const outFile = `${file}.out`;
    const outFd = fs.openSync(outFile, 'w');
    const [cmd, argv] = hookArgv();
    const t0 = Date.now();
    const child = spawn(cmd, argv, { env, stdio: [fd, outFd, 'pipe'] });
    fs.closeSync(fd);
    fs.closeSync(outFd);
    let err = '';
    child.stderr.on('data', (c) => (err += c.toString()));
    child.on('close', (code) => {
      const exitMs = Date.now() - t0;
      const out = fs.readFileSync(outFile, 'utf8');
      const answeredMs = out ? fs.statSync(outFile).mtimeMs - t0 : Infinity;
      const own = /RECALL_BURST_OWN_MS (\d+)/.exec(err);
      resolve({ code, out, answeredMs, exitMs, ownMs: own ? Number(own[1]) : null });
    });
  });
}

function envelopeOk(out) {
  const lines = out.trim().split('\n');
  if (lines.length !== 1) return false;
  try {
    const v = JSON.parse(lines[0]);
    return !!v && typeof v === 'object';
  } catch {
    return false;
  }
}

const contextOf = (out) => {
  try {
    const v = JSON.parse(out.trim());
    return v.hookSpecificOutput?.additionalContext ?? v.additionalContext ?? '';
  } catch {
    return '';
  }
};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-burst-'));
  const kb = path.join(base, 'kb');
  const state = path.join(base, 'state');
  fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  for (let i = 0; i < notes; i += 1) fs.writeFileSync(path.join(kb, 'documents', `n${i}.md`), note(i));
  const env = { PATH: process.env.PATH ?? '', HOME: state, REFLECT_STATE_DIR: state, GLOBAL_LEARNINGS_PATH: kb, REFLECT_NO_DAEMON: '1' };
  if (process.env.RECALL_SQLITE_DRIVER) env.RECALL_SQLITE_DRIVER = process.env.RECALL_SQLITE_DRIVER;
  if (!server) env.RECALL_NO_SERVER = '1';
  if (deadlineArg) env[DEADLINE_ENV] = deadlineArg;
  const files = Array.from({ length: hooks }, (_, i) => {
    const f = path.join(base, `in-${i}.json`);
    fs.writeFileSync(f, payload(i));
    return f;
  });
  const preload = path.join(base, 'own-time.cjs');
  fs.writeFileSync(preload, OWN_TIME);
  const hookEnv = { ...env, NODE_OPTIONS: `--require ${preload}` };
  const warm = path.join(base, 'warm.json');
  fs.writeFileSync(warm, payload(-1));
  const busy = [];
  try {
    // The first call indexes the KB (and starts a server for next time); a second warms what the first started.
    await runHook(env, warm);
    if (server) {
      const socket = path.join(state, 'run', 'recall.sock');
      for (let i = 0; i < 600 && !(await connects(socket)); i += 1) await new Promise((r) => setTimeout(r, 100));
    }
    await runHook(env, warm);
    for (let i = 0; i < loaders; i += 1) busy.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    // Let the busy loops take the cores before the hooks start.
    await new Promise((r) => setTimeout(r, 1000));
    const loads = [];
    const sampler = setInterval(() => loads.push(os.loadavg()[0]), 500);
    const runs = await Promise.all(files.map((f) => runHook(hookEnv, f)));
    clearInterval(sampler);
    const logDir = path.join(state, 'logs');
    const logs = fs.existsSync(logDir)
      ? fs
          .readdirSync(logDir)
          .map((f) => fs.readFileSync(path.join(logDir, f), 'utf8'))
          .join('')
      : '';
    const count = (re) => (logs.match(re) ?? []).length;
    const late = runs.filter((r) => r.answeredMs > DEADLINE_MS);
    // A node that scripts/hook.sh killed (it was too late) has no own time, nor one still writing
    // its log when the script, having handed on its answer, ended (its stderr went with it).
    const owned = runs.filter((r) => r.ownMs !== null);
    const ownLate = owned.filter((r) => r.ownMs > DEADLINE_MS);
    const report = {
      root,
      hook: name,
      hooks,
      via,
      busyLoops: loaders,
      server,
      loadAverage: loads.length ? [Math.min(...loads), Math.max(...loads)].map((x) => Number(x.toFixed(1))) : null,
      deadlineMs: DEADLINE_MS,
      answeredP50Ms: Math.round(
        pct(
          runs.map((r) => r.answeredMs),
          50,
        ),
      ),
      answeredMaxMs: Math.round(Math.max(...runs.map((r) => r.answeredMs))),
      exitMaxMs: Math.round(Math.max(...runs.map((r) => r.exitMs))),
      answeredPastDeadline: late.length,
      worstPastDeadlineMs: late.length ? Math.round(Math.max(...late.map((r) => r.answeredMs)) - DEADLINE_MS) : 0,
      ownP50Ms: Math.round(
        pct(
          owned.map((r) => r.ownMs),
          50,
        ),
      ),
      ownMaxMs: Math.round(Math.max(...owned.map((r) => r.ownMs))),
      withoutOwnTime: runs.length - owned.length,
      exitedPastDeadlineOwnClock: ownLate.length,
      worstPastDeadlineOwnClockMs: ownLate.length ? Math.round(Math.max(...ownLate.map((r) => r.ownMs)) - DEADLINE_MS) : 0,
      badEnvelopes: runs.filter((r) => r.code !== 0 || !envelopeOk(r.out)).length,
      withNotes: runs.filter((r) => contextOf(r.out).includes('**[')).length,
      emptyStdinLogged: count(/empty stdin/g),
      answeredEmptyLogged: count(/no context given|server-busy/g),
    };
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else
      process.stdout.write(
        `${hooks} concurrent ${name} (via ${via}, stdin a file, ${notes}-note KB, ${server ? 'warm recall server' : 'no server'}, ${loaders} busy loops, load ${report.loadAverage?.join('-')}):\n` +
          `  spawn to envelope p50 ${report.answeredP50Ms} ms, max ${report.answeredMaxMs} ms (exit max ${report.exitMaxMs} ms as seen here)\n` +
          `  past the ${DEADLINE_MS / 1000} s deadline from spawn: ${report.answeredPastDeadline} (worst by ${report.worstPastDeadlineMs} ms)\n` +
          `  by node's own clock (node start to exit): p50 ${report.ownP50Ms} ms, max ${report.ownMaxMs} ms (${report.withoutOwnTime} without: killed by scripts/hook.sh, or past its end); ` +
          `exited past the deadline ${report.exitedPastDeadlineOwnClock} (worst by ${report.worstPastDeadlineOwnClockMs} ms)\n  ` +
          `bad envelopes ${report.badEnvelopes}; with notes ${report.withNotes}; ` +
          `"empty stdin" logged ${report.emptyStdinLogged}; answered empty (logged) ${report.answeredEmptyLogged}\n`,
      );
  } finally {
    for (const b of busy) b.kill();
    if (server) spawnSync(process.execPath, [path.join(root, 'dist', 'bundle', 'recall.mjs'), 'daemon', 'stop'], { env, encoding: 'utf8' });
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

await main();
