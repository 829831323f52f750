/**
 * The figures `npm run eval` prints: per-set and per-family rows, the arms that found the CLI's
 * top-K, LoCoMo by question category, and (--verbose) each query's outcome.
 */
import type { LabelledSet } from './labelled-sets.js';

export type Profile = 'cli' | 'user-prompt' | 'session-start' | 'bm25';
export const PROFILES: readonly Profile[] = ['cli', 'user-prompt', 'session-start', 'bm25'];

export interface QueryScore {
  id: string;
  class: string;
  /** LoCoMo question category (1 multi-hop, 2 temporal, 3 open-domain inference, 4 single-hop). */
  category?: number;
  ids: string[];
  arms: string[][];
  onTopic: boolean;
  recall: number | null;
  mrr: number | null;
  ndcg: number | null;
  returned: boolean;
  precision: number | null;
  violation: boolean;
  ms: number;
  /** recall@K of what was returned (above the caller's floor; weak matches left out). */
  returnedRecall: number | null;
  /** Whether a labelled note is among what was returned (null for off-topic queries). */
  hit: boolean | null;
  /**
   * The same two for what was given whole: the prompt hook names a learning it is unsure of in a
   * one-line pointer instead (hooks/registry.ts); every other caller gives all it returns whole.
   */
  returnedWhole: boolean;
  hitWhole: boolean | null;
}

export interface Summary {
  set: string;
  family: string;
  profile: Profile;
  k: number;
  queries: number;
  recall_at_k: number | null;
  mrr: number | null;
  ndcg_at_k: number | null;
  ood_noise: number | null;
  false_abstention: number | null;
  precision: number | null;
  violations: number;
}

/** What one labelled set produced under every caller. */
export interface SetResult {
  set: LabelledSet;
  summaries: Summary[];
  perQuery: Record<string, QueryScore[]>;
  attribution: Record<string, number>;
}

