/**
 * `npm run eval [-- --kb DIR --queries FILE --min-overlap X --limit K --json]`
 *
 * Scores retrieval on a labelled query set in the golden format (YAML with `queries: [{id, class,
 * query, relevant: [names], superseded?: [names]}]`, or JSON lines of the same objects): recall@K,
 * MRR, nDCG@K, OOD noise, superseded-above-
 * current violations, per class, plus which arms found each top-K hit. Runs the real pipeline
 * in-process on a throw-away state dir (no cache, no logs), so it measures ranking, not I/O.
 *
 * Definitions (golden README): recall@K = share of a query's relevant notes in the top K; MRR =
 * 1/rank of the first relevant note in the top K (0 if none); OOD noise = share of ood queries that
 * return anything; a violation = a `superseded` note ranked above (or instead of) a relevant one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { runRecall, type RecallCommand } from '../pipeline/run.js';

interface GoldenQuery {
  id: string;
  class: string;
  query: string;
  relevant: string[];
  superseded?: string[];
}

interface QueryResult {
  id: string;
  class: string;
  query: string;
  ids: string[];
  arms: string[][];
  recall: number | null;
  mrr: number | null;
  ndcg: number | null;
  noise: boolean;
  violation: boolean;
  ms: number;
}

function parseArgs(argv: string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out[key] = true;
    else {
      out[key] = next;
      i += 1;
    }
  }
  return out;
}

function loadQueries(file: string): GoldenQuery[] {
  const text = fs.readFileSync(file, 'utf8');
  const data = file.endsWith('.jsonl')
    ? { queries: text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown) }
    : (yaml.load(text) as { queries?: unknown });
  if (!data || !Array.isArray(data.queries)) throw new Error(`${file}: no "queries" list`);
  return data.queries.map((q, i) => {
    const o = q as Record<string, unknown>;
    if (typeof o['query'] !== 'string') throw new Error(`${file}: query #${i + 1} has no text`);
    return {
      id: String(o['id'] ?? `q${i + 1}`),
      class: String(o['class'] ?? 'default'),
      query: o['query'],
      relevant: Array.isArray(o['relevant']) ? o['relevant'].map(String) : [],
      ...(Array.isArray(o['superseded']) ? { superseded: o['superseded'].map(String) } : {}),
    };
  });
}

/** nDCG@k with binary relevance: DCG of the ranking over the DCG of an ideal one. */
function ndcgAt(ids: readonly string[], rel: ReadonlySet<string>, k: number): number {
  const gain = (i: number): number => 1 / Math.log2(i + 2);
  const dcg = ids.slice(0, k).reduce((sum, id, i) => sum + (rel.has(id) ? gain(i) : 0), 0);
  const ideal = Array.from({ length: Math.min(rel.size, k) }, (_, i) => gain(i)).reduce((a, b) => a + b, 0);
  return ideal > 0 ? dcg / ideal : 0;
}

function mean(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
}

