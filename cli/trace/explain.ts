/**
 * `recall explain`: run a recall with the trace on and say where (and why) one note did or did not
 * make it into the result: which arms found it, which stage dropped it, how relevant it was.
 */
import { openKbIndex, openSession, type RecallCommand, type RunIo } from '../../pipeline/run.js';
import type { TraceEvent } from '../../operators/trace-stage.js';
import { RELEVANCE_MODEL, type ModelFeature, evidenceInWords } from '../../operators/math/index.js';
import { GENERIC_ONLY_MAX } from '../../operators/estimate-relevance.js';
import {
  notesByKeys,
  closeIndex,
  type IndexHandle,
  keyOfHashedId,
  noteByFileStem,
  notesDeclaring,
  problemFileLike,
} from '../../sources/index/index.js';
import { loadConfig } from '../../pipeline/config/index.js';
import { resolveSources } from '../../pipeline/kb-sources/index.js';
import { scopeHolding } from '../../pipeline/id-scope.js';
import { readableId } from '../../core/note/index.js';
import { num } from './format.js';

type EventOf<S extends TraceEvent['stage']> = Extract<TraceEvent, { stage: S }>;

const FEATURE_LABEL: Record<ModelFeature, string> = {
  kbCoverage: 'coverage of the query (weighted by rarity in this KB)',
  infoCoverage: 'coverage of the query (weighted by specificity in English)',
  titleCoverage: 'title words the query uses',
  noteMissing: 'specific query words the note lacks',
  evidence: 'specific words of the query the note matches',
  summaryShare: "the note's title, key insight and tags matched by the query",
  phrases: 'word pairs of the query the note repeats',
  standout: 'how far the note stands out from the other candidates',
};

/** The relevance of one candidate against the floor, and what decided it, in one line. */
export function relevanceVerdict(
  c: Extract<TraceEvent, { stage: 'relevance' }>['candidates'][number],
  floor: number,
  terms: Extract<TraceEvent, { stage: 'relevance' }>['terms'] = [],
): string {
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
          : c.source === 'successor'
            ? 'the relevance of a note it supersedes'
            : c.source === 'asked-step'
              ? 'its name: the query asks for the git step or work it is named for'
              : c.source === 'asked-meaning'
                ? 'what it says of the user: the query asks what something means, and it says how to explain that'
                : c.source === 'forbidden'
                  ? 'what it forbids: the query names it'
                  : 'the date window of the query';
    return `relevance ${num(c.relevance, 2)} ${cmp}, decided by ${why}${lacks}`;
  }
  if (c.features && !c.features.specificCovered && c.relevance <= GENERIC_ONLY_MAX) {
    // A name the KB's notes often carry, which stopped counting as specific (weigh-terms.ts).
    const names = terms.filter((t) => t.proper && !t.specific && !c.missing.includes(t.word)).map((t) => `"${t.word}"`);
    if (names.length)
      return `relevance ${num(c.relevance, 2)} ${cmp}; deciding factor: the note shares only ${names.join(', ')} with the query, a name many notes of this KB carry, and the query's other specific words are in no note${lacks}`;
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
  // Under the floor, the evidence the note has and lacks in words (the abstention reason's terms).
  const evidence =
    below && c.features
      ? `; ${evidenceInWords(
          c.features,
          terms.filter((t) => t.specific && !c.missing.includes(t.word)).map((t) => t.word),
          [],
        )}`
      : '';
  return `relevance ${num(c.relevance, 2)} ${cmp}; deciding factor: ${FEATURE_LABEL[name]} (${value >= 0 ? '+' : ''}${num(value, 2)} to the logit)${evidence}${lacks}`;
}

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

type Answer = (verdict: string, message: string, extra?: Partial<ExplainResult>) => ExplainResult;