export function mean(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

/** Mean of the per-set figures of one family and profile (LoCoMo: the mean over conversations). */
export function familyRow(rows: Summary[]): Summary {
  const pick = (f: (s: Summary) => number | null): number | null => mean(rows.map(f));
  return {
    ...rows[0]!,
    set: `${rows[0]!.family} (${rows.length} sets)`,
    queries: rows.reduce((n, r) => n + r.queries, 0),
    recall_at_k: pick((r) => r.recall_at_k),
    mrr: pick((r) => r.mrr),
    ndcg_at_k: pick((r) => r.ndcg_at_k),
    ood_noise: pick((r) => r.ood_noise),
    false_abstention: pick((r) => r.false_abstention),
    precision: pick((r) => r.precision),
    violations: rows.reduce((n, r) => n + r.violations, 0),
  };
}

export const fmt = (x: number | null): string => (x === null ? '    - ' : x.toFixed(3).padStart(6));

export function formatTable(rows: Summary[]): string[] {
  const out = [
    `${'set'.padEnd(22)} ${'caller'.padEnd(13)}  K   queries  recall@K    MRR  nDCG@K  OOD-noise  false-abst  precision  superseded>current`,
  ];
  for (const s of rows) {
    out.push(
      `${s.set.padEnd(22)} ${s.profile.padEnd(13)} ${String(s.k).padStart(2)}  ${String(s.queries).padStart(8)}    ${fmt(s.recall_at_k)} ${fmt(s.mrr)}  ${fmt(s.ndcg_at_k)}     ${fmt(s.ood_noise)}      ${fmt(s.false_abstention)}     ${fmt(s.precision)}  ${String(s.violations).padStart(18)}`,
    );
  }
  return out;
}

/** One row per set and caller; a family of several sets also gets its mean row (cross pairs only the mean). */
export function summaryRows(all: readonly SetResult[], profiles: readonly Profile[]): Summary[] {
  const rows: Summary[] = [];
  for (const family of [...new Set(all.map((a) => a.set.family))]) {
    const members = all.filter((a) => a.set.family === family);
    for (const profile of profiles) {
      const list = members.flatMap((m) => m.summaries.filter((s) => s.profile === profile));
      if (!list.length) continue;
      if (members.length > 1) {
        if (family !== 'cross') rows.push(...list);
        rows.push(familyRow(list));
      } else rows.push(list[0]!);
    }
  }
  return rows;
}

function attributionLines(all: readonly SetResult[]): string[] {
  return all
    .filter((a) => a.set.family !== 'cross')
    .map(
      (a) =>
        `${a.set.name}: top-K (cli) by arm: ${
          Object.entries(a.attribution)
            .map(([arm, n]) => `${arm} ${n}`)
            .join(', ') || 'none'
        }`,
    );
}

/** LoCoMo per question category: mean over conversations of each conversation's mean recall@K. */
function locomoLines(all: readonly SetResult[], profiles: readonly Profile[]): string[] {
  const locomo = all.filter((a) => a.set.family === 'locomo');
  if (!locomo.length) return [];
  const names: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain inference', 4: 'single-hop' };
  const out = ['', 'LoCoMo recall@K by question category (mean over conversations):'];
  for (const cat of [1, 2, 3, 4]) {
    const cells = profiles.map((p) => {
      const perSet = locomo.map((a) => mean((a.perQuery[p] ?? []).filter((r) => r.category === cat).map((r) => r.recall)));
      return `${p} ${fmt(mean(perSet))}`;
    });
    out.push(`  ${cat} ${names[cat]!.padEnd(22)} ${cells.join('  ')}`);
  }
  return out;
}

/**
 * Per query class (golden's exact / graph / temporal, the prompt sets' in / multi / followup / ood,
 * …), for the cli and user-prompt callers: recall@K of what cleared the floor, the share of on-topic
 * queries with a labelled note returned, and the share of off-topic ones returning anything. The
 * noisiest cross-conversation pair, too.
 */
function classLines(all: readonly SetResult[], profiles: readonly Profile[]): string[] {
  const out: string[] = [];
  const f = (x: number | null): string => (x === null ? '  -  ' : x.toFixed(3));
  for (const a of all) {
    if (a.set.family === 'cross' || a.set.family === 'locomo' || a.set.family === 'everyday') continue;
    const classes = [...new Set(a.set.queries.map((q) => q.class))];
    out.push('', `${a.set.name} by class (above the floor): recall@K / labelled note returned / off-topic returning anything`);
    for (const p of profiles.filter((p) => p === 'cli' || p === 'user-prompt')) {
      const rs = a.perQuery[p] ?? [];
      const cells = classes.map((c) => {
        const on = rs.filter((r) => r.class === c && r.onTopic);
        const off = rs.filter((r) => r.class === c && !r.onTopic);
        const noise = off.length ? off.filter((r) => r.returned).length / off.length : null;
        const noiseWhole = off.length ? off.filter((r) => r.returnedWhole).length / off.length : null;
        // Whole-only figures follow in brackets where the prompt hook gave pointers.
        const onCell = on.length
          ? `${f(mean(on.map((r) => r.returnedRecall)))}/${f(on.filter((r) => r.hit).length / on.length)}` +
            (p === 'user-prompt' ? ` (whole ${f(on.filter((r) => r.hitWhole).length / on.length)})` : '')
          : '-';
        const offCell = off.length ? ` off ${f(noise)}${p === 'user-prompt' ? ` (whole ${f(noiseWhole)})` : ''}` : '';
        return `${c} ${onCell}${offCell}`;
      });
      const on = rs.filter((r) => r.onTopic);
      const off = rs.filter((r) => !r.onTopic);
      cells.push(`all ${f(mean(on.map((r) => r.returnedRecall)))}/${on.length ? f(on.filter((r) => r.hit).length / on.length) : '-'}`);
      if (p === 'user-prompt' && on.length) cells.push(`on whole ${f(on.filter((r) => r.hitWhole).length / on.length)}`);
      if (off.length) cells.push(`off any ${f(off.filter((r) => r.returned).length / off.length)}`);
      if (p === 'user-prompt' && off.length) cells.push(`off whole ${f(off.filter((r) => r.returnedWhole).length / off.length)}`);
      out.push(`  ${p.padEnd(12)} ${cells.join('  ')}`);
    }
  }
  const cross = all.filter((a) => a.set.family === 'cross');
  for (const p of profiles.filter((p) => p === 'cli' || p === 'user-prompt')) {
    const worst = cross
      .map((a) => a.summaries.find((s) => s.profile === p))
      .filter((s): s is Summary => s !== undefined && s.ood_noise !== null)
      .sort((x, y) => y.ood_noise! - x.ood_noise!)[0];
    if (worst) out.push(`${out.length ? '' : '\n'}cross: noisiest pair (${p}) ${worst.set} ${f(worst.ood_noise)}`);
  }
  return out;
}

function outcomeFlag(r: QueryScore): string {
  if (!r.onTopic) return r.returned ? 'NOISE' : 'ok';
  if (!r.returned) return 'ABSTAINED';
  if ((r.recall ?? 0) < 1) return 'MISS';
  return r.violation ? 'SUPERSEDED-FIRST' : 'ok';
}

function verboseLines(all: readonly SetResult[]): string[] {
  const out: string[] = [];
  for (const a of all) {
    if (a.set.family === 'cross' || a.set.family === 'locomo') continue;
    out.push('', `${a.set.name} (cli):`);
    for (const r of a.perQuery['cli'] ?? []) out.push(`  ${r.id.padEnd(10)} ${outcomeFlag(r).padEnd(16)} ${r.ids.join(', ') || '(none)'}`);
  }
  return out;
}

/** The whole text report. */
export function reportText(all: readonly SetResult[], profiles: readonly Profile[], floors: string[], verbose: boolean): string {
  const queries = all.reduce((n, a) => n + a.set.queries.length, 0);
  return [
    `recall eval: ${all.length} sets, ${queries} queries, no models; floors cli ${floors.join(', ')}`,
    '',
    ...formatTable(summaryRows(all, profiles)),
    '',
    ...attributionLines(all),
    ...locomoLines(all, profiles),
    ...classLines(all, profiles),
    ...(verbose ? verboseLines(all) : []),
  ].join('\n');
}
