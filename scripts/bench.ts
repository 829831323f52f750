/**
 * `npm run bench [-- --sizes 1000,10000,100000 --runs 20 --qmd PATH --qmd-max 10000 --ab DIR]`, or
 * `-- --generate DIR --size N` to only write a KB, or `-- --team [--team-size N]` for the team
 * store's load figures (scripts/bench-team.ts), or `-- --server` for the recall server's figures
 * only (scripts/bench/server.ts; `--ab DIR`: another built checkout measured as "before").
 *
 * Wall time of the real `bin/recall` process (start-up included) on generated KBs: cold index build,
 * warm recall (index up to date, cache off), and cache hit. KBs are generated into a temp dir with
 * realistic note length and vocabulary, entity sidecars and dates, and removed afterwards.
 * Prints a table; a script, not a test, so nothing here can flake a build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateKb, benchHooks, BIN, pct, repo, time, timeWithRss, benchModels, benchQmd, qmdPeer } from './bench/index.js';

export { generateKb };

function args(): { sizes: number[]; runs: number } {
  const a = process.argv.slice(2);
  const get = (k: string): string | undefined => {
    const i = a.indexOf(`--${k}`);
    return i >= 0 ? a[i + 1] : undefined;
  };
  return { sizes: (get('sizes') ?? '1000,10000,100000').split(',').map(Number), runs: Number(get('runs') ?? 20) };
}

/** Bare Node start-up, the floor every figure sits on. */
function nodeFloorMs(): number {
  const ms = Array.from({ length: 10 }, () => {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    return performance.now() - t0;
  });
  return pct(ms, 50);
}

/** Warm recalls (cache off) and cache hits on one KB; how many warm recalls answered something. */
function recallTimes(
  kb: string,
  queries: string[],
  env: NodeJS.ProcessEnv,
  runs: number,
): { warm: number[]; hits: number[]; answered: number } {
  const warm: number[] = [];
  const hits: number[] = [];
  let answered = 0;
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    const r = spawnSync(BIN, ['--kb', kb, queries[i % queries.length]!, '--no-cache', '--format', 'json'], { env, encoding: 'utf8' });
    warm.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`recall exited ${r.status}: ${r.stderr}`);
    if (((JSON.parse(r.stdout) as { count?: number }).count ?? 0) > 0) answered += 1;
  }
  for (let i = 0; i < runs; i += 1) {
    const q = queries[i % queries.length]!;
    time(['--kb', kb, q], env); // prime
    hits.push(time(['--kb', kb, q], env));
  }
  return { warm, hits, answered };
}

interface KbRun {
  n: number;
  sidecars: boolean;
  tmp: string;
  runs: number;
  qmd: string | null;
  qmdMax: number;
}

/** One generated KB: cold builds (fresh state dirs), warm recalls, cache hits; the qmd row when asked. */
function benchKb({ n, sidecars, tmp, runs, qmd, qmdMax }: KbRun): { row: string; peer: string | null } {
  const kb = path.join(tmp, `kb-${n}-${sidecars ? 's' : 'n'}`);
  const queries = generateKb(kb, n, sidecars);
  const builds: number[] = [];
  const rss: number[] = [];
  const buildRuns = n >= 10000 ? (n >= 100000 ? 1 : 2) : 3;
  let env: NodeJS.ProcessEnv = {};
  for (let i = 0; i < buildRuns; i += 1) {
    const state = path.join(tmp, `state-${n}-${sidecars ? 's' : 'n'}-${i}`);
    env = { ...process.env, HOME: state, REFLECT_STATE_DIR: state };
    const b = timeWithRss(['index', '--kb', kb], env);
    builds.push(b.ms);
    if (b.rssKb !== null) rss.push(b.rssKb);
  }
  const { warm, hits, answered } = recallTimes(kb, queries, env, runs);
  const row =
    `${`${n} notes${sidecars ? ' + sidecars' : ', no sidecars'}`.padEnd(26)}  ${(pct(builds, 50) / 1000).toFixed(2).padStart(8)} s (${rss.length ? `${(Math.max(...rss) / 1024).toFixed(0)} MB` : 'n/a'})   ` +
    `${pct(warm, 50).toFixed(0).padStart(5)} / ${pct(warm, 95).toFixed(0).padStart(4)} ms        ` +
    `${pct(hits, 50).toFixed(0).padStart(5)} / ${pct(hits, 95).toFixed(0).padStart(4)} ms`;
  if (!qmd || !sidecars || n > qmdMax) return { row, peer: null };
  const peer = benchQmd(qmd, kb, tmp, queries, runs);
  const ratio = pct(peer.searchMs, 50) / pct(warm, 50);
  return {
    row,
    peer:
      `${`${n} notes`.padEnd(12)} qmd collection add ${(peer.buildMs / 1000).toFixed(2).padStart(7)} s (recall ${(pct(builds, 50) / 1000).toFixed(2)} s, ${(peer.buildMs / pct(builds, 50)).toFixed(1)}x)   ` +
      `qmd search p50 ${pct(peer.searchMs, 50).toFixed(0).padStart(5)} ms vs recall ${pct(warm, 50).toFixed(0)} ms (${ratio.toFixed(2)}x); ` +
      `qmd answered ${peer.hits}/${runs} of the queries, recall ${answered}/${runs}`,
  };
}

