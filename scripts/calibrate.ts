/**
 * `npm run calibrate [-- --dump FILE] [--write]`
 *
 * Fits the lexical relevance model (operators/math/relevance.ts) on the labelled sets
 * (scripts/labelled-sets.ts) and prints its coefficients with query-level figures: OOD noise (an
 * off-topic query that would return anything), false abstention (an on-topic query that would
 * return nothing) and recall@K of what clears the floor, on all sets and leaving each family out.
 *
 * The everyday prompts are scored but left out of the fit (see main).
 *
 * Examples: every candidate the real pipeline retrieves (the 20 best of the fusion), with the
 * features the pipeline computed (read from its trace). A candidate labelled relevant is a positive;
 * every other candidate is a negative (on LoCoMo, whose labels mark only the evidence turns, an
 * unlabelled candidate of an on-topic question may still be about it, so those weigh a quarter).
 * Each family weighs the same, and within a family positives and negatives weigh the same.
 * The fit is L2-regularised logistic regression by Newton's method (ml-matrix solves the steps).
 *
 * `--dump FILE` writes the examples as JSON lines; `--write` replaces RELEVANCE_MODEL in
 * operators/math/relevance.ts with the fitted coefficients.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Matrix, solve } from 'ml-matrix';
import { DEFAULT_COMMAND, openSession, type RecallSession } from '../pipeline/run.js';
import type { TraceEvent } from '../operators/trace-stage.js';
import { FEATURE_NAMES, lexicalRelevance, type RelevanceFeatures, type RelevanceModel } from '../operators/math/relevance.js';
import { GENERIC_ONLY_MAX } from '../operators/estimate-relevance.js';
import { labelledSets, type LabelledSet } from './labelled-sets.js';

interface Example {
  family: string;
  set: string;
  queryId: string;
  inDomain: boolean;
  /** Relevant notes of the query (for recall). */
  nRelevant: number;
  key: string;
  label: 0 | 1;
  features: RelevanceFeatures;
  /** Position in the pipeline's order (1 = first). */
  rank: number;
  /** Rank of the note in each arm that found it. */
  armRanks: Record<string, number>;
  /** The ranking component (evidence over the window's best) the boosts multiply. */
  base: number;
  /** For `--dump`: the query's weighed terms and the words this note lacks. */
  terms: { word: string; info: number; df: number; proper: boolean }[];
  missing: string[];
}

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Unlabelled candidates of an on-topic LoCoMo question count this much as negatives (see above). */
const SPARSE_LABEL_WEIGHT = 0.25;
/** L2 penalty on the weights (not the bias). */
const L2 = 1e-3;

/** One query's traced relevance features, ranks by arm and base scores. */
async function traceQuery(
  session: RecallSession,
  query: string,
): Promise<{
  rel: Extract<TraceEvent, { stage: 'relevance' }> | null;
  order: string[];
  armRanks: Map<string, Record<string, number>>;
  bases: Map<string, number>;
}> {
  let rel: Extract<TraceEvent, { stage: 'relevance' }> | null = null;
  let order: string[] = [];
  const armRanks = new Map<string, Record<string, number>>();
  const bases = new Map<string, number>();
  const command = {
    ...DEFAULT_COMMAND,
    query,
    limit: 10,
    format: 'json' as const,
    cache: false,
    mmr: false,
    floor: 0,
    gapLog: false,
    followup: false,
  };
  await session.run(command, {
    noLog: true,
    trace: (ev) => {
      if (ev.stage === 'relevance') rel = ev;
      if (ev.stage === 'score') {
        order = ev.candidates.map((c) => c.id);
        for (const c of ev.candidates) bases.set(c.id, c.base);
      }
      if (ev.stage === 'arm') for (const h of ev.hits) armRanks.set(h.id, { ...(armRanks.get(h.id) ?? {}), [ev.arm]: h.rank });
    },
  });
  return { rel, order, armRanks, bases };
}

