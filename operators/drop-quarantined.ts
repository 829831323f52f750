/**
 * Quarantine stage: drops fleet-imported notes marked `quarantine` unless they are included
 * (--include-quarantined, implied by --format fleet-context). Empty in → empty out.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import { dropping } from './drops.js';

/** Fleet-imported notes with `quarantine` set are dropped unless included (fleet-context implies it). */
export function dropQuarantined(include: boolean): OperatorFunction<RecallState, RecallState> {
  return map((state) =>
    include
      ? state
      : dropping(
          state,
          state.selected.filter((c) => !c.note.quarantine),
          'quarantine',
          () => 'quarantined fleet note',
        ),
  );
}
