/** Timing helpers of the bench: a `bin/recall` run's wall time (and peak RSS), percentiles. */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const BIN = path.join(repo, 'bin', 'recall');

export function time(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const res = spawnSync(BIN, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (res.status !== 0) throw new Error(`recall ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return ms;
}

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

/** Wall time and peak RSS (KB) of one command, through GNU time when it is installed. */
export function timeWithRss(args: string[], env: NodeJS.ProcessEnv): { ms: number; rssKb: number | null } {
  const gnuTime = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const t0 = performance.now();
  const res = gnuTime
    ? spawnSync(gnuTime, ['-f', 'RSS_KB=%M', BIN, ...args], { env, encoding: 'utf8' })
    : spawnSync(BIN, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (res.status !== 0) throw new Error(`recall ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  const m = /RSS_KB=(\d+)/.exec(res.stderr);
  return { ms, rssKb: m ? Number(m[1]) : null };
}
