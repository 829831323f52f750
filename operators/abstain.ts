/**
 * Abstention stage: a candidate whose absolute relevance is below the caller's floor is never
 * rendered as a result; when none clears it, the recall returns nothing and says why.
 *
 * - floor ≤ 0 turns the stage off (every candidate passes, nothing is called weak).
 * - Candidates under the floor are dropped (drop stage `relevance-floor`), or, with `keepWeak`, kept
 *   aside as weak matches that a person may still want to see (the CLI shows them under a marked
 *   line; hooks never inject them).
 * - The reason names what decided: a query without content words, the specific query terms that no
 *   note of the KB contains, or the best candidate's relevance against the floor.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import type { ScoredCandidate } from '../core/types.js';
import { dropping } from './filters.js';
import { SPECIFIC_INFO } from './weigh-terms.js';
import { containsTerm, evidenceInWords } from './math/index.js';
import { noteTermsIn } from './estimate-relevance.js';

export interface AbstainOptions {
  /** 0..1; 0 = off. */
  floor: number;
  /** Keep what falls under the floor as weak matches instead of dropping it. */
  keepWeak: boolean;
}

const pct = (x: number): string => x.toFixed(2);

/** Why nothing cleared the floor, in one line. */
export function abstentionReason(state: RecallState, floor: number, best: ScoredCandidate | undefined): string {
  if (state.oodGated) return `the OOD gate emptied the result (best query-term coverage ${pct(state.coverage ?? 0)})`;
  if (state.weighed.length === 0) return 'the query has no content words to match';
  const lacking = state.weighed.filter((t) => t.df === 0 && (t.proper || t.info >= SPECIFIC_INFO)).map((t) => t.word);
  const parts: string[] = [];
  if (lacking.length)
    parts.push(
      `no note mentions ${lacking
        .slice(0, 5)
        .map((w) => `"${w}"`)
        .join(', ')}`,
    );
  // Names the KB knows but that stopped counting as specific (weigh-terms.ts: namesAloneUnspecific).
  // Not when the cross-encoder scored the best note: the rule only shapes the lexical estimate.
  const names = best?.ce != null ? [] : state.weighed.filter((t) => t.proper && !t.specific).map((t) => `"${t.word}"`);
  if (names.length) parts.push(`a name alone (${names.slice(0, 3).join(', ')}) does not make a note about the rest`);
  if (best) {
    const e = state.relevance.get(best.note.key);
    parts.push(
      `best match ${best.note.displayId !== '?' ? best.note.displayId : best.note.key} has relevance ${pct(best.relevance)} < floor ${pct(floor)}${e?.features && e.source === 'lexical' ? `: ${bestEvidence(state, best, e.features)}` : ''}`,
    );
  } else parts.push(state.scored.length ? 'no candidate passed the filters' : 'nothing was retrieved');
  return parts.join('; ');
}

/** The best candidate's evidence and what it lacks, in words (evidenceInWords). */
function bestEvidence(
  state: RecallState,
  best: ScoredCandidate,
  f: NonNullable<NonNullable<ReturnType<RecallState['relevance']['get']>>['features']>,
): string {
  const stems = noteTermsIn(state, best.note);
  const byInfo = [...state.weighed].sort((a, b) => b.info - a.info);
  const has = byInfo.filter((t) => containsTerm(stems, t.stem, t.notVia));
  const matched = has.filter((t) => t.specific).map((t) => t.word);
  // Words no note has are named already ("no note mentions …").
  const missing = byInfo.filter((t) => t.specific && t.df > 0 && !has.includes(t)).map((t) => t.word);
  return evidenceInWords(f, matched, missing);
}

export function abstain(opts: AbstainOptions): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (opts.floor <= 0) return state;
    const strong = state.selected.filter((c) => c.relevance >= opts.floor);
    const weak = state.selected.filter((c) => c.relevance < opts.floor);
    const best = state.selected.reduce<ScoredCandidate | undefined>(
      (m, c) => (m === undefined || c.relevance > m.relevance ? c : m),
      undefined,
    );
    const next = dropping(state, strong, 'relevance-floor', (c) => `relevance ${pct(c.relevance)} < floor ${pct(opts.floor)}`);
    return {
      ...next,
      weak: opts.keepWeak ? weak : [],
      abstained: strong.length === 0 ? abstentionReason(state, opts.floor, best) : null,
    };
  });
}
