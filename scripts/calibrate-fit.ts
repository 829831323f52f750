/**
 * The fit of `npm run calibrate` (scripts/calibrate.ts): the labelled examples it reads, the
 * per-query fit of the relevance model, where its bias falls, and the query-level figures at a floor.
 */
import { FEATURE_NAMES, lexicalRelevance, type RelevanceFeatures, type RelevanceModel } from '../operators/math/index.js';
import { GENERIC_ONLY_MAX } from '../operators/estimate-relevance.js';

export interface Example {
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

/** Candidates ranked below this are left out of the fit: the hook fetches 9, the CLI shows 10. */
const FIT_RANKS = 10;
/** L2 penalty on the weights (not the bias). */
const MIL_L2 = 1e-2;

/** The candidates of one query that the fit reads, as feature rows. */
interface QueryGroup {
  family: string;
  onTopic: boolean;
  rows: number[][];
}

/**
 * One group per query: for an on-topic query its relevant notes, for an off-topic one every
 * candidate. Notes the specific-word gate holds under every floor are left out (the gate decides
 * them, not the model); an on-topic query left with no relevant note is skipped.
 */
function queryGroups(examples: readonly Example[]): QueryGroup[] {
  const byQuery = new Map<string, Example[]>();
  for (const e of examples) {
    if (e.rank > FIT_RANKS) continue;
    const k = `${e.set}\u0000${e.queryId}`;
    byQuery.set(k, [...(byQuery.get(k) ?? []), e]);
  }
  const out: QueryGroup[] = [];
  for (const list of byQuery.values()) {
    const onTopic = list[0]!.inDomain;
    const rows = list
      .filter((e) => (onTopic ? e.label === 1 : true) && e.features.specificCovered)
      .map((e) => FEATURE_NAMES.map((f) => e.features[f]));
    if (rows.length) out.push({ family: list[0]!.family, onTopic, rows });
  }
  return out;
}

/**
 * Fits the model at the level the floors act on, the query (multiple-instance logistic regression):
 * a query "returns something" with probability sigmoid(log-sum-exp of its candidates' logits), a
 * smooth maximum. An on-topic query should return one of its relevant notes, an off-topic one
 * nothing. Each family weighs the same, and within a family its on-topic and off-topic queries
 * weigh the same. Gradient descent (Adam) on the L2-regularised log loss.
 */
export function fitLogistic(examples: readonly Example[]): RelevanceModel {
  const groups = queryGroups(examples);
  const d = FEATURE_NAMES.length + 1;
  const count = new Map<string, number>();
  for (const g of groups) count.set(`${g.family}:${g.onTopic}`, (count.get(`${g.family}:${g.onTopic}`) ?? 0) + 1);
  const sides = (family: string): number => (count.has(`${family}:true`) ? 1 : 0) + (count.has(`${family}:false`) ? 1 : 0);
  const weight = groups.map((g) => 1 / count.get(`${g.family}:${g.onTopic}`)! / sides(g.family));
  const beta = new Array<number>(d).fill(0);
  const m = new Array<number>(d).fill(0);
  const v = new Array<number>(d).fill(0);
  const lr = 0.05;
  for (let iter = 1; iter <= 4000; iter += 1) {
    const grad = new Array<number>(d).fill(0);
    groups.forEach((g, gi) => {
      const z = g.rows.map((x) => x.reduce((s, xv, j) => s + xv * beta[j]!, beta[d - 1]!));
      const top = Math.max(...z);
      const ex = z.map((zi) => Math.exp(zi - top));
      const sum = ex.reduce((a, b) => a + b, 0);
      const p = 1 / (1 + Math.exp(-(top + Math.log(sum))));
      const dz = (g.onTopic ? p - 1 : p) * weight[gi]!;
      g.rows.forEach((x, i) => {
        const share = (ex[i]! / sum) * dz;
        for (let j = 0; j < d - 1; j += 1) grad[j]! += share * x[j]!;
        grad[d - 1]! += share;
      });
    });
    for (let j = 0; j < d - 1; j += 1) grad[j]! += 2 * MIL_L2 * beta[j]!;
    for (let j = 0; j < d; j += 1) {
      m[j] = 0.9 * m[j]! + 0.1 * grad[j]!;
      v[j] = 0.999 * v[j]! + 0.001 * grad[j]! ** 2;
      beta[j]! -= (lr * (m[j]! / (1 - 0.9 ** iter))) / (Math.sqrt(v[j]! / (1 - 0.999 ** iter)) + 1e-8);
    }
  }
  const model: RelevanceModel = {
    bias: beta[d - 1]!,
    weights: Object.fromEntries(FEATURE_NAMES.map((f, j) => [f, beta[j]!])) as RelevanceModel['weights'],
  };
  return rounded(withBestBias(examples, model));
}

function rounded(model: RelevanceModel): RelevanceModel {
  const round = (x: number): number => Math.round(x * 100) / 100;
  return {
    bias: round(model.bias),
    weights: Object.fromEntries(FEATURE_NAMES.map((f) => [f, round(model.weights[f])])) as RelevanceModel['weights'],
  };
}

/**
 * The likelihood fit says how the features weigh against each other; where 0.5 falls is chosen on
 * the figures the floors produce: the bias shift (−1 to +2 in steps of 0.1) that maximises, at
 * floor 0.5, the mean over families of the balanced accuracy (the mean of 1 − OOD noise and
 * 1 − false abstention, whichever the family has).
 */
function withBestBias(examples: readonly Example[], model: RelevanceModel): RelevanceModel {
  let best = { score: -1, shift: 0 };
  for (let i = -10; i <= 20; i += 1) {
    const shift = i / 10;
    const rows = figures(examples, { ...model, bias: model.bias + shift }, 0.5, kOf);
    const score =
      rows
        .map((r) => {
          const parts = [r.noise === null ? null : 1 - r.noise, r.falseAbstention === null ? null : 1 - r.falseAbstention].filter(
            (x): x is number => x !== null,
          );
          return parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 0;
        })
        .reduce((a, b) => a + b, 0) / Math.max(1, rows.length);
    if (score > best.score + 1e-9) best = { score, shift };
  }
  return { ...model, bias: model.bias + best.shift };
}

export interface Figures {
  /** The family the row counts, or the set (see figures' groupOf). */
  family: string;
  noise: number | null;
  falseAbstention: number | null;
  recallAtK: number | null;
  precision: number | null;
}

/**
 * Query-level figures at a floor: a query "returns" what clears it, in the pipeline's order. Rows are
 * per family, or per whatever `groupOf` names (a set: the prompt files of one family are targets each).
 */
export function figures(
  examples: readonly Example[],
  model: RelevanceModel,
  floor: number,
  kOf: (family: string) => number,
  groupOf: (e: Example) => string = (e) => e.family,
): Figures[] {
  const byQuery = new Map<string, Example[]>();
  for (const e of examples) {
    const k = `${e.set}\u0000${e.queryId}`;
    byQuery.set(k, [...(byQuery.get(k) ?? []), e]);
  }
  const groups = [...new Set(examples.map(groupOf))];
  return groups.map((group) => {
    let ood = 0;
    let noisy = 0;
    let inDomain = 0;
    let abstained = 0;
    let recallSum = 0;
    let precSum = 0;
    let precN = 0;
    for (const list of byQuery.values()) {
      if (groupOf(list[0]!) !== group) continue;
      // The same gate as the pipeline: no specific query word in the note → at most GENERIC_ONLY_MAX.
      const p = (e: Example): number =>
        e.features.specificCovered ? lexicalRelevance(e.features, model) : Math.min(lexicalRelevance(e.features, model), GENERIC_ONLY_MAX);
      const kept = list
        .filter((e) => p(e) >= floor)
        .sort((a, b) => a.rank - b.rank)
        .slice(0, kOf(list[0]!.family));
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
      family: group,
      noise: ood ? noisy / ood : null,
      falseAbstention: inDomain ? abstained / inDomain : null,
      recallAtK: inDomain ? recallSum / inDomain : null,
      precision: precN ? precSum / precN : null,
    };
  });
}

export const K: Record<string, number> = { golden: 5, abstain: 3, example: 3, prompts: 3, titles: 1, locomo: 10, cross: 10 };
export const kOf = (family: string): number => K[family] ?? 5;
