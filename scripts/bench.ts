/**
 * `npm run bench [-- --sizes 1000,10000,100000 --runs 20 --qmd PATH --qmd-max 10000 --ab DIR]`, or
 * `-- --generate DIR --size N` to only write a KB, or `-- --team [--team-size N]` for the team
 * store's load figures (scripts/bench-team.ts), or `-- --server` for the recall server's figures
 * only (scripts/bench-server.ts; `--ab DIR`: another built checkout measured as "before").
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
import { fileURLToPath } from 'node:url';
import { daemonRequest } from '../sources/models/daemon-client.js';
import { daemonSocketPath } from '../sources/models/daemon-protocol.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(repo, 'bin', 'recall');

/** Deterministic PRNG (mulberry32) so every run benches the same KB. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TECH = (
  'postgres redis kafka docker kubernetes nginx terraform webpack vite jest vitest pytest celery sqlalchemy alembic ' +
  'prisma graphql grpc protobuf oauth jwt pkce cors csrf s3 cloudfront lambda dynamodb sqs sns cron systemd launchd tmux ' +
  'zsh bash git rebase worktree submodule lockfile npm pnpm yarn typescript esm commonjs node deno bun react nextjs ' +
  'hydration suspense tailwind eslint prettier babel swc esbuild rollup sentry datadog grafana prometheus opentelemetry ' +
  'pgbouncer replica failover migration index vacuum deadlock timeout retry backoff idempotency webhook stripe queue ' +
  'worker pool connection cache eviction ttl memory leak heap profiler flamegraph latency throughput rate-limit ' +
  'feature-flag rollout canary rollback secret vault kms certificate tls dns proxy ingress helm argocd github-actions ' +
  'runner artifact matrix monorepo turborepo codegen schema openapi pydantic fastapi django flask rails sidekiq'
).split(' ');
const VERBS = 'breaks fails hangs leaks times out corrupts drops duplicates blocks slows retries crashes'.split(' ');
const FILLER = (
  'when the service restarts under load the client keeps stale state and the next request sees the old value ' +
  'we traced it to the default configuration which assumes a single process and no concurrency in tests ' +
  'the fix is to make the setting explicit pin the version and add a check in CI so the regression cannot return'
).split(' ');
const TYPES = ['bug-fix', 'pattern', 'decision', 'anti-pattern', 'correction'];
const PROJECTS = ['billing-svc', 'web-dashboard', 'infra', 'data-pipeline', 'mobile-app'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function generateKb(dir: string, n: number, sidecars = true): string[] {
  const r = rng(n);
  const docs = path.join(dir, 'documents');
  fs.mkdirSync(docs, { recursive: true });
  const queries: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const a = pick(r, TECH);
    const b = pick(r, TECH);
    const c = pick(r, TECH);
    const verb = pick(r, VERBS);
    const title = `${a} ${verb} with ${b} under ${c}`;
    const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 1000) * 86_400_000).toISOString().slice(0, 10);
    const words = Array.from({ length: 150 + Math.floor(r() * 150) }, () => (r() < 0.25 ? pick(r, TECH) : pick(r, FILLER)));
    const id = `lrn-gen-${i.toString(36)}`;
    const fm = [
      '---',
      `id: ${id}`,
      `title: "${title}"`,
      `created: ${day}`,
      `confidence: ${pick(r, ['high', 'medium', 'low'])}`,
      `learning_type: ${pick(r, TYPES)}`,
      `project_id: ${pick(r, PROJECTS)}`,
      `tags: [${a}, ${b}]`,
      `key_insight: "When ${a} ${verb}, check ${b} first."`,
      '---',
      `<!-- archived: ${day}T10:00:00 -->`,
      '',
      '## Problem',
      words.slice(0, 60).join(' '),
      '',
      '## Solution',
      words.slice(60).join(' '),
      '',
      `**How to apply:** When ${a} ${verb} with ${b}, check ${c}.`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(docs, `${id}.md`), fm);
    if (sidecars)
      fs.writeFileSync(
        path.join(docs, `${id}.entities.yaml`),
        // A general technology (a hub shared by many notes) and a specific problem entity (few notes).
        `document_id: ${id}\nentities:\n  - name: ${a}\n    type: technology\n  - name: ${a}-${verb.replace(/ /g, '-')}-${b}\n    type: error\n` +
          `    description: "${a} ${verb} with ${b}"\n` +
          `relationships:\n  - source: ${a}-${verb.replace(/ /g, '-')}-${b}\n    target: ${a}\n    type: caused_by\n    strength: ${1 + Math.floor(r() * 9)}\n`,
      );
    if (i % Math.max(1, Math.floor(n / 40)) === 0)
      queries.push(r() < 0.5 ? `${a} ${verb} ${b}` : `why does ${a} keep failing when ${b} is slow in ${c}`);
  }
  return queries.slice(0, 40);
}

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const res = spawnSync(BIN, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (res.status !== 0) throw new Error(`recall ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return ms;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

/**
 * Hook end to end (spawn of `node dist/hooks/<name>.js` to its envelope) on the largest KB, no models,
 * warm index; each prompt distinct so the cache does not answer.
 */
