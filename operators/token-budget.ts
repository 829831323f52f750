/**
 * Token budget stage: caps what a recall injects into the agent's context.
 */
import { map, type OperatorFunction } from 'rxjs';
import type { RecallState } from '../core/state.js';
import { dropping } from './drops.js';
import { estimateTokens } from '../core/terms.js';
import type { ScoredCandidate } from '../core/types.js';

/** Token budget: keep notes in order until the estimate would exceed `maxTokens`; the first is always kept. 0 = off. */
export function tokenBudget(maxTokens: number): OperatorFunction<RecallState, RecallState> {
  return map((state) => {
    if (maxTokens <= 0 || state.selected.length === 0) return state;
    const keep: ScoredCandidate[] = [];
    let total = 0;
    for (const c of state.selected) {
      const t = estimateTokens(c.note.chunkText);
      if (keep.length > 0 && total + t > maxTokens) break;
      keep.push(c);
      total += t;
    }
    return dropping(state, keep, 'budget', () => `over --max-tokens ${maxTokens}`);
  });
}
