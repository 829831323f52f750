#!/usr/bin/env node
/**
 * The prompt hook against a bare node start, on a generated KB: per round one `node -e 0` and one
 * UserPromptSubmit hook through the recall server (spawn to envelope, warm server) and one in its
 * own process (RECALL_NO_SERVER=1), for this checkout and, with `--ab DIR`, another built one. The
 * hook runs as installed: the UserPromptSubmit command of the checkout's hooks/hooks.json, run by
 * `sh -c` with CLAUDE_PLUGIN_ROOT set, as Claude Code runs the plugin's (a checkout whose hooks.json
 * has no such command: node on scripts/launch.mjs). The ratio is taken per round (hook / the round's
 * `node -e 0`) and its median printed, so a machine whose load drifts during the run slows both sides
 * of each ratio alike.
 *
 * Both sides get the same environment: the bench's own settings on a bare one (PATH only), or with
 * `--inherit-env` on this shell's (where NODE_EXTRA_CA_CERTS, for one, changes node's start).
 *
 *   npm run build && node scripts/bench/hook-ratio.mjs [--notes 10000] [--runs 21] [--ab DIR] [--inherit-env] [--json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connects, opt as optOf } from './common.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => optOf(args, name, def);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const notes = Number(opt('notes', '10000'));
const runs = Number(opt('runs', '21'));
const ab = args.includes('--ab') ? path.resolve(opt('ab', '')) : null;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const inherit = args.includes('--inherit-env');
/** The environment both sides start with (see the module comment). */
const baseEnv = () => (inherit ? { ...process.env } : { PATH: process.env.PATH ?? '' });

function timed(argv, env, input, command = process.execPath) {
  const t0 = performance.now();
  const r = spawnSync(command, argv, { env, input, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 || (input && !r.stdout.trim().startsWith('{'))) throw new Error(`${argv.join(' ')} failed: ${r.stderr}`);
  return ms;
}

/** The UserPromptSubmit command of `root`'s hooks/hooks.json, or null. */
function installedCommand(root) {
  try {
    const hooks = JSON.parse(fs.readFileSync(path.join(root, 'hooks', 'hooks.json'), 'utf8'));
    const command = hooks.hooks.UserPromptSubmit[0].hooks[0].command;
    return typeof command === 'string' && command.includes('launch.mjs') ? command : null;
  } catch {
    return null;
  }
}

/** One checkout: its own state dir, index and recall server. */
async function checkout(root, base, kb, label) {
  const state = path.join(base, `state-${label}`);
  fs.mkdirSync(state, { recursive: true });
  const env = {
    ...baseEnv(),
    HOME: state,
    REFLECT_STATE_DIR: state,
    GLOBAL_LEARNINGS_PATH: kb,
    REFLECT_IDLE_TIMEOUT: '600',
  };
  if (process.env.RECALL_SQLITE_DRIVER) env.RECALL_SQLITE_DRIVER = process.env.RECALL_SQLITE_DRIVER;
  const r = spawnSync(path.join(root, 'bin', 'recall'), ['index', '--kb', kb], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`recall index (${label}) failed: ${r.stderr}`);
  const socket = path.join(state, 'run', 'recall.sock');
  const server = spawn(process.execPath, [path.join(root, 'dist', 'bundle', 'server.mjs'), '--socket', socket], { env, stdio: 'ignore' });
  for (let i = 0; i < 600 && !(await connects(socket)); i += 1) await sleep(100);
  // The command the plugin installs (the form each checkout writes: through scripts/hook.sh or not).
  const launch = path.join(root, 'scripts', 'launch.mjs');
  const command = installedCommand(root);
  const hook = command
    ? (env, input) => timed(['-c', command], { ...env, CLAUDE_PLUGIN_ROOT: root }, input, 'sh')
    : (env, input) => timed([launch, 'hook', 'user-prompt-submit'], env, input);
  return { label, env, server, hook };
}

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hook-ratio-'));
  const kb = path.join(base, 'kb');
  const checkouts = [];
  try {
    const { generateKb } = await import(pathToFileURL(path.join(here, 'dist', 'scripts', 'bench', 'kb-gen.js')).href);
    generateKb(kb, notes);
    checkouts.push(await checkout(here, base, kb, 'this'));
    if (ab) checkouts.push(await checkout(ab, base, kb, 'before'));
    const input = (i, c) =>
      JSON.stringify({
        session_id: `ratio-${c}-${i}-${Math.random()}`,
        prompt: `why does postgres keep timing out when the pool is exhausted ${i}`,
      });
    const cases = checkouts.flatMap((c) => [
      { label: `${c.label}, server`, run: (i) => c.hook(c.env, input(i, c.label)) },
      { label: `${c.label}, in-process`, run: (i) => c.hook({ ...c.env, RECALL_NO_SERVER: '1' }, input(i, c.label)) },
    ]);
    for (const c of cases) c.run(-1); // warm: server state, caches of the OS
    const ratios = new Map(cases.map((c) => [c.label, []]));
    const ms = new Map(cases.map((c) => [c.label, []]));
    const node = [];
    for (let i = 0; i < runs; i += 1) {
      const floor = timed(['-e', '0'], baseEnv());
      node.push(floor);
      // Every other round runs the cases in reverse, so no case always follows the same one.
      for (const c of i % 2 ? [...cases].reverse() : cases) {
        const t = c.run(i);
        ms.get(c.label).push(t);
        ratios.get(c.label).push(t / floor);
      }
    }
    const report = {
      notes,
      runs,
      nodeMedianMs: Math.round(median(node)),
      cases: cases.map((c) => ({
        label: c.label,
        medianMs: Math.round(median(ms.get(c.label))),
        medianRatio: Number(median(ratios.get(c.label)).toFixed(2)),
      })),
    };
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      process.stdout.write(`UserPromptSubmit on ${notes} notes, ${runs} alternating rounds; node -e 0 median ${report.nodeMedianMs} ms:\n`);
      for (const c of report.cases)
        process.stdout.write(
          `  ${c.label.padEnd(20)} median ${String(c.medianMs).padStart(5)} ms, median ratio to node -e 0: ${c.medianRatio}x\n`,
        );
    }
  } finally {
    for (const c of checkouts) c.server.kill();
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

await main();