function benchHooks(tmp: string, kb: string, runs: number): string[] {
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

/**
 * Model figures with random-weight models of the real MiniLM-L6 shape, generated now (never
 * committed): daemon cold start, rerank of 20 candidates, embedding of 21 texts, daemon RSS, and
 * `bin/recall` end to end with the daemon warm, on the smallest KB (its notes embedded first).
 */
async function benchModels(tmp: string, kb: string, runs: number): Promise<string[]> {
  const py = '/usr/bin/python3';
  if (spawnSync(py, ['-c', 'import onnx, numpy'], { encoding: 'utf8' }).status !== 0) {
    return ['models: skipped (generating the benchmark models needs /usr/bin/python3 with python3-onnx: apt-get install python3-onnx)'];
  }
  const modelsDir = path.join(tmp, 'models');
  let t0 = performance.now();
  const gen = spawnSync(py, [path.join(repo, 'scripts', 'make-bench-model.py'), modelsDir], { encoding: 'utf8' });
  if (gen.status !== 0) return [`models: skipped (model generation failed: ${gen.stderr.trim().split('\n').pop()})`];
  const genMs = performance.now() - t0;
  const state = path.join(tmp, 'state-models');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: state,
    REFLECT_STATE_DIR: state,
    REFLECT_MODELS_DIR: modelsDir,
    REFLECT_CE_MODEL: 'bench/minilm-ce',
    REFLECT_EMBED_MODEL: 'bench/minilm-embed',
  };
  const settings = { modelsDir, ceModel: 'bench/minilm-ce', embedModel: 'bench/minilm-embed', ceMaxTokens: 96, embedMaxTokens: 256 };
  const socket = daemonSocketPath(state, settings);
  const client = { socket, spawnCommand: [process.execPath, path.join(repo, 'dist', 'bundle', 'daemon.mjs'), '--socket', socket], env };
  const docs = fs
    .readdirSync(path.join(kb, 'documents'))
    .filter((f) => f.endsWith('.md'))
    .slice(0, 20)
    .map((f) =>
      fs
        .readFileSync(path.join(kb, 'documents', f), 'utf8')
        .replace(/^---[\s\S]*?\n---\n/, '')
        .slice(0, 2000),
    );
  const query = 'why does postgres keep timing out when the connection pool is exhausted';
  const signal = (): AbortSignal => AbortSignal.timeout(120_000);
  try {
    t0 = performance.now();
    time(['index', '--kb', kb], env);
    const indexMs = performance.now() - t0;
    spawnSync(BIN, ['daemon', 'stop'], { env });
    t0 = performance.now();
    await daemonRequest({ op: 'rerank', query, texts: docs }, client, signal());
    const coldMs = performance.now() - t0;
    const rerank: number[] = [];
    const embed: number[] = [];
    for (let i = 0; i < Math.max(5, Math.floor(runs / 2)); i += 1) {
      t0 = performance.now();
      await daemonRequest({ op: 'rerank', query, texts: docs }, client, signal());
      rerank.push(performance.now() - t0);
      t0 = performance.now();
      await daemonRequest({ op: 'embed', texts: [query, ...docs] }, client, signal());
      embed.push(performance.now() - t0);
    }
    const e2e: number[] = [];
    for (let i = 0; i < runs; i += 1) e2e.push(time(['--kb', kb, `${query} ${i}`, '--no-cache', '--format', 'json'], env));
    const st = await daemonRequest({ op: 'status' }, client, signal());
    const rss = st.ok && st.status ? st.status.rssBytes / 1048576 : NaN;
    return [
      `models (random weights, MiniLM-L6 shape: 6 layers, hidden 384, generated in ${(genMs / 1000).toFixed(1)} s; cross-encoder input ${settings.ceMaxTokens} tokens/pair, embedder ${settings.embedMaxTokens}):`,
      `  recall index of ${path.basename(kb)} incl. embedding every note   ${(indexMs / 1000).toFixed(1)} s`,
      `  daemon cold start to first rerank answer (spawn + load + 20 pairs)   ${coldMs.toFixed(0)} ms`,
      `  rerank 20 candidates, warm daemon                 p50 ${pct(rerank, 50).toFixed(0)} ms, p95 ${pct(rerank, 95).toFixed(0)} ms`,
      `  embed 21 texts, warm daemon                       p50 ${pct(embed, 50).toFixed(0)} ms, p95 ${pct(embed, 95).toFixed(0)} ms`,
      `  bin/recall end to end, warm daemon (vector arm + rerank + MMR)   p50 ${pct(e2e, 50).toFixed(0)} ms, p95 ${pct(e2e, 95).toFixed(0)} ms`,
      `  daemon RSS after the run                          ${rss.toFixed(0)} MB`,
    ];
  } finally {
    spawnSync(BIN, ['daemon', 'stop'], { env });
  }
}

