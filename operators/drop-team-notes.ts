/**
 * Team notes stage: with the pulled team shard switched off for this call (RECALL_TEAM_NOTES=0),
 * drops the fused candidates that come from it (path under the shard's prefix). The shard stays in
 * the index whatever one call says, so a call that does not want it never changes what the next
 * call finds (an index, or a recall server, shared by calls with other settings). Notes of the live
 * team arm are not the shard's and stay. Empty in → empty out.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import type { Drop } from '../core/types.js';

/** `prefix`: the shard's path prefix in a KB's index (TEAM_PREFIX). */
export function dropTeamNotes(keep: boolean, prefix: string): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (keep || state.candidates.length === 0) return state;
    const inShard = (path: string): boolean => path.startsWith(`${prefix}/`);
    const drops: Drop[] = state.candidates
      .filter((c) => inShard(c.note.path))
      .map((c) => ({ key: c.note.key, stage: 'team notes', reason: 'pulled team note (RECALL_TEAM_NOTES=0)' }));
    if (drops.length === 0) return state;
    return { ...state, candidates: state.candidates.filter((c) => !inShard(c.note.path)), drops: [...state.drops, ...drops] };
  });
}
