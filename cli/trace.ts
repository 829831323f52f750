/**
 * `recall trace` and `recall explain`: the real pipeline with a trace sink (a tap on each stage), so
 * what is shown is what a recall does — not a second implementation.
 *
 * trace streams one event per stage as it completes: as aligned text (coloured only on a TTY) or as
 * JSON lines (`--format jsonl`). explain runs the same trace and says where a note dropped out.
 * Neither writes the recall log.
 */
import { stripControls, wellFormedJson } from '../sinks/safe-text.js';
import { styleText } from 'node:util';
import { openKbIndex, openSession, type RecallCommand, type RunIo } from '../pipeline/run.js';
import type { TraceEvent } from '../operators/trace-stage.js';
import { RELEVANCE_MODEL, type ModelFeature } from '../operators/math/relevance.js';
import { GENERIC_ONLY_MAX } from '../operators/estimate-relevance.js';
import { notesByKeys, closeIndex } from '../sources/index-store.js';
import { noteByFileStem, problemFileLike } from '../sources/index-queries.js';
import { loadConfig } from '../pipeline/config.js';
import { resolveScope } from '../pipeline/scope.js';

type Paint = (style: Parameters<typeof styleText>[0], text: string) => string;

const num = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));

/** One event as human-readable lines. */
export function formatEvent(ev: TraceEvent, paint: Paint): string[] {
  const at = paint('dim', `${num(ev.t, 1).padStart(8)} ms`);
  const head = (name: string): string => `${at}  ${paint('bold', name.padEnd(13))}`;
  const list = (items: string[], max = 10): string =>
    items.length > max ? `${items.slice(0, max).join(', ')}, … (+${items.length - max})` : items.join(', ') || '—';
  switch (ev.stage) {
    case 'start':
      return [
        `${head('start')}query ${JSON.stringify(ev.query)}  terms [${ev.terms.join(' ')}]  date window ${ev.temporal ? `${ev.temporal.start} … ${ev.temporal.end} ("${ev.temporal.matched}")` : 'none'}`,
      ];
    case 'cache':
      return [`${head('cache')}${ev.tier ? paint('green', `${ev.tier} hit: arms, rerank and embeddings skipped`) : 'miss'}`];
    case 'arm': {
      const status =
        ev.status === 'ok' ? paint('green', 'ok') : ev.status === 'disabled' ? paint('dim', 'disabled') : paint('red', ev.status);
      const lines = [
        `${head(`arm ${ev.arm}`)}${status}  ${ev.hits.length} hits in ${num(ev.ms, 0)} ms${ev.message ? `  (${ev.message})` : ''}`,
      ];
      for (const h of ev.hits.slice(0, 10))
        lines.push(`${' '.repeat(25)}${String(h.rank).padStart(3)}. ${h.id}  ${paint('dim', num(h.score))}`);
      if (ev.hits.length > 10) lines.push(`${' '.repeat(25)}… ${ev.hits.length - 10} more`);
      return lines;
    }
    case 'floors':
    case 'superseded':
      return [
        `${head(ev.stage === 'floors' ? 'arm floors' : 'superseded')}${ev.dropped.length ? ev.dropped.map((d) => `${paint('yellow', d.key)} (${d.reason})`).join('; ') : 'nothing dropped'}`,
      ];
    case 'fuse':
      return [
        `${head('fuse (RRF)')}${ev.candidates.length} candidates`,
        ...ev.candidates
          .slice(0, 20)
          .map(
            (c) =>
              `${' '.repeat(25)}${String(c.rank).padStart(3)}. ${c.id}  rrf ${num(c.rrf, 4)}  evidence ${num(c.evidence)}  [${c.arms.join('+')}]`,
          ),
      ];
    case 'rerank':
      return [
        `${head('rerank')}cross-encoder ${ev.crossEncoder ? paint('green', 'scored') : 'none'}, embeddings ${ev.embeddings ? paint('green', 'yes') : 'none'}${ev.degraded.length ? `  (${ev.degraded.join('; ')})` : ''}`,
      ];
    case 'relevance':
      return [
        `${head('relevance')}terms ${ev.terms.map((t) => `${t.word}${t.proper ? '*' : ''} (info ${num(t.info, 2)}, in ${t.df} notes)`).join(', ') || '—'}`,
        ...ev.candidates.map((c) => {
          const why = c.contributions
            ? `kb-coverage ${num(c.contributions.kbCoverage, 2)}  info-coverage ${num(c.contributions.infoCoverage, 2)}  title ${num(c.contributions.titleCoverage, 2)}  note-missing ${num(c.contributions.noteMissing, 2)}`
            : '';
          return `${' '.repeat(25)}${paint('bold', num(c.relevance, 3))} ${c.id}  ${paint('dim', `${c.source}${c.source === 'lexical' && why ? `: ${why}` : ''}`)}`;
        }),
      ];
    case 'abstain':
      return [
        `${head('floor')}${ev.floor <= 0 ? 'off' : ev.abstained ? paint('red', `abstained: ${ev.abstained}`) : `relevance ≥ ${num(ev.floor, 2)}: kept ${ev.kept.length}`}${ev.weak.length ? `; weak matches ${ev.weak.join(', ')}` : ''}${ev.dropped.length && !ev.weak.length ? `; below the floor ${list(ev.dropped.map((d) => d.key))}` : ''}`,
      ];
    case 'score':
      return [
        `${head('score')}base × boosts (confidence recency tags proof project domain authority speculative)`,
        ...ev.candidates.slice(0, 20).map((c) => {
          const b = c.boosts;
          const factors = [b.confidence, b.recency, b.tags, b.proof, b.project, b.domain, b.authority, b.speculative]
            .map((x) => num(x))
            .join(' ');
          return `${' '.repeat(25)}${String(c.rank).padStart(3)}. ${c.id}  ${paint('bold', num(c.score, 4))} = ${num(c.base, 4)}${c.ce !== null ? ` (ce ${num(c.ce, 2)})` : ''} × ${factors}  ${paint('dim', `relevance ${num(c.relevance, 3)}`)}`;
        }),
      ];
    case 'quarantine':
    case 'confidence':
    case 'mmr':
    case 'budget':
      return [
        `${head(ev.stage)}kept ${ev.kept.length}${ev.dropped.length ? `; dropped ${ev.dropped.map((d) => `${paint('yellow', d.key)} (${d.reason})`).join('; ')}` : ''}`,
      ];
    case 'ood-gate':
      return [
        `${head('ood gate')}${ev.minOverlap <= 0 ? 'off' : ev.gated ? paint('red', `gated: best coverage ${num(ev.coverage ?? 0, 2)} < ${ev.minOverlap}`) : `passed: best coverage ${num(ev.coverage ?? 0, 2)} ≥ ${ev.minOverlap}`}`,
      ];
    case 'result':
      return [
        `${head('result')}${ev.ids.length} notes in ${num(ev.ms, 1)} ms${ev.cacheTier ? ` (cache ${ev.cacheTier})` : ''}: ${list(ev.ids.map((id, i) => `${id} ${num(ev.scores[i] ?? 0, 3)}`))}`,
        ...(ev.degraded.length ? [`${' '.repeat(25)}degraded: ${ev.degraded.join(', ')}`] : []),
      ];
  }
}

