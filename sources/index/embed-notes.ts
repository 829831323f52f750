/**
 * Fills in note vectors for the vector arm: live notes without a current vector from the embedding
 * model are embedded in batches (through the model client: daemon or in-process) and stored with
 * the model name and the note's content hash, so an edited note or a model change is re-embedded.
 * It lives with the index, not with the models: it writes the index and reaches the model only
 * through the ModelClient port, so sources/index/ imports sources/models/ (the vector codec) and
 * never the other way round.
 */
import { lastValueFrom, timeout } from 'rxjs';
import type { ModelClient } from '../../core/ports.js';
import type { IndexHandle } from './handle.js';
import { countMissingVectors, notesMissingVectors, saveVectors } from './vectors.js';

/** Notes embedded per model call. */
export const EMBED_BATCH = 16;

export interface EmbedReport {
  embedded: number;
  /** Notes still without a vector when the run stopped (max reached). */
  remaining: number;
}

/**
 * Embed up to `max` notes. Throws when the model client cannot embed (the caller records why).
 * `onProgress(done, total)` is called after each batch.
 */
export async function embedMissing(
  h: IndexHandle,
  client: ModelClient,
  opts: {
    max: number;
    onProgress?: (done: number, total: number) => void;
    /** Stop (abort the model call) after this many ms. */ budgetMs?: number;
  },
): Promise<EmbedReport> {
  const model = client.models.embed;
  if (!model) throw new Error('no embedding model installed');
  const total = Math.min(opts.max, countMissingVectors(h, model));
  if (total === 0) return { embedded: 0, remaining: 0 };
  let embedded = 0;
  const deadline = opts.budgetMs !== undefined ? Date.now() + opts.budgetMs : Infinity;
  while (embedded < opts.max) {
    const batch = notesMissingVectors(h, model, Math.min(EMBED_BATCH, opts.max - embedded));
    if (batch.length === 0) break;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`embedding stopped at the ${opts.budgetMs} ms budget after ${embedded} notes`);
    const call$ = client.embedTexts(batch.map((b) => b.text));
    // Unsubscribing on timeout aborts the model call (no request left running behind us).
    const res = await lastValueFrom(Number.isFinite(left) ? call$.pipe(timeout({ first: left })) : call$);
    if (!res.available) throw new Error(res.error);
    saveVectors(
      h,
      model,
      batch.map((b, i) => ({ path: b.path, contentHash: b.contentHash, vector: res.vectors[i]! })),
    );
    embedded += batch.length;
    opts.onProgress?.(embedded, total);
  }
  return { embedded, remaining: countMissingVectors(h, model) };
}