/** The labelled examples of one query: every candidate with features, labelled by the query's relevant set. */
async function queryExamples(session: RecallSession, set: LabelledSet, q: LabelledSet['queries'][number]): Promise<Example[]> {
  const { rel, order, armRanks, bases } = await traceQuery(session, q.query);
  const relevant = new Set(q.relevant);
  return (rel?.candidates ?? []).flatMap((c) =>
    c.features
      ? [
          {
            family: set.family,
            set: set.name,
            queryId: q.id,
            inDomain: relevant.size > 0,
            nRelevant: relevant.size,
            key: c.id,
            label: relevant.has(c.id) ? 1 : 0,
            features: c.features,
            rank: order.indexOf(c.id) + 1 || order.length + 1,
            armRanks: armRanks.get(c.id) ?? {},
            base: bases.get(c.id) ?? 0,
            terms: rel?.terms ?? [],
            missing: c.missing,
          },
        ]
      : [],
  );
}

export async function collect(sets: readonly LabelledSet[], warn: (l: string) => void): Promise<Example[]> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-calibrate-'));
  const env = { ...process.env, REFLECT_STATE_DIR: stateDir, RECALL_GAP_LOG: '0', RECALL_FOLLOWUP: '0' };
  const out: Example[] = [];
  try {
    for (const set of sets) {
      const session = await openSession({ kb: set.kb, global: false, allBranches: false, verbose: false }, { env, cwd: repo, warn });
      try {
        for (const q of set.queries) out.push(...(await queryExamples(session, set, q)));
      } finally {
        session.close();
      }
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  return out;
}

function weights(examples: readonly Example[]): number[] {
  const w = examples.map((e) => (e.label === 0 && e.inDomain && e.family === 'locomo' ? SPARSE_LABEL_WEIGHT : 1));
  const totals = new Map<string, number>();
  examples.forEach((e, i) => totals.set(`${e.family}:${e.label}`, (totals.get(`${e.family}:${e.label}`) ?? 0) + w[i]!));
  return examples.map((e, i) => w[i]! / totals.get(`${e.family}:${e.label}`)!);
}

/** L2-regularised weighted logistic regression by Newton's method. */
export function fitLogistic(examples: readonly Example[]): RelevanceModel {
  const d = FEATURE_NAMES.length + 1;
  const X = examples.map((e) => [...FEATURE_NAMES.map((f) => e.features[f]), 1]);
  const y = examples.map((e) => e.label);
  const w = weights(examples);
  let beta = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 100; iter += 1) {
    const grad = new Array<number>(d).fill(0);
    const hess = Matrix.zeros(d, d);
    X.forEach((x, i) => {
      const z = x.reduce((s, v, j) => s + v * beta[j]!, 0);
      const p = 1 / (1 + Math.exp(-z));
      const wi = w[i]!;
      for (let a = 0; a < d; a += 1) {
        grad[a]! += wi * (p - y[i]!) * x[a]!;
        for (let b = 0; b < d; b += 1) hess.set(a, b, hess.get(a, b) + wi * p * (1 - p) * x[a]! * x[b]!);
      }
    });
    for (let a = 0; a < d - 1; a += 1) {
      grad[a]! += L2 * beta[a]!;
      hess.set(a, a, hess.get(a, a) + L2);
    }
    const step = solve(hess, Matrix.columnVector(grad)).to1DArray();
    beta = beta.map((b, j) => b - step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  const round = (x: number): number => Math.round(x * 100) / 100;
  const weightsOut = Object.fromEntries(FEATURE_NAMES.map((f, j) => [f, round(beta[j]!)])) as RelevanceModel['weights'];
  return { bias: round(beta[d - 1]!), weights: weightsOut };
}

interface Figures {
  family: string;
  noise: number | null;
  falseAbstention: number | null;
  recallAtK: number | null;
  precision: number | null;
}

/** Query-level figures at a floor: a query "returns" what clears it, in the pipeline's order. */
export function figures(examples: readonly Example[], model: RelevanceModel, floor: number, kOf: (family: string) => number): Figures[] {
  const byQuery = new Map<string, Example[]>();
  for (const e of examples) {
    const k = `${e.set}\u0000${e.queryId}`;
    byQuery.set(k, [...(byQuery.get(k) ?? []), e]);
  }
  const families = [...new Set(examples.map((e) => e.family))];
  return families.map((family) => {
    let ood = 0;
    let noisy = 0;
    let inDomain = 0;
    let abstained = 0;
    let recallSum = 0;
    let precSum = 0;
    let precN = 0;
    for (const list of byQuery.values()) {
      if (list[0]!.family !== family) continue;
      // The same gate as the pipeline: no specific query word in the note → at most GENERIC_ONLY_MAX.
      const p = (e: Example): number =>
        e.features.specificCovered ? lexicalRelevance(e.features, model) : Math.min(lexicalRelevance(e.features, model), GENERIC_ONLY_MAX);
      const kept = list
        .filter((e) => p(e) >= floor)
        .sort((a, b) => a.rank - b.rank)
        .slice(0, kOf(family));
      if (!list[0]!.inDomain) {
        ood += 1;
        if (kept.length) noisy += 1;
        continue;
      }
      inDomain += 1;
      if (!kept.length) abstained += 1;
      recallSum += kept.filter((e) => e.label === 1).length / list[0]!.nRelevant;
      if (kept.length) {
        precSum += kept.filter((e) => e.label === 1).length / kept.length;
        precN += 1;
      }
    }
    return {
      family,
      noise: ood ? noisy / ood : null,
      falseAbstention: inDomain ? abstained / inDomain : null,
      recallAtK: inDomain ? recallSum / inDomain : null,
      precision: precN ? precSum / precN : null,
    };
  });
}

const K: Record<string, number> = { golden: 5, abstain: 3, example: 3, locomo: 10, cross: 10 };
const kOf = (family: string): number => K[family] ?? 5;
const f3 = (x: number | null): string => (x === null ? '    -' : x.toFixed(3).padStart(5));

function table(rows: Figures[]): string[] {
  return rows.map(
    (r) =>
      `  ${r.family.padEnd(8)} noise ${f3(r.noise)}  false-abstention ${f3(r.falseAbstention)}  recall@K ${f3(r.recallAtK)}  precision ${f3(r.precision)}`,
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const warn = (l: string): void => void process.stderr.write(`calibrate: ${l}\n`);
  const sets = labelledSets({ repo, warn });
  process.stderr.write(`calibrate: ${sets.length} sets, ${sets.reduce((n, s) => n + s.queries.length, 0)} queries\n`);
  const examples = await collect(sets, warn);
  const dump = args.indexOf('--dump');
  if (dump >= 0 && args[dump + 1]) fs.writeFileSync(args[dump + 1]!, examples.map((e) => JSON.stringify(e)).join('\n') + '\n');
  // Everyday prompts are reported but not fitted: they share only everyday words with any note, and
  // the gate in the relevance stage (no specific query word → at most GENERIC_ONLY_MAX) decides them;
  // fitting them too would only make the model stricter for the prompts the gate lets through.
  const fitted = (list: readonly Example[]): Example[] => list.filter((e) => e.family !== 'everyday');
  const model = fitLogistic(fitted(examples));
  const out: string[] = [];
  out.push(`examples: ${examples.length} (${examples.filter((e) => e.label === 1).length} relevant)`);
  out.push(`fitted: bias ${model.bias}, ${FEATURE_NAMES.map((f) => `${f} ${model.weights[f]}`).join(', ')}`);
  for (const floor of [0.4, 0.5, 0.6]) {
    out.push(`all sets, floor ${floor}:`);
    out.push(...table(figures(examples, model, floor, kOf)));
  }
  out.push('each family left out of the fit (floor 0.5):');
  for (const family of [...new Set(examples.map((e) => e.family))]) {
    // LoCoMo questions and their cross-conversation use come from the same conversations: hold both out.
    const held = family === 'locomo' || family === 'cross' ? ['locomo', 'cross'] : [family];
    const m = fitLogistic(fitted(examples.filter((e) => !held.includes(e.family))));
    const own = examples.filter((e) => e.family === family);
    out.push(...table(figures(own, m, 0.5, kOf)));
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.includes('--write')) {
    const file = path.join(repo, 'operators', 'math', 'relevance.ts');
    const text = fs.readFileSync(file, 'utf8');
    const block = `export const RELEVANCE_MODEL: RelevanceModel = {\n  bias: ${model.bias},\n  weights: { ${FEATURE_NAMES.map((f) => `${f}: ${model.weights[f]}`).join(', ')} },\n};`;
    const next = text.replace(/export const RELEVANCE_MODEL: RelevanceModel = \{[\s\S]*?\n\};/, block);
    if (next === text) throw new Error(`${file}: RELEVANCE_MODEL block not found`);
    fs.writeFileSync(file, next);
    process.stdout.write(`wrote ${path.relative(repo, file)}; rebuild, then run npm run eval\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(`calibrate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
