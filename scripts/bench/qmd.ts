import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

/** The peer: qmd's BM25 search on the same notes (`--qmd PATH`, $RECALL_BENCH_QMD, or qmd on PATH). */
export function qmdPeer(): string | null {
  const i = process.argv.indexOf('--qmd');
  const explicit = i >= 0 ? process.argv[i + 1] : process.env['RECALL_BENCH_QMD'];
  if (explicit) return fs.existsSync(explicit) ? explicit : null;
  const r = spawnSync('sh', ['-c', 'command -v qmd'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

export function benchQmd(
  qmd: string,
  kb: string,
  tmp: string,
  queries: string[],
  runs: number,
): { buildMs: number; searchMs: number[]; hits: number } {
  const dir = fs.mkdtempSync(path.join(tmp, 'qmd-'));
  const env = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache'), XDG_CONFIG_HOME: path.join(dir, 'config') };
  const t0 = performance.now();
  const add = spawnSync(qmd, ['collection', 'add', path.join(kb, 'documents'), '--name', 'learnings'], { env, encoding: 'utf8' });
  const buildMs = performance.now() - t0;
  if (add.status !== 0) throw new Error(`qmd collection add failed: ${add.stderr.trim().split('\n').pop()}`);
  const searchMs: number[] = [];
  let hits = 0;
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    const r = spawnSync(qmd, ['search', queries[i % queries.length]!, '-c', 'learnings', '--json'], { env, encoding: 'utf8' });
    searchMs.push(performance.now() - t);
    if (r.status === 0 && r.stdout.trim().startsWith('[') && r.stdout.trim() !== '[]') hits += 1;
  }
  return { buildMs, searchMs, hits };
}