/** Wall time and peak RSS (KB) of one command, through GNU time when it is installed. */
function timeWithRss(args: string[], env: NodeJS.ProcessEnv): { ms: number; rssKb: number | null } {
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

/** The peer: qmd's BM25 search on the same notes (`--qmd PATH`, $RECALL_BENCH_QMD, or qmd on PATH). */
function qmdPeer(): string | null {
  const i = process.argv.indexOf('--qmd');
  const explicit = i >= 0 ? process.argv[i + 1] : process.env['RECALL_BENCH_QMD'];
  if (explicit) return fs.existsSync(explicit) ? explicit : null;
  const r = spawnSync('sh', ['-c', 'command -v qmd'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

function benchQmd(
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

function args(): { sizes: number[]; runs: number } {
  const a = process.argv.slice(2);
  const get = (k: string): string | undefined => {
    const i = a.indexOf(`--${k}`);
    return i >= 0 ? a[i + 1] : undefined;
  };
  return { sizes: (get('sizes') ?? '1000,10000,100000').split(',').map(Number), runs: Number(get('runs') ?? 20) };
}

/** The recall server's figures (scripts/bench-server.ts): CLI and hooks, thin client and in-process. */
async function serverBench(tmp: string, sizes: number[], runs: number): Promise<void> {
  const { benchServer, serverBenchArgs } = await import('./bench-server.js');
  const print = (...l: string[]): void => void process.stdout.write(`${l.join('\n')}\n`);
  await benchServer({ repo, tmp, sizes, runs, qmd: qmdPeer(), ...serverBenchArgs(process.argv), generateKb, print });
}

async function withTmp(tmp: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const gen = process.argv.indexOf('--generate');
  if (gen >= 0) {
    // `--generate DIR --size N`: only write a KB (for profiling by hand).
    const dir = path.resolve(process.argv[gen + 1] ?? 'bench-kb');
    const size = Number(process.argv[process.argv.indexOf('--size') + 1] ?? 1000);
    const qs = generateKb(dir, size);
    process.stdout.write(`generated ${size} notes in ${dir}\nsample queries:\n${qs.slice(0, 5).join('\n')}\n`);
    return;
  }
  const { sizes, runs } = args();
  if (!fs.existsSync(path.join(repo, 'dist', 'bundle', 'recall.mjs'))) throw new Error('not built: run npm run build');
  if (process.argv.includes('--team')) {
    // `--team [--team-size N]`: the team store's load figures instead of the KB figures.
    const { benchTeam } = await import('./bench-team.js');
    const sizeArg = process.argv.indexOf('--team-size');
    await benchTeam({
      generateKb,
      size: sizeArg >= 0 ? Number(process.argv[sizeArg + 1]) : 100_000,
      runs,
      print: (...l) => void process.stdout.write(`${l.join('\n')}\n`),
    });
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-bench-'));
  // `--server [--ab DIR]`: only the recall server figures (thin client, in-process, qmd, node -e 0).
  if (process.argv.includes('--server')) return withTmp(tmp, () => serverBench(tmp, sizes, runs));
  // Rows are printed as they are measured, so a long run shows progress and keeps what it finished.
  const rows = { push: (...lines: string[]): void => void process.stdout.write(`${lines.join('\n')}\n`) };
  try {
    const nodeStart = Array.from({ length: 10 }, () => {
      const t0 = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      return performance.now() - t0;
    });
    rows.push(`machine: ${os.cpus().length} cores, node ${process.version}; bare \`node -e 0\` p50 ${pct(nodeStart, 50).toFixed(0)} ms`);
    rows.push('');
    const qmd = qmdPeer();
    // qmd's own index build is slow at 100k notes (measured: over 10 minutes here); opt in with --qmd-max.
    const qmdMaxArg = process.argv.indexOf('--qmd-max');
    const qmdMax = qmdMaxArg >= 0 ? Number(process.argv[qmdMaxArg + 1]) : 10000;
    const peerRows: string[] = [];
    rows.push('KB                          cold index build (peak RSS)   warm recall p50 / p95   cache hit p50 / p95');
    const variants = [...sizes.map((n) => ({ n, sidecars: true })), { n: Math.min(Math.max(...sizes), 10000), sidecars: false }];
    for (const { n, sidecars } of variants) {
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
      const warm: number[] = [];
      const hits: number[] = [];
      let answered = 0;
      for (let i = 0; i < runs; i += 1) {
        const q = queries[i % queries.length]!;
        const t0 = performance.now();
        const r = spawnSync(BIN, ['--kb', kb, q, '--no-cache', '--format', 'json'], { env, encoding: 'utf8' });
        warm.push(performance.now() - t0);
        if (r.status !== 0) throw new Error(`recall exited ${r.status}: ${r.stderr}`);
        if (((JSON.parse(r.stdout) as { count?: number }).count ?? 0) > 0) answered += 1;
      }
      for (let i = 0; i < runs; i += 1) {
        const q = queries[i % queries.length]!;
        time(['--kb', kb, q], env); // prime
        hits.push(time(['--kb', kb, q], env));
      }
      rows.push(
        `${`${n} notes${sidecars ? ' + sidecars' : ', no sidecars'}`.padEnd(26)}  ${(pct(builds, 50) / 1000).toFixed(2).padStart(8)} s (${rss.length ? `${(Math.max(...rss) / 1024).toFixed(0)} MB` : 'n/a'})   ` +
          `${pct(warm, 50).toFixed(0).padStart(5)} / ${pct(warm, 95).toFixed(0).padStart(4)} ms        ` +
          `${pct(hits, 50).toFixed(0).padStart(5)} / ${pct(hits, 95).toFixed(0).padStart(4)} ms`,
      );
      if (qmd && sidecars && n <= qmdMax) {
        const peer = benchQmd(qmd, kb, tmp, queries, runs);
        const ratio = pct(peer.searchMs, 50) / pct(warm, 50);
        peerRows.push(
          `${`${n} notes`.padEnd(12)} qmd collection add ${(peer.buildMs / 1000).toFixed(2).padStart(7)} s (recall ${(pct(builds, 50) / 1000).toFixed(2)} s, ${(peer.buildMs / pct(builds, 50)).toFixed(1)}x)   ` +
            `qmd search p50 ${pct(peer.searchMs, 50).toFixed(0).padStart(5)} ms vs recall ${pct(warm, 50).toFixed(0)} ms (${ratio.toFixed(2)}x); ` +
            `qmd answered ${peer.hits}/${runs} of the queries, recall ${answered}/${runs}`,
        );
      }
    }
    if (peerRows.length) rows.push('', `peer: qmd BM25 on the same notes and queries (${qmd}):`, ...peerRows);
    else rows.push('', 'peer: qmd not found (pass --qmd PATH or set RECALL_BENCH_QMD to compare with qmd search)');
    rows.push('');
    rows.push(`(${runs} recalls per figure, process start included; KB generated in ${tmp}, removed after)`);
    rows.push('');
    rows.push(...benchHooks(tmp, path.join(tmp, `kb-${Math.max(...sizes)}-s`), runs));
    rows.push('');
    // Model figures use a 1k-note KB: embedding every note of a 10k KB with a real-size model takes minutes.
    const modelKb = path.join(tmp, 'kb-models-1000');
    generateKb(modelKb, 1000);
    rows.push(...(await benchModels(tmp, modelKb, runs)));
    rows.push('');
    await serverBench(tmp, sizes, runs);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