const fmt = (x: number | null): string => (x === null ? '   -  ' : x.toFixed(3).padStart(6));

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const kb = path.resolve(String(args['kb'] ?? path.join(repo, '..', 'shared', 'eval', 'golden')));
  const queriesFile = path.resolve(String(args['queries'] ?? path.join(kb, 'golden_queries.yaml')));
  const k = Number(args['limit'] ?? 5);
  const minOverlap = args['min-overlap'] !== undefined ? Number(args['min-overlap']) : 0;
  const queries = loadQueries(queriesFile);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-eval-'));
  const env = { ...process.env, REFLECT_STATE_DIR: stateDir, RECALL_GAP_LOG: '0', RECALL_FOLLOWUP: '0' };
  const results: QueryResult[] = [];
  try {
    for (const q of queries) {
      const cmd: RecallCommand = {
        query: q.query, limit: k, mode: 'naive', confidence: 'ANY', format: 'json', field: null, tags: [], domainHint: '',
        minOverlap, maxTokens: 0, cache: false, mmr: true, global: false, allBranches: false, kb, sessionId: null,
        gapLog: false, followup: false, verbose: false,
      };
      const t0 = performance.now();
      const r = await runRecall(cmd, { env, cwd: process.cwd(), warn: () => undefined });
      const ms = performance.now() - t0;
      const top = (r.outcome?.results ?? []).slice(0, k);
      const ids = top.map((c) => c.note.key);
      const arms = top.map((c) => Object.keys(c.ranks));
      const rel = new Set(q.relevant);
      const isOod = rel.size === 0;
      const firstRel = ids.findIndex((id) => rel.has(id));
      const sup = new Set(q.superseded ?? []);
      const firstSup = ids.findIndex((id) => sup.has(id));
      results.push({
        id: q.id,
        class: q.class,
        query: q.query,
        ids,
        arms,
        recall: isOod ? null : ids.filter((id) => rel.has(id)).length / rel.size,
        mrr: isOod ? null : firstRel >= 0 ? 1 / (firstRel + 1) : 0,
        ndcg: isOod ? null : ndcgAt(ids, rel, k),
        noise: isOod && ids.length > 0,
        violation: firstSup >= 0 && (firstRel < 0 || firstSup < firstRel),
        ms,
      });
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }

  const classes = [...new Set(results.map((r) => r.class))];
  const rows = [...classes.map((c) => ({ name: c, rs: results.filter((r) => r.class === c) })), { name: 'overall', rs: results }];
  const summary = rows.map(({ name, rs }) => {
    const ood = rs.filter((r) => r.recall === null);
    return {
      class: name,
      queries: rs.length,
      recall_at_k: mean(rs.map((r) => r.recall)),
      mrr: mean(rs.map((r) => r.mrr)),
      ndcg_at_k: mean(rs.map((r) => r.ndcg)),
      ood_noise: ood.length ? ood.filter((r) => r.noise).length / ood.length : null,
      violations: rs.filter((r) => r.violation).length,
    };
  });
  const attribution: Record<string, number> = {};
  for (const r of results) for (const a of r.arms) attribution[a.sort().join('+') || 'none'] = (attribution[a.sort().join('+') || 'none'] ?? 0) + 1;
  const latency = { p50_ms: percentile(results.map((r) => r.ms), 50), p95_ms: percentile(results.map((r) => r.ms), 95) };

  if (args['json']) {
    process.stdout.write(`${JSON.stringify({ kb, queries: queriesFile, k, min_overlap: minOverlap, summary, attribution, latency, results }, null, 2)}\n`);
    return;
  }
  const out: string[] = [];
  out.push(`recall eval: ${queries.length} queries from ${queriesFile}`);
  out.push(`KB ${kb}, top ${k}, min-overlap ${minOverlap}, no models`);
  out.push('');
  out.push(`class       queries  recall@${k}     MRR  nDCG@${k}  OOD noise  superseded>current`);
  for (const s of summary) {
    out.push(`${s.class.padEnd(10)}  ${String(s.queries).padStart(7)}  ${fmt(s.recall_at_k)}  ${fmt(s.mrr)}  ${fmt(s.ndcg_at_k)}     ${fmt(s.ood_noise)}  ${String(s.violations).padStart(18)}`);
  }
  out.push('');
  out.push(`top-${k} hits by arm: ${Object.entries(attribution).map(([a, n]) => `${a} ${n}`).join(', ') || 'none'}`);
  out.push(`latency per query (in-process, warm index): p50 ${latency.p50_ms.toFixed(1)} ms, p95 ${latency.p95_ms.toFixed(1)} ms`);
  out.push('');
  for (const r of results) {
    const flag = r.recall === null ? (r.noise ? 'NOISE' : 'ok') : r.recall < 1 ? 'MISS' : r.violation ? 'SUPERSEDED-FIRST' : 'ok';
    out.push(`${r.id.padEnd(9)} ${flag.padEnd(16)} ${r.ids.join(', ') || '(none)'}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
