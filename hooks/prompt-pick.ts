/**
 * What the prompt hook gives of its results: whole learnings it is fairly sure of, within its budget,
 * and at most one one-line pointer to a learning it is unsure of (registry.ts selects, eval.ts
 * scores the same pick).
 */
import type { ScoredCandidate } from '../core/types.js';
import { hookRow } from './hook-table.js';
import { oneLine, safeId } from '../sinks/safe-text.js';
import { searchableText } from '../core/note/index.js';
import { coversFewPastedErrors, missesPastedErrors, namesNoPastedError, pastedErrorNames, pastedErrorStems } from './pasted-errors.js';

/** Fetched and kept per prompt (the reference's values), and its budget. */
export const [UPS_FETCH, UPS_KEEP] = [9, 3];
const UPS_CHARS = hookRow('user-prompt-submit').budgetChars;

/**
 * Relevance at which a learning is more likely about the prompt than not: such a learning is given
 * whole. The prompt hook's floor sits lower (RECALL_FLOOR_USER_PROMPT, 0.3): a prompt of a few
 * sentences always carries words a one-line note lacks, so a note that answers it often scores
 * 0.3-0.5. Under this line the hook is unsure, and uncertainty should be cheap: the best such
 * learning is named in a one-line pointer the agent can open (pointerBlock), never given whole, and
 * only one: three guesses would crowd out the prompt.
 */
export const LIKELY_RELEVANCE = 0.5;

/** Share of a note's summary (title, key insight, tags) a prompt must match to name a lexical estimate in
 *  the pointer: words only its body holds are a mention in passing (on the shared prompt sets, 10 of 11
 *  pointers to the right note hold ≥ 0.1, 4 of 22 to a wrong one). */
export const POINTER_SUMMARY_SHARE = 0.1;

/** What the prompt hook injects: whole learnings, at most one pointer, and the rendered block. */
export interface PromptPick {
  kept: ScoredCandidate[];
  pointer: ScoredCandidate | null;
  block: string;
}

/**
 * The one-line pointer to a learning the hook is unsure of: its id and title, and how to read it.
 * The words say what it is, since an agent reads them: maybe related, not known to apply.
 */
export function pointerBlock(c: ScoredCandidate, standalone: boolean): string {
  const id = safeId(c.note.displayId);
  const intro = standalone ? `## A learning that may be related to this prompt` : `Maybe related (not sure it applies):`;
  return [
    intro,
    `- [${id}] ${oneLine(c.note.title)}`,
    `  Not known to apply here: read it only if the task touches it (\`recall show ${id}\`, or the MCP tool \`hydrate\`).`,
  ].join('\n');
}

/**
 * What the prompt hook injects from its (already floored, deduplicated) results: up to UPS_KEEP whole
 * learnings at or over LIKELY_RELEVANCE whose block fits UPS_CHARS (one that does not fit is skipped,
 * not cut), and the unsure one of unsurePointer as a one-line pointer. A floor of 0 ("off", every
 * floor's documented meaning) holds nothing back: every learning goes whole.
 *
 * A learning the session was `given` already (by id or key) keeps its place among the UPS_KEEP, so
 * the next one down does not take it (a repeated prompt is not padded with weaker notes), but it is
 * not sent again, so its text takes none of the budget (a long one given at session start does not
 * crowd out the others). Nor is the pointer, when given: no weaker one takes its place either.
 */
export function wholeLearnings(
  results: readonly ScoredCandidate[],
  renderList: (list: ScoredCandidate[]) => string,
  floor: number,
  given: ReadonlySet<string> = new Set(),
  prompt = '',
): PromptPick {
  const wasGiven = (c: ScoredCandidate): boolean => given.has(c.note.displayId) || given.has(c.note.key);
  const kept: ScoredCandidate[] = [];
  let places = 0;
  let block = '';
  const errors = pastedErrorStems(prompt);
  const names = pastedErrorNames(prompt);
  for (const c of results) {
    if (places >= UPS_KEEP) break;
    if (floor > 0 && (c.relevance < LIKELY_RELEVANCE || onlyLinked(c))) continue;
    // A learning that holds few of the words of the error the prompt pastes, or none of the names
    // it gives (`max_client_conn`, `ECONNREFUSED`), is about another error of the same tool: not
    // given whole, however sure the estimate is of the tool.
    if (floor > 0 && aboutAnotherError(errors, names, searchableText(c.note))) continue;
    if (wasGiven(c)) {
      places += 1;
      continue;
    }
    const next = renderList([...kept, c]);
    if (next.length > UPS_CHARS) continue;
    kept.push(c);
    places += 1;
    block = next;
  }
  const best = unsurePointer(results, floor, prompt);
  const pointer = best && !wasGiven(best) ? best : null;
  return { kept, pointer, block: withPointer(block, pointer) };
}

/**
 * The pointer among the results: the unsure learning (under LIKELY_RELEVANCE) of highest relevance
 * (that is the estimate a pointer states; the ranking also weighs recency), if its summary holds some
 * of the prompt; none when the floor is off. A weaker one is no likelier to be what the prompt is about.
 * Nor is one whose text holds no word of the errors the prompt pastes, or none of the names they
 * give (pasted-errors.ts): it shares the tool, not the problem (`database is locked` and a note on
 * WAL growth).
 */
export function unsurePointer(results: readonly ScoredCandidate[], floor: number, prompt = ''): ScoredCandidate | null {
  if (floor <= 0) return null;
  const best = (ok: (c: ScoredCandidate) => boolean): ScoredCandidate | null =>
    results.reduce<ScoredCandidate | null>((b, c) => (ok(c) && (!b || c.relevance > b.relevance) ? c : b), null);
  // A note the prompt's own words reach first; only without one, a note the graph links to a sure one.
  const pointer = best((c) => c.relevance < LIKELY_RELEVANCE && !onlyLinked(c)) ?? best(onlyLinked);
  if (pointer?.relevanceSource === 'lexical' && (pointer.summaryShare ?? 1) < POINTER_SUMMARY_SHARE) return null;
  if (!pointer) return null;
  const text = searchableText(pointer.note);
  return missesPastedErrors(pastedErrorStems(prompt), text) || namesNoPastedError(pastedErrorNames(prompt), text) ? null : pointer;
}

/**
 * Whether a learning's relevance is only lent by the KB's entity graph (a note linked to one the
 * prompt is about: the same service, a cause). That is related context, not evidence that this prompt
 * is about it: on the shared and held-out prompt sets, 4 of 58 such notes over the line were labelled
 * for their prompt, each next to the note that lent it. Given whole, it was a second, unrelated
 * learning for almost every on-topic prompt of a KB with entity links; it may be the one-line pointer
 * when no note the prompt's own words reach is.
 */
function onlyLinked(c: ScoredCandidate): boolean {
  return c.relevanceSource === 'linked';
}

/** Whether a note's text is about another error than the one the prompt pastes (pasted-errors.ts), read once. */
function aboutAnotherError(errors: ReadonlySet<string>, names: ReadonlySet<string>, text: string): boolean {
  return coversFewPastedErrors(errors, text) || namesNoPastedError(names, text);
}

/** The block of whole learnings with the pointer line after it ('' when there is neither). */
export function withPointer(block: string, pointer: ScoredCandidate | null): string {
  if (!pointer) return block;
  const line = pointerBlock(pointer, !block);
  return block ? `${block.trimEnd()}\n\n${line}\n` : `${line}\n`;
}