export async function runTrace(
  cmd: RecallCommand,
  io: RunIo,
  format: 'text' | 'jsonl',
  write: (s: string) => void,
  color: boolean,
): Promise<void> {
  const paint: Paint = color ? (style, text) => styleText(style, text) : (_s, text) => text;
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: cmd.verbose }, io);
  try {
    await session.run(cmd, {
      noLog: true,
      // Note text inside events is stripped of terminal controls before it is formatted or coloured.
      trace: (raw) => {
        const ev = cleanStrings(raw);
        write(format === 'jsonl' ? `${wellFormedJson(ev)}\n` : `${formatEvent(ev, paint).join('\n')}\n`);
      },
    });
  } finally {
    session.close();
  }
}

const FEATURE_LABEL: Record<ModelFeature, string> = {
  kbCoverage: 'coverage of the query (weighted by rarity in this KB)',
  infoCoverage: 'coverage of the query (weighted by specificity in English)',
  titleCoverage: 'title words the query uses',
  noteMissing: 'specific query words the note lacks',
};

/** The relevance of one candidate against the floor, and what decided it, in one line. */
export function relevanceVerdict(c: Extract<TraceEvent, { stage: 'relevance' }>['candidates'][number], floor: number): string {
  const cmp = floor <= 0 ? '(no floor)' : c.relevance >= floor ? `≥ floor ${num(floor, 2)}` : `< floor ${num(floor, 2)}`;
  const lacks = c.missing.length
    ? `; lacks ${c.missing
        .slice(0, 4)
        .map((w) => `"${w}"`)
        .join(', ')}`
    : '; contains every query word';
  if (c.source !== 'lexical' || !c.contributions) {
    const why =
      c.source === 'cross-encoder'
        ? 'the cross-encoder'
        : c.source === 'linked'
          ? 'an entity link to a clearly relevant note'
          : 'the date window of the query';
    return `relevance ${num(c.relevance, 2)} ${cmp}, decided by ${why}${lacks}`;
  }
  if (c.features && !c.features.specificCovered && c.relevance <= GENERIC_ONLY_MAX) {
    return `relevance ${num(c.relevance, 2)} ${cmp}; deciding factor: the note shares no specific word with the query, only everyday ones${lacks}`;
  }
  // The deciding factor: for a note over the floor the feature that pushes hardest up; for one under
  // it the feature furthest from its best (a positive weight times what is missing of its feature,
  // or a negative weight times its feature).
  const entries = Object.entries(c.contributions) as [ModelFeature, number][];
  const below = floor > 0 && c.relevance < floor;
  const shortfall = (f: ModelFeature): number => {
    const w = RELEVANCE_MODEL.weights[f];
    const x = c.features?.[f] ?? 0;
    return w > 0 ? w * (1 - x) : -w * x;
  };
  const [name, value] = below
    ? entries.reduce((m, e) => (shortfall(e[0]) > shortfall(m[0]) ? e : m))
    : entries.reduce((m, e) => (e[1] > m[1] ? e : m));
  return `relevance ${num(c.relevance, 2)} ${cmp}; deciding factor: ${FEATURE_LABEL[name]} (${value >= 0 ? '+' : ''}${num(value, 2)} to the logit)${lacks}`;
}

