/**
 * Drops retired notes after fusion, before rerank, so a replaced learning never reaches the agent:
 * - frontmatter: `superseded_by` set, or `status` superseded/archived, or a live note that declares
 *   `supersedes: <this id>`;
 * - a note whose id or content hash belongs to a note in archived/ or documents/.forgotten/;
 * - a note whose reflect.db ledger row has is_latest = 0 (linked by artifact file name or content hash);
 * - a Claude Code memory another candidate says in words is gone (core/note statedReplacements).
 * These are the retirement marks of the reflect-kb reference format, honoured for compatibility.
 *
 * The lookups go through a RetiredLookup port (no IO here). Disabled by
 * REFLECT_RECALL_INCLUDE_SUPERSEDED=1. If a lookup fails, the candidates pass unfiltered by that
 * lookup and the failure is recorded as a degradation. Empty in → empty out.
 */
import path from 'node:path';
import { map, type OperatorFunction } from 'rxjs';
import { errorMessage } from '../core/errors.js';
import type { RetiredLookup } from '../core/ports.js';
import type { RecallState } from '../core/state.js';
import type { Candidate, Degradation, Drop } from '../core/types.js';
import { statedReplacements } from '../core/note/index.js';

export interface FilterSupersededOptions {
  enabled: boolean;
  lookup: RetiredLookup;
}

/** Reason a candidate is retired by its own frontmatter, or null. */
export function frontmatterRetirement(c: Candidate): string | null {
  if (c.note.supersededBy) return `superseded_by ${c.note.supersededBy}`;
  if (c.note.status === 'superseded' || c.note.status === 'archived') return `status ${c.note.status}`;
  return null;
}

const hashesOf = (c: Candidate): string[] => [c.note.contentHash, ...(c.note.declaredHash ? [c.note.declaredHash] : [])];

/** Candidates retired in the index: declared superseded by a live note, or with a copy in archived/ or .forgotten/. */
function indexRetirements(rest: readonly Candidate[], lookup: RetiredLookup, reasons: Map<string, string>): void {
  const keys = rest.map((c) => c.note.key);
  for (const [key, by] of lookup.supersededBy(keys)) reasons.set(key, `superseded by ${by}`);
  const retired = lookup.retiredCopies(keys, rest.flatMap(hashesOf));
  for (const c of rest) {
    const hit = retired.find(
      (r) =>
        r.key === c.note.key || hashesOf(c).includes(r.contentHash) || (r.declaredHash !== null && hashesOf(c).includes(r.declaredHash)),
    );
    if (hit) reasons.set(c.note.key, `${hit.location === 'forgotten' ? 'forgotten' : 'archived'} copy at ${hit.path}`);
  }
}

/** Candidates whose ledger row is no longer the latest version. */
function ledgerRetirements(left: readonly Candidate[], lookup: RetiredLookup, reasons: Map<string, string>): void {
  const rows = lookup.ledgerRetired(
    left.map((c) => path.basename(c.note.path)),
    left.flatMap(hashesOf),
  );
  for (const c of left) {
    const name = path.basename(c.note.path);
    const row = rows.find(
      (r) =>
        (r.artifactPath !== null && path.basename(r.artifactPath) === name) ||
        (r.contentHash !== null && hashesOf(c).includes(r.contentHash)),
    );
    if (row) reasons.set(c.note.key, 'ledger row is_latest = 0');
  }
}

/** Why each retired candidate is retired (by note key), and the lookups that failed. */
export function retirementReasons(
  candidates: readonly Candidate[],
  lookup: RetiredLookup,
): { reasons: Map<string, string>; degraded: Degradation[] } {
  const reasons = new Map<string, string>();
  const degraded: Degradation[] = [];
  for (const c of candidates) {
    const r = frontmatterRetirement(c);
    if (r) reasons.set(c.note.key, r);
  }
  const rest = candidates.filter((c) => !reasons.has(c.note.key));
  if (rest.length) {
    try {
      indexRetirements(rest, lookup, reasons);
    } catch (err) {
      degraded.push({ stage: 'filter-superseded', reason: 'error', message: `index lookup failed: ${errorMessage(err)}` });
    }
  }
  const left = rest.filter((c) => !reasons.has(c.note.key));
  if (left.length) {
    try {
      ledgerRetirements(left, lookup, reasons);
    } catch (err) {
      degraded.push({ stage: 'filter-superseded', reason: 'error', message: `ledger lookup failed: ${errorMessage(err)}` });
    }
  }
  // A memory another candidate says in words is gone (core/note statedReplacements), when that one stands.
  for (const [older, newer] of statedReplacements(candidates.map((c) => c.note)))
    if (!reasons.has(older) && !reasons.has(newer)) reasons.set(older, `superseded by ${newer} (it says what of this one is gone)`);
  return { reasons, degraded };
}

export function filterSuperseded(opts: FilterSupersededOptions): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (!opts.enabled || state.candidates.length === 0) return state;
    const { reasons, degraded } = retirementReasons(state.candidates, opts.lookup);
    const drops: Drop[] = [...reasons].map(([key, reason]) => ({ key, stage: 'superseded', reason }));
    return {
      ...state,
      candidates: state.candidates.filter((c) => !reasons.has(c.note.key)),
      retired: [...state.retired, ...state.candidates.filter((c) => reasons.has(c.note.key))],
      drops: [...state.drops, ...drops],
      degraded: [...state.degraded, ...degraded],
    };
  });
}
