/**
 * Temporal arm: live notes dated inside the window a date phrase of the query names.
 *
 * Notes are ranked by how much of the rest of the query (the date phrase removed) they cover, then
 * by closeness to the middle of the window. At most TEMPORAL_SCAN_CAP in-window notes are
 * considered; forgotten and archived notes are never returned. No constraint → no hits.
 */
import { defer, of, type Observable } from 'rxjs';
import { type IndexHandle, notesInWindow } from '../index/index.js';
import type { TemporalConstraint } from '../../core/temporal-constraint.js';
import { contentTerms, termCoverage } from '../../core/terms.js';
import type { ArmHit } from '../../core/types.js';

/** Upper bound on notes examined per query (keeps a wide window such as "this year" cheap on a large KB). */
export const TEMPORAL_SCAN_CAP = 5000;

export function rankInWindow(query: string, constraint: TemporalConstraint, hits: ArmHit['note'][]): ArmHit[] {
  const lower = query.toLowerCase();
  const matched = constraint.matchedText.toLowerCase();
  const rest = matched && lower.includes(matched) ? lower.replace(matched, ' ') : lower;
  const terms = contentTerms(rest);
  const start = constraint.start.getTime();
  const end = constraint.end.getTime();
  const mid = (start + end) / 2;
  const half = (end - start) / 2;
  const scored = hits.map((note) => {
    const overlap = terms.length ? termCoverage(terms, note.chunkText) : 0;
    const ts = note.dateMs ?? mid;
    const proximity = half <= 0 ? 1 : 1 - Math.min(Math.abs(ts - mid) / half, 1);
    return { note, overlap, proximity };
  });
  scored.sort((a, b) => b.overlap - a.overlap || b.proximity - a.proximity);
  return scored.map((s) => ({ note: s.note, score: s.overlap + s.proximity / 1000 }));
}

export function temporalArm(query: string, constraint: TemporalConstraint, limit: number, index: IndexHandle): Observable<ArmHit[]> {
  return defer(() => {
    const notes = notesInWindow(index, constraint.start.getTime(), constraint.end.getTime(), TEMPORAL_SCAN_CAP);
    return of(rankInWindow(query, constraint, notes).slice(0, limit));
  });
}
