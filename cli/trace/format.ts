/** The text form of `recall trace`: one formatter per pipeline stage, each event as aligned lines. */
import type { styleText } from 'node:util';
import type { TraceEvent } from '../../operators/trace-stage.js';

export type Paint = (style: Parameters<typeof styleText>[0], text: string) => string;

export const num = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));

type Stage = TraceEvent['stage'];
type EventOf<S extends Stage> = Extract<TraceEvent, { stage: S }>;

/** What every formatter gets: the colour function and the stage-name column. */
interface Fmt {
  paint: Paint;
  head: (name: string) => string;
}

/** Indent of the lines under a stage's first line (the time and stage-name columns). */
const INDENT = ' '.repeat(25);

const list = (items: string[], max = 10): string =>
  items.length > max ? `${items.slice(0, max).join(', ')}, … (+${items.length - max})` : items.join(', ') || '—';

const droppedList = (f: Fmt, dropped: { key: string; reason: string }[]): string =>
  dropped.map((d) => `${f.paint('yellow', d.key)} (${d.reason})`).join('; ');

function armLines(ev: EventOf<'arm'>, f: Fmt): string[] {
  const status =
    ev.status === 'ok' ? f.paint('green', 'ok') : ev.status === 'disabled' ? f.paint('dim', 'disabled') : f.paint('red', ev.status);
  const lines = [
    `${f.head(`arm ${ev.arm}`)}${status}  ${ev.hits.length} hits in ${num(ev.ms, 0)} ms${ev.message ? `  (${ev.message})` : ''}`,
  ];
  for (const h of ev.hits.slice(0, 10)) {
    // The part of a lexical score lent by the note's episode (notes archived at the same moment).
    const lent = h.context ? f.paint('dim', ` (${num(h.context)} from its episode)`) : '';
    lines.push(`${INDENT}${String(h.rank).padStart(3)}. ${h.id}  ${f.paint('dim', num(h.score))}${lent}`);
  }
  if (ev.hits.length > 10) lines.push(`${INDENT}… ${ev.hits.length - 10} more`);
  return lines;
}

function relevanceLines(ev: EventOf<'relevance'>, f: Fmt): string[] {
  const terms = ev.terms.map((t) => `${t.word}${t.proper ? '*' : ''} (info ${num(t.info, 2)}, in ${t.df} notes)`).join(', ') || '—';
  return [
    `${f.head('relevance')}terms ${terms}`,
    ...ev.candidates.map((c) => {
      const why = c.contributions
        ? `kb-coverage ${num(c.contributions.kbCoverage, 2)}  info-coverage ${num(c.contributions.infoCoverage, 2)}  title ${num(c.contributions.titleCoverage, 2)}  note-missing ${num(c.contributions.noteMissing, 2)}`
        : '';
      return `${INDENT}${f.paint('bold', num(c.relevance, 3))} ${c.id}  ${f.paint('dim', `${c.source}${c.source === 'lexical' && why ? `: ${why}` : ''}`)}`;
    }),
  ];
}

function abstainLines(ev: EventOf<'abstain'>, f: Fmt): string[] {
  const verdict =
    ev.floor <= 0
      ? 'off'
      : ev.abstained
        ? f.paint('red', `abstained: ${ev.abstained}`)
        : `relevance ≥ ${num(ev.floor, 2)}: kept ${ev.kept.length}`;
  const weak = ev.weak.length ? `; weak matches ${ev.weak.join(', ')}` : '';
  const below = ev.dropped.length && !ev.weak.length ? `; below the floor ${list(ev.dropped.map((d) => d.key))}` : '';
  return [`${f.head('floor')}${verdict}${weak}${below}`];
}

function scoreLines(ev: EventOf<'score'>, f: Fmt): string[] {
  return [
    `${f.head('score')}base × boosts (confidence recency tags proof project domain authority speculative) × relevance factor [× title phrases]`,
    ...ev.candidates.slice(0, 20).map((c) => {
      const b = c.boosts;
      const factors = [b.confidence, b.recency, b.tags, b.proof, b.project, b.domain, b.authority, b.speculative]
        .map((x) => num(x))
        .join(' ');
      // The factor differs from the relevance when the title's label words count in the ranking only.
      const label = Math.abs(c.factor - c.relevance) > 5e-4 && c.ce === null ? ' (title labels counted)' : '';
      const title = c.title !== undefined && c.title !== 1 ? ` × ${num(c.title, 3)}` : '';
      return `${INDENT}${String(c.rank).padStart(3)}. ${c.id}  ${f.paint('bold', num(c.score, 4))} = ${num(c.base, 4)}${c.ce !== null ? ` (ce ${num(c.ce, 2)})` : ''} × ${factors} × ${num(c.factor, 3)}${title}  ${f.paint('dim', `relevance ${num(c.relevance, 3)}${label}`)}`;
    }),
  ];
}