/** The note's key in the index, or the answer when the id names no live note (unknown, unusable, retired). */
function resolveNote(cmd: RecallCommand, id: string, io: RunIo, answer: Answer): { key: string; root: string } | ExplainResult {
  const config = loadConfig(io.env);
  // A note key, a file stem, the id as declared (the note that declared it), or the hashed form
  // an injected block shows for an id it cannot print.
  const rowOf = (index: IndexHandle) => {
    const key = keyOfHashedId(index, id) ?? notesDeclaring(index, id).find((n) => n.location === 'documents')?.key ?? readableId(id);
    return notesByKeys(index, [id]).get(id) ?? noteByFileStem(index, id) ?? notesByKeys(index, [key]).get(key);
  };
  // With no KB configured, the zero-config source that holds the id (pipeline/id-scope).
  const sources = resolveSources(config, { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd, env: io.env });
  const scope = scopeHolding(config, sources.read, io.env, (h) => rowOf(h) !== undefined);
  const index = openKbIndex(config, scope.root);
  try {
    const row = rowOf(index);
    if (!row) {
      const problem = problemFileLike(index, id);
      return problem
        ? answer('not-indexed', `not indexed: ${problem.path} could not be used (${problem.problem})`)
        : answer('unknown-id', `no note with this id or file name in ${scope.root}`);
    }
    if (row.location !== 'documents')
      return answer(
        'retired',
        `the note is in ${row.location === 'forgotten' ? 'the forgotten folder (.forgotten/)' : 'archived/'}: retired notes are never recalled`,
      );
    return { key: row.key, root: scope.root };
  } finally {
    closeIndex(index);
  }
}

const DROP_LABEL: Readonly<Record<string, string>> = {
  'arm-floor': 'below an arm coverage floor',
  superseded: 'retired (superseded)',
  quarantine: 'quarantined',
  confidence: 'below the confidence filter',
  mmr: 'diversified away by MMR',
  limit: 'cut by --limit',
  budget: 'cut by the token budget',
  'relevance-floor': 'below the relevance floor',
};

/** What the trace says about one note: the events that matter to its verdict, gathered once. */
interface NoteTrace {
  key: string;
  events: TraceEvent[];
  result: EventOf<'result'> | undefined;
  floorEv: EventOf<'abstain'> | undefined;
  arms: EventOf<'arm'>[];
  found: EventOf<'arm'>[];
  relevanceLine: string;
  facts: Partial<ExplainResult>;
}

function noteTrace(events: TraceEvent[], key: string): NoteTrace {
  const result = events.find((e): e is EventOf<'result'> => e.stage === 'result');
  const relEv = events.find((e): e is EventOf<'relevance'> => e.stage === 'relevance');
  const rel = relEv?.candidates.find((c) => c.id === key);
  const floorEv = events.find((e): e is EventOf<'abstain'> => e.stage === 'abstain');
  const arms = events.filter((e): e is EventOf<'arm'> => e.stage === 'arm');
  const found = arms.filter((a) => a.hits.some((h) => h.id === key));
  const armRanks = found.map((a) => ({ arm: a.arm, rank: a.hits.find((h) => h.id === key)!.rank }));
  const lexical = arms.find((a) => a.arm === 'bm25')?.hits.find((h) => h.id === key);
  const lentLine = lexical?.context
    ? `\n  ${num(lexical.context, 2)} of its BM25 score ${num(lexical.score, 2)} was lent by a note archived at the same moment that matches the query better (episode context)`
    : '';
  return {
    key,
    events,
    result,
    floorEv,
    arms,
    found,
    relevanceLine: (rel ? `\n  ${relevanceVerdict(rel, floorEv?.floor ?? 0, relEv?.terms)}` : '') + lentLine,
    facts: { arms: armRanks, relevance: rel?.relevance ?? null, floor: floorEv?.floor ?? null },
  };
}