/** `--generate DIR --size N`: only write a KB (for profiling by hand). */
function generateOnly(at: number): void {
  const dir = path.resolve(process.argv[at + 1] ?? 'bench-kb');
  const size = Number(process.argv[process.argv.indexOf('--size') + 1] ?? 1000);
  const qs = generateKb(dir, size);
  process.stdout.write(`generated ${size} notes in ${dir}\nsample queries:\n${qs.slice(0, 5).join('\n')}\n`);
}

/** `--team [--team-size N]`: the team store's load figures instead of the KB figures. */
async function teamOnly(runs: number): Promise<void> {
  const { benchTeam } = await import('./bench-team.js');
  const sizeArg = process.argv.indexOf('--team-size');
  await benchTeam({
    generateKb,
    size: sizeArg >= 0 ? Number(process.argv[sizeArg + 1]) : 100_000,
    runs,
    print: (...l) => void process.stdout.write(`${l.join('\n')}\n`),
  });
}

/** The KB table (every size, and one KB without sidecars), the qmd rows, the hooks and the models. */
async function benchAll(sizes: number[], runs: number, tmp: string): Promise<void> {
  // Rows are printed as they are measured, so a long run shows progress and keeps what it finished.
  const push = (...lines: string[]): void => void process.stdout.write(`${lines.join('\n')}\n`);
  push(`machine: ${os.cpus().length} cores, node ${process.version}; bare \`node -e 0\` p50 ${nodeFloorMs().toFixed(0)} ms`, '');
  const qmd = qmdPeer();
  // qmd's own index build is slow at 100k notes (measured: over 10 minutes here); opt in with --qmd-max.
  const qmdMaxArg = process.argv.indexOf('--qmd-max');
  const qmdMax = qmdMaxArg >= 0 ? Number(process.argv[qmdMaxArg + 1]) : 10000;
  const peerRows: string[] = [];
  push('KB                          cold index build (peak RSS)   warm recall p50 / p95   cache hit p50 / p95');
  const variants = [...sizes.map((n) => ({ n, sidecars: true })), { n: Math.min(Math.max(...sizes), 10000), sidecars: false }];
  for (const { n, sidecars } of variants) {
    const { row, peer } = benchKb({ n, sidecars, tmp, runs, qmd, qmdMax });
    push(row);
    if (peer) peerRows.push(peer);
  }
  if (peerRows.length) push('', `peer: qmd BM25 on the same notes and queries (${qmd}):`, ...peerRows);
  else push('', 'peer: qmd not found (pass --qmd PATH or set RECALL_BENCH_QMD to compare with qmd search)');
  push('', `(${runs} recalls per figure, process start included; KB generated in ${tmp}, removed after)`, '');
  push(...benchHooks(tmp, path.join(tmp, `kb-${Math.max(...sizes)}-s`), runs), '');
  // Model figures use a 1k-note KB: embedding every note of a 10k KB with a real-size model takes minutes.
  const modelKb = path.join(tmp, 'kb-models-1000');
  generateKb(modelKb, 1000);
  push(...(await benchModels(tmp, modelKb, runs)));
}

/** The recall server's figures (scripts/bench/server.ts): CLI and hooks, thin client and in-process. */
async function serverBench(tmp: string, sizes: number[], runs: number): Promise<void> {
  const { benchServer, serverBenchArgs } = await import('./bench/server.js');
  const print = (...l: string[]): void => void process.stdout.write(`${l.join('\n')}\n`);
  await benchServer({ repo, tmp, sizes, runs, qmd: qmdPeer(), ...serverBenchArgs(process.argv), generateKb, print });
}

async function main(): Promise<void> {
  const gen = process.argv.indexOf('--generate');
  if (gen >= 0) return generateOnly(gen);
  const { sizes, runs } = args();
  if (!fs.existsSync(path.join(repo, 'dist', 'bundle', 'recall.mjs'))) throw new Error('not built: run npm run build');
  if (process.argv.includes('--team')) return teamOnly(runs);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-'));
  try {
    // `--server [--ab DIR]`: only the recall server figures (thin client, in-process, qmd, node -e 0).
    if (process.argv.includes('--server')) return await serverBench(tmp, sizes, runs);
    // The table above the server's figures measures each recall and hook in its own process, as
    // every call ran before the server; the server's section measures both ways.
    process.env['RECALL_NO_SERVER'] = '1';
    await benchAll(sizes, runs, tmp);
    process.stdout.write('\n');
    await serverBench(tmp, sizes, runs);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
