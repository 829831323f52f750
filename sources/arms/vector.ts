/**
 * Embedded vector arm: the notes whose stored vectors are nearest to the query's embedding
 * (cosine), computed by the model client (the daemon keeps each KB's vector matrix in memory).
 *
 * Unavailable — with the reason as its degradation — when no embedding model is installed, when the
 * index holds no vectors yet ("run recall index"), when they were made by another model ("reindex
 * needed"), or when the index lives in memory (the daemon cannot read it).
 */
import { defer, map, type Observable } from 'rxjs';
import { ArmUnavailableError } from '../../core/errors.js';
import type { ModelClient } from '../../core/ports.js';
import type { ArmHit } from '../../core/types.js';
import { notesByPaths, vectorCounts, type IndexHandle } from '../index/index.js';

export function vectorArm(query: string, limit: number, index: IndexHandle, client: ModelClient, generation: number): Observable<ArmHit[]> {
  return defer(() => {
    const model = client.models.embed;
    if (!model) throw new ArmUnavailableError('vector', 'no embedding model installed (run `recall models pull`)');
    if (index.file === ':memory:') throw new ArmUnavailableError('vector', 'the index is in memory (state dir not writable); no vectors');
    const counts = vectorCounts(index, model);
    if (counts.current === 0) {
      throw new ArmUnavailableError(
        'vector',
        counts.otherModel > 0
          ? `reindex needed: the stored vectors were made by ${counts.otherModelName}, the embedding model is ${model} (run \`recall index\`)`
          : 'vector index not built yet (run `recall index`)',
      );
    }
    return client.knn(index.file, generation, query, limit).pipe(
      map((res) => {
        if (!res.available) throw new ArmUnavailableError('vector', res.error);
        const notes = notesByPaths(
          index,
          res.hits.map((h) => h.path),
        );
        return res.hits.flatMap((h) => {
          const note = notes.get(h.path);
          return note && note.location === 'documents' ? [{ note, score: h.score }] : [];
        });
      }),
    );
  });
}