/** The verdict when the note reached the result, the weak list, or was dropped by a named stage; null otherwise. */
function keptOrDropped(t: NoteTrace, answer: Answer): ExplainResult | null {
  const { key, result, facts, relevanceLine } = t;
  const rank = result?.ids.indexOf(key) ?? -1;
  if (result && rank >= 0) {
    const score = result.scores[rank] ?? 0;
    const message = `included, rank ${rank + 1} of ${result.ids.length} (score ${num(score, 4)})${relevanceLine}`;
    return answer('included', message, { ...facts, rank: rank + 1, score });
  }
  if (t.floorEv?.weak.includes(key)) return answer('weak', `shown only as a weak match (below the relevance floor)${relevanceLine}`, facts);
  if (t.events.some((e) => e.stage === 'cache' && e.tier !== null)) {
    // A cached fetch skips the arms: say so rather than guessing.
    const fused = t.events.find((e): e is EventOf<'score'> => e.stage === 'score');
    if (!fused?.candidates.some((c) => c.id === key))
      return answer('not-cached', 'not among the cached candidates of this query (run without --cache to see the arms)', facts);
  }
  for (const e of t.events) {
    const d = 'dropped' in e ? e.dropped.find((x) => x.key === key) : undefined;
    if (!d) continue;
    const by = (facts.arms ?? []).map((a) => `${a.arm} (rank ${a.rank})`).join(', ') || 'no arm';
    const message = `retrieved by ${by}, then ${DROP_LABEL[d.stage] ?? d.stage}: ${d.reason}${relevanceLine}`;
    return answer('dropped', message, { ...facts, stage: d.stage, reason: d.reason });
  }
  return null;
}

/** The verdict for a note the result never held: the gate, an abstention, no arm found it, or found but not kept. */
function neverKept(t: NoteTrace, answer: Answer): ExplainResult {
  const gate = t.events.find((e): e is EventOf<'ood-gate'> => e.stage === 'ood-gate');
  if (gate?.gated)
    return answer(
      'gated',
      `the OOD gate emptied the result (best coverage ${num(gate.coverage ?? 0, 2)} < --min-overlap ${gate.minOverlap})`,
      t.facts,
    );
  if (t.floorEv?.abstained) return answer('abstained', `nothing was returned: ${t.floorEv.abstained}${t.relevanceLine}`, t.facts);
  if (t.found.length === 0) {
    const ran = t.arms.filter((a) => a.status === 'ok').map((a) => a.arm);
    const off = t.arms.filter((a) => a.status !== 'ok').map((a) => `${a.arm} ${a.status}`);
    const searched = `${ran.join(', ') || 'none'}${off.length ? `; ${off.join(', ')}` : ''}`;
    return answer('not-retrieved', `not retrieved by any arm (searched: ${searched}): the query shares too little with the note`, t.facts);
  }
  return answer('not-in-result', `retrieved (${t.found.map((a) => a.arm).join(', ')}) but not in the result`, t.facts);
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
  const answer: Answer = (verdict, message, extra = {}) => ({ ...base, verdict, message: `${id}: ${message}`, ...extra });
  const resolved = resolveNote(cmd, id, io, answer);
  if ('verdict' in resolved) return resolved;
  const t = noteTrace(eventsFor(events, resolved.root), resolved.key);
  return keptOrDropped(t, answer) ?? neverKept(t, answer);
}

/**
 * The events that speak of a note of the KB at `root`. One KB read: all of them. Several read
 * together (no KB configured: the reflect KB and Claude Code's memory, ...): that KB's own stages,
 * where the note was retrieved, scored and kept or dropped, then the fused result of all the KBs,
 * which is what the recall returned; another KB's abstention says nothing about this note.
 */
export function eventsFor(events: readonly TraceEvent[], root: string): TraceEvent[] {
  if (!events.some((e) => e.stage === 'kb')) return [...events];
  const own: TraceEvent[] = [];
  const fused: TraceEvent[] = [];
  let into: TraceEvent[] | null = null;
  for (const e of events) {
    if (e.stage === 'kb') into = e.kb === 0 ? fused : e.root === root ? own : null;
    else if (into) into.push(e);
  }
  return [...own.filter((e) => e.stage !== 'result'), ...fused];
}