function keptLines(ev: EventOf<'quarantine' | 'confidence' | 'mmr' | 'budget'>, f: Fmt): string[] {
  return [`${f.head(ev.stage)}kept ${ev.kept.length}${ev.dropped.length ? `; dropped ${droppedList(f, ev.dropped)}` : ''}`];
}

function oodLines(ev: EventOf<'ood-gate'>, f: Fmt): string[] {
  const coverage = num(ev.coverage ?? 0, 2);
  const verdict =
    ev.minOverlap <= 0
      ? 'off'
      : ev.gated
        ? f.paint('red', `gated: best coverage ${coverage} < ${ev.minOverlap}`)
        : `passed: best coverage ${coverage} ≥ ${ev.minOverlap}`;
  return [`${f.head('ood gate')}${verdict}`];
}

const FORMATTERS: { [S in Stage]: (ev: EventOf<S>, f: Fmt) => string[] } = {
  start: (ev, f) => [
    `${f.head('start')}query ${JSON.stringify(ev.query)}  terms [${ev.terms.join(' ')}]  date window ${ev.temporal ? `${ev.temporal.start} … ${ev.temporal.end} ("${ev.temporal.matched}")` : 'none'}`,
  ],
  cache: (ev, f) => [`${f.head('cache')}${ev.tier ? f.paint('green', `${ev.tier} hit: arms, rerank and embeddings skipped`) : 'miss'}`],
  arm: armLines,
  floors: (ev, f) => [`${f.head('arm floors')}${ev.dropped.length ? droppedList(f, ev.dropped) : 'nothing dropped'}`],
  superseded: (ev, f) => [`${f.head('superseded')}${ev.dropped.length ? droppedList(f, ev.dropped) : 'nothing dropped'}`],
  fuse: (ev, f) => [
    `${f.head('fuse (RRF)')}${ev.candidates.length} candidates`,
    ...ev.candidates
      .slice(0, 20)
      .map(
        (c) => `${INDENT}${String(c.rank).padStart(3)}. ${c.id}  rrf ${num(c.rrf, 4)}  evidence ${num(c.evidence)}  [${c.arms.join('+')}]`,
      ),
  ],
  rerank: (ev, f) => [
    `${f.head('rerank')}cross-encoder ${ev.crossEncoder ? f.paint('green', 'scored') : 'none'}, embeddings ${ev.embeddings ? f.paint('green', 'yes') : 'none'}${ev.degraded.length ? `  (${ev.degraded.join('; ')})` : ''}`,
  ],
  relevance: relevanceLines,
  abstain: abstainLines,
  score: scoreLines,
  quarantine: keptLines,
  confidence: keptLines,
  mmr: keptLines,
  budget: keptLines,
  'ood-gate': oodLines,
  // Several KBs read together: a labelled rule above each KB's block, and above the fused result.
  kb: (ev, f) => [f.paint('bold', ev.kb === 0 ? `── ${ev.label}` : `── KB ${ev.kb} of ${ev.of}: ${ev.label}  ${f.paint('dim', ev.root)}`)],
  // Only a sink that times the stages gets these (a hook's stage clock), never a trace.
  time: (ev, f) => [`${f.head('time')}${ev.of} at ${num(ev.t, 1)}`],
  result: (ev, f) => [
    `${f.head('result')}${ev.ids.length} notes in ${num(ev.ms, 1)} ms${ev.cacheTier ? ` (cache ${ev.cacheTier})` : ''}: ${list(ev.ids.map((id, i) => `${id} ${num(ev.scores[i] ?? 0, 3)}`))}`,
    ...(ev.degraded.length ? [`${INDENT}degraded: ${ev.degraded.join(', ')}`] : []),
  ],
};

/** One event as human-readable lines. */
export function formatEvent(ev: TraceEvent, paint: Paint): string[] {
  const at = paint('dim', `${num(ev.t, 1).padStart(8)} ms`);
  const f: Fmt = { paint, head: (name) => `${at}  ${paint('bold', name.padEnd(13))}` };
  return (FORMATTERS[ev.stage] as (ev: TraceEvent, f: Fmt) => string[])(ev, f);
}
