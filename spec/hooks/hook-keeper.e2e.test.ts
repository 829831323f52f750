/**
 * scripts/hook.sh, the shell the commands of the burst hooks start (subagent-start, pre-tool-use: the
 * hook table's keeper column): it answers "nothing to add" by the hook's deadline when node cannot
 * (a loaded machine takes seconds to start node), and whatever node does and whenever, exactly one
 * envelope reaches the harness. The session-start and prompt hooks run node directly, without the CA
 * bundle at its start all the same.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOOK_TABLE, hookRow } from '../../hooks/hook-table.js';
import { emptyEnvelope } from '../../sinks/hook-envelope.js';
import { hookCommand } from '../../hooks/install/harness-config.js';
import { serverEnv } from '../../client/start-server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = path.join(repo, 'scripts', 'hook.sh');
const launch = path.join(repo, 'scripts', 'launch.mjs');
const EMPTY = { hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: '' } };

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function world(): { dir: string; state: string; tmp: string; env: Record<string, string> } {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-keeper-')));
  const state = path.join(dir, 'state');
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(path.join(state, 'logs'), { recursive: true, mode: 0o700 });
  fs.mkdirSync(tmp, { mode: 0o700 });
  const env = { PATH: process.env['PATH'] ?? '', HOME: state, REFLECT_STATE_DIR: state, TMPDIR: tmp, REFLECT_NO_DAEMON: '1' };
  return { dir, state, tmp, env };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `command` through sh as a harness does, stdin the hook JSON; killed (its whole process group,
 * node included) at the harness's own limit for the hook, as the harness would.
 */
function asHarness(command: string, env: Record<string, string>, limitSec: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // A stand-in that exits without reading its stdin closes the pipe first.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ agent_type: 'general', prompt: 'postgres pool' }));
    const limit = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, limitSec * 1000);
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Resolves once `check` holds, looking again whenever the folder changes (and every so often). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !check(); i += 1) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`never: ${what}`);
}

const oneLine = (out: string): string[] => out.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