/** An id taken literally inside a LIKE pattern ("%" and "_" in an id are not wildcards). */

/** What explain found out about one note, as data (`--format json`) and as a line of text. */
export interface ExplainResult {
  id: string;
  query: string;
  /** included | weak | dropped | retired | gated | abstained | not-retrieved | not-in-result | not-indexed | unknown-id | not-cached */
  verdict: string;
  /** The stage that dropped the note, and why (verdict dropped). */
  stage: string | null;
  reason: string | null;
  /** Arms that retrieved the note, with its rank in each. */
  arms: { arm: string; rank: number }[];
  rank: number | null;
  score: number | null;
  relevance: number | null;
  floor: number | null;
  /** The explanation in words (what the text output prints). */
  message: string;
}

/** Where (and why) a note did not make it into the result of a query. An unknown id is verdict `unknown-id`. */
export async function runExplain(cmd: RecallCommand, id: string, io: RunIo): Promise<ExplainResult> {
  const events: TraceEvent[] = [];
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: false }, io);
  try {
    await session.run(cmd, { noLog: true, trace: (ev) => events.push(ev) });
  } finally {
    session.close();
  }
  const base = { id, query: cmd.query, stage: null, reason: null, arms: [], rank: null, score: null, relevance: null, floor: null };
  const answer = (verdict: string, message: string, extra: Partial<ExplainResult> = {}): ExplainResult => ({
    ...base,
    verdict,
    message: `${id}: ${message}`,
    ...extra,
  });
  // Resolve the id (a note key, or a file stem) against the index.
  const config = loadConfig(io.env);
  const scope = resolveScope(config, { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd });
  const index = openKbIndex(config, scope.root, io.env);
  let key = id;
  try {
    const byKey = notesByKeys(index, [id]);
    const row = byKey.get(id) ?? noteByFileStem(index, id);
    if (!row) {
      const problem = problemFileLike(index, id);
      return problem
        ? answer('not-indexed', `not indexed: ${problem.path} could not be used (${problem.problem})`)
        : answer('unknown-id', `no note with this id or file name in ${scope.root}`);
    }
    key = 'key' in row ? row.key : id;
    const loc = 'location' in row ? row.location : 'documents';
    if (loc !== 'documents')
      return answer(
        'retired',
        `the note is in ${loc === 'forgotten' ? 'the forgotten folder (.forgotten/)' : 'archived/'}: retired notes are never recalled`,
      );
  } finally {
    closeIndex(index);
  }
  const result = events.find((e): e is Extract<TraceEvent, { stage: 'result' }> => e.stage === 'result');
  const rel = (events.find((e) => e.stage === 'relevance') as Extract<TraceEvent, { stage: 'relevance' }> | undefined)?.candidates.find(
    (c) => c.id === key,
  );
  const floorEv = events.find((e) => e.stage === 'abstain') as Extract<TraceEvent, { stage: 'abstain' }> | undefined;
  const relevanceLine = rel ? `\n  ${relevanceVerdict(rel, floorEv?.floor ?? 0)}` : '';
  const arms = events.filter((e): e is Extract<TraceEvent, { stage: 'arm' }> => e.stage === 'arm');
  const found = arms.filter((a) => a.hits.some((h) => h.id === key));
  const armRanks = found.map((a) => ({ arm: a.arm, rank: a.hits.find((h) => h.id === key)!.rank }));
  const facts: Partial<ExplainResult> = { arms: armRanks, relevance: rel?.relevance ?? null, floor: floorEv?.floor ?? null };
  const rank = result?.ids.indexOf(key) ?? -1;
  if (rank >= 0) {
    const score = result!.scores[rank] ?? 0;
    return answer('included', `included, rank ${rank + 1} of ${result!.ids.length} (score ${num(score, 4)})${relevanceLine}`, {
      ...facts,
      rank: rank + 1,
      score,
    });
  }
  if (floorEv?.weak.includes(key)) return answer('weak', `shown only as a weak match (below the relevance floor)${relevanceLine}`, facts);
  if (events.some((e) => e.stage === 'cache' && e.tier !== null)) {
    // A cached fetch skips the arms: say so rather than guessing.
    const fused = events.find((e) => e.stage === 'score') as Extract<TraceEvent, { stage: 'score' }> | undefined;
    if (!fused?.candidates.some((c) => c.id === key))
      return answer('not-cached', 'not among the cached candidates of this query (run without --cache to see the arms)', facts);
  }
  for (const e of events) {
    if (!('dropped' in e)) continue;
    const d = e.dropped.find((x) => x.key === key);
    if (d) {
      const label: Record<string, string> = {
        'arm-floor': 'below an arm coverage floor',
        superseded: 'retired (superseded)',
        quarantine: 'quarantined',
        confidence: 'below the confidence filter',
        mmr: 'diversified away by MMR',
        limit: 'cut by --limit',
        budget: 'cut by the token budget',
        'relevance-floor': 'below the relevance floor',
      };
      const by = armRanks.map((a) => `${a.arm} (rank ${a.rank})`).join(', ') || 'no arm';
      return answer('dropped', `retrieved by ${by}, then ${label[d.stage] ?? d.stage}: ${d.reason}${relevanceLine}`, {
        ...facts,
        stage: d.stage,
        reason: d.reason,
      });
    }
  }
  const gate = events.find((e) => e.stage === 'ood-gate') as Extract<TraceEvent, { stage: 'ood-gate' }> | undefined;
  if (gate?.gated)
    return answer(
      'gated',
      `the OOD gate emptied the result (best coverage ${num(gate.coverage ?? 0, 2)} < --min-overlap ${gate.minOverlap})`,
      facts,
    );
  if (floorEv?.abstained) return answer('abstained', `nothing was returned: ${floorEv.abstained}${relevanceLine}`, facts);
  if (found.length === 0) {
    const ran = arms.filter((a) => a.status === 'ok').map((a) => a.arm);
    const off = arms.filter((a) => a.status !== 'ok').map((a) => `${a.arm} ${a.status}`);
    return answer(
      'not-retrieved',
      `not retrieved by any arm (searched: ${ran.join(', ') || 'none'}${off.length ? `; ${off.join(', ')}` : ''}): the query shares too little with the note`,
      facts,
    );
  }
  return answer('not-in-result', `retrieved (${found.map((a) => a.arm).join(', ')}) but not in the result`, facts);
}

/** A copy of a value with every string stripped of terminal controls (arrays and plain objects walked). */
function cleanStrings<T>(value: T): T {
  if (typeof value === 'string') return stripControls(value) as T;
  if (Array.isArray(value)) return value.map(cleanStrings) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, cleanStrings(v)])) as T;
  }
  return value;
}
