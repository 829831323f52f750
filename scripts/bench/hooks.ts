import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pct, repo } from './measure.js';

/**
 * Hook end to end (spawn of `node dist/hooks/<name>.js` to its envelope) on the largest KB, no models,
 * warm index; each prompt distinct so the cache does not answer.
 */
export function benchHooks(tmp: string, kb: string, runs: number): string[] {
  const state = path.join(tmp, 'state-hooks');
  const env = { ...process.env, HOME: state, REFLECT_STATE_DIR: state, GLOBAL_LEARNINGS_PATH: kb };
  const project = path.join(tmp, 'hook-project');
  fs.mkdirSync(project, { recursive: true });
  spawnSync('git', ['-C', project, 'init', '-q']);
  const hook = (name: string, stdin: string): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [path.join(repo, 'dist', 'hooks', `${name}.js`)], { input: stdin, env, encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== 0 || !r.stdout.trim().startsWith('{')) throw new Error(`hook ${name} failed: ${r.stderr}`);
    return ms;
  };
  hook('user-prompt-submit', JSON.stringify({ session_id: 'warm', prompt: 'warm the index up first please' }));
  const lines = [`hooks, spawn to envelope, ${path.basename(kb)}, no models, warm index (${runs} runs each):`];
  const cases: [string, (i: number) => string][] = [
    ['session-start', () => JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: project })],
    [
      'user-prompt-submit',
      (i) => JSON.stringify({ session_id: `bench-${i}`, prompt: `why does postgres keep timing out when the pool is exhausted ${i}` }),
    ],
    [
      'subagent-start',
      (i) => JSON.stringify({ agent_type: 'code-reviewer', cwd: project, prompt: `review the redis cache eviction change ${i}` }),
    ],
  ];
  for (const [name, input] of cases) {
    const ms = Array.from({ length: runs }, (_, i) => hook(name, input(i)));
    lines.push(`  ${name.padEnd(20)} p50 ${pct(ms, 50).toFixed(0).padStart(4)} ms, p95 ${pct(ms, 95).toFixed(0).padStart(4)} ms`);
  }
  return lines;
}