describe('scripts/hook.sh', () => {
  it('answers one empty envelope, exit 0, when node cannot start in time, and logs why', async () => {
    const w = world();
    // node that hangs before running a line of recall, as a starved node does (no CPU used).
    const hang = path.join(w.dir, 'hang.cjs');
    fs.writeFileSync(hang, 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);\n');
    const env = { ...w.env, REFLECT_SUBAGENT_RECALL_TIMEOUT: '1', NODE_OPTIONS: `--require ${hang}` };
    const row = hookRow('subagent-start');
    const run = await asHarness(hookCommand('subagent-start', repo), env, row.timeoutSec);
    expect(run.code).toBe(0);
    expect(oneLine(run.stdout)).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual(EMPTY);
    const log = path.join(w.state, 'logs', 'subagent-start.log');
    await until(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('the launcher answered'), 'the log line');
    expect(fs.readFileSync(log, 'utf8')).toMatch(/node gave no answer by 700 ms after the spawn/);
    // Its temp folder is gone (removed in the background after the answer).
    await until(() => fs.readdirSync(w.tmp).length === 0, 'the temp folder removed');
  }, 60_000);

  it("hands on the real hook's answer, with exit 0", async () => {
    const w = world();
    const kb = path.join(w.dir, 'kb');
    fs.mkdirSync(path.join(kb, 'documents'), { recursive: true });
    const env = { ...w.env, GLOBAL_LEARNINGS_PATH: kb, RECALL_NO_SERVER: '1', REFLECT_SUBAGENT_RECALL_TIMEOUT: '60' };
    const run = await asHarness(hookCommand('subagent-start', repo), env, 120);
    expect(run.code).toBe(0);
    expect(oneLine(run.stdout)).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual(EMPTY);
  }, 150_000);

  /**
   * A stand-in for node that does what `behaviour` says (sh), after `delay` seconds: every way a
   * node can end, at every moment around the script's time, gives one valid envelope.
   */
  const FAKES: Record<string, string> = {
    // The client's protocol: write, then signal.
    signals: `printf '{"marker":"node"}\\n'; kill -USR2 "$RECALL_HOOK_LAUNCHER"; sleep 5`,
    // An older client: writes and exits, no signal.
    exits: `printf '{"marker":"node"}\\n'`,
    // Writes half a line and hangs (killed while writing).
    partial: `printf '{"marker":'; sleep 5`,
    // Dies without a word.
    dies: `exit 3`,
    // Signals without writing anything.
    'signals-empty': `kill -USR2 "$RECALL_HOOK_LAUNCHER"; sleep 5`,
  };

  it('prints exactly one valid envelope in every interleaving of node and its timer', async () => {
    const w = world();
    const fake = path.join(w.dir, 'fake-node');
    // The deadline of 0.2 s puts the timer at 100 ms; the stand-ins act between 0 and 200 ms.
    fs.writeFileSync(fake, `#!/bin/sh\nsleep "$FAKE_DELAY"\n${'eval "$FAKE_DO"'}\n`, { mode: 0o755 });
    const runs: Promise<{ kind: string; run: Run }>[] = [];
    for (const [kind, behaviour] of Object.entries(FAKES))
      for (let i = 0; i < 8; i += 1) {
        const env = {
          ...w.env,
          RECALL_NODE: fake,
          FAKE_DO: behaviour,
          FAKE_DELAY: `0.${String(i * 25).padStart(3, '0')}`,
          REFLECT_SUBAGENT_RECALL_TIMEOUT: '0.2',
        };
        runs.push(asHarness(`sh ${script} ${launch} hook subagent-start`, env, 10).then((run) => ({ kind, run })));
      }
    for (const { kind, run } of await Promise.all(runs)) {
      expect({ kind, code: run.code }).toEqual({ kind, code: 0 });
      const lines = oneLine(run.stdout);
      expect({ kind, lines: lines.length }).toEqual({ kind, lines: 1 });
      const value = JSON.parse(lines[0]!) as unknown;
      const allowed = kind === 'signals' || kind === 'exits' ? [EMPTY, { marker: 'node' }] : [EMPTY];
      expect(allowed).toContainEqual(value);
    }
    await until(() => fs.readdirSync(w.tmp).length === 0, 'every temp folder removed');
  }, 120_000);

  it('tells node when it answers itself: the deadline setting, its default, or the harness limit', async () => {
    const w = world();
    const fake = path.join(w.dir, 'fake-node');
    fs.writeFileSync(fake, `#!/bin/sh\nprintf '{"by":%s}\\n' "$RECALL_HOOK_ANSWER_BY"\n`, { mode: 0o755 });
    const answerBy = async (extra: Record<string, string>, name = 'subagent-start'): Promise<number> => {
      const run = await asHarness(`sh ${script} ${launch} hook ${name}`, { ...w.env, RECALL_NODE: fake, ...extra }, 30);
      return (JSON.parse(run.stdout) as { by: number }).by;
    };
    // 30% before the deadline, at most 2 s. (Times under 3 s are not asserted: the script's own
    // timer would race the stand-in on a loaded machine.)
    expect(await answerBy({})).toBe(3500);
    expect(await answerBy({ REFLECT_SUBAGENT_RECALL_TIMEOUT: '4.5' })).toBe(3150);
    expect(await answerBy({ REFLECT_SUBAGENT_RECALL_TIMEOUT: '007.25' })).toBe(5250);
    expect(await answerBy({ RECALL_PRE_TOOL_TIMEOUT: '5' }, 'pre-tool-use')).toBe(3500);
    // Not a number it reads, or outside 0.05..3600: node keeps the deadline, the script the harness's limit.
    for (const bad of ['abc', '3601', '0.04', '1e1', '-1', '5.'])
      expect(await answerBy({ REFLECT_SUBAGENT_RECALL_TIMEOUT: bad })).toBe(8000);
    // A recall.toml may set it (the variable unset): the same.
    fs.writeFileSync(path.join(w.state, 'recall.toml'), 'subagent_recall_timeout = 8\n');
    expect(await answerBy({})).toBe(8000);
    expect(await answerBy({ REFLECT_SUBAGENT_RECALL_TIMEOUT: '6' })).toBe(4200);
  }, 60_000);

  (fs.existsSync('/proc/self/stat') ? it : it.skip)("counts a hook's time from the spawn, not from node's own start", () => {
    // Half a second between the spawn and node's start (a loaded machine makes it seconds).
    const probe = `import { processStartMs } from ${JSON.stringify(path.join(repo, 'dist', 'io', 'process-start.js'))};
      process.stdout.write(String(Math.round(performance.timeOrigin) - processStartMs()));`;
    const r = spawnSync('sh', ['-c', `sleep 0.5; exec "${process.execPath}" --input-type=module -e '${probe}'`], { encoding: 'utf8' });
    // Both kernel clocks tick in hundredths of a second.
    expect(Number(r.stdout)).toBeGreaterThanOrEqual(480);
  });

  it('knows the hooks of the hook table that have a keeper: names, deadline settings, defaults, limits and empty envelopes', () => {
    const text = fs.readFileSync(script, 'utf8');
    const rows = [...text.matchAll(/^ {2}([a-z-]+)\) limit=(\d+) setting=\$\{(\w+)-\} default=(\d+) event=(\w+) ;;$/gm)].map((m) => ({
      name: m[1],
      timeoutSec: Number(m[2]),
      timeoutEnv: m[3],
      defaultTimeoutSec: Number(m[4]),
      event: m[5],
    }));
    const kept = HOOK_TABLE.filter((h) => h.keeper);
    expect(rows).toEqual(
      kept.map((h) => ({
        name: h.name,
        timeoutSec: h.timeoutSec,
        timeoutEnv: h.timeoutEnv,
        defaultTimeoutSec: h.defaultTimeoutSec,
        event: h.event,
      })),
    );
    const fake = path.join(os.tmpdir(), 'recall-keeper-no-such-node');
    for (const harness of ['claude', 'codex', 'copilot'] as const)
      for (const h of kept) {
        const r = spawnSync('sh', [script, launch, 'hook', h.name], {
          env: { PATH: process.env['PATH'] ?? '', HOME: os.tmpdir(), REFLECT_HARNESS: harness, RECALL_NODE: fake },
          input: '{}',
          encoding: 'utf8',
        });
        expect({ hook: h.name, harness, out: r.stdout, code: r.status }).toEqual({
          hook: h.name,
          harness,
          out: emptyEnvelope(harness, h.event),
          code: 0,
        });
      }
  });

  it('runs node on the spot for a hook it does not keep (a command an older install wrote), the CA bundle moved', async () => {
    const w = world();
    const fake = path.join(w.dir, 'fake-node');
    fs.writeFileSync(
      fake,
      `#!/bin/sh\nprintf '{"args":"%s","launcher":"%s","node":"%s","kept":"%s"}\\n' "$*" "$RECALL_HOOK_LAUNCHER" "$NODE_EXTRA_CA_CERTS" "$RECALL_EXTRA_CA_CERTS"\n`,
      { mode: 0o755 },
    );
    for (const h of HOOK_TABLE.filter((row) => !row.keeper)) {
      const run = await asHarness(
        `sh ${script} ${launch} hook ${h.name}`,
        { ...w.env, RECALL_NODE: fake, NODE_EXTRA_CA_CERTS: '/ca.pem' },
        30,
      );
      expect({ code: run.code, out: JSON.parse(run.stdout) as unknown }).toEqual({
        code: 0,
        out: { args: `${launch} hook ${h.name}`, launcher: '', node: '', kept: '/ca.pem' },
      });
    }
    // No timer, no temp folder.
    expect(fs.readdirSync(w.tmp)).toEqual([]);
  });
});

describe("the hook's node and the CA bundle", () => {
  it('starts without NODE_EXTRA_CA_CERTS, which the recall server it starts gets back', async () => {
    const w = world();
    const fake = path.join(w.dir, 'fake-node');
    fs.writeFileSync(fake, `#!/bin/sh\nprintf '{"node":"%s","kept":"%s"}\\n' "$NODE_EXTRA_CA_CERTS" "$RECALL_EXTRA_CA_CERTS"\n`, {
      mode: 0o755,
    });
    const ca = path.join(w.dir, 'corp-ca.pem');
    const run = await asHarness(`sh ${script} ${launch} hook subagent-start`, { ...w.env, RECALL_NODE: fake, NODE_EXTRA_CA_CERTS: ca }, 30);
    expect(JSON.parse(run.stdout)).toEqual({ node: '', kept: ca });
    expect(serverEnv({ PATH: '/bin', RECALL_EXTRA_CA_CERTS: ca })).toEqual({ PATH: '/bin', NODE_EXTRA_CA_CERTS: ca });
    // A bundle the caller set itself stays as it is.
    expect(serverEnv({ NODE_EXTRA_CA_CERTS: 'own.pem', RECALL_EXTRA_CA_CERTS: ca })['NODE_EXTRA_CA_CERTS']).toBe('own.pem');
  });
});
