/**
 * BM25 arm through qmd (`qmd search QUERY -c <collection> --json`), for users who keep a qmd index
 * of their notes.
 *
 * qmd ANDs every word of a search, so a sentence-shaped prompt matches nothing. The arm therefore
 * sends keyword queries: the query's content terms together (precise when they all occur), and
 * each of its most specific terms alone (OR semantics), at most QMD_MAX_QUERIES processes, run
 * concurrently, fused by reciprocal rank (the all-terms list first). Results are qmd paths
 * (`qmd://<collection>/<rel>`), resolved under the KB's documents/ folder through our index.
 * If every query fails the arm errors with qmd's stderr; if some fail, the rest are used.
 */
import { catchError, defer, from, map, mergeMap, of, toArray, type Observable } from 'rxjs';
import { command$, stderrTail } from './exec.js';
import { type IndexHandle, notesByPaths } from '../index/index.js';
import { contentTerms } from '../../core/terms.js';
import { reciprocalRankFusion } from '../../core/rrf.js';
import type { ArmHit } from '../../core/types.js';

/** Keyword queries per recall: the all-terms query plus up to 4 single terms. */
export const QMD_MAX_QUERIES = 5;
/** qmd processes in flight at once (each is a short Node process). */
const QMD_CONCURRENCY = 3;

/** The keyword queries sent to qmd for a prompt (see module doc); [] when it has no content terms. */
export function qmdKeywordQueries(query: string): string[] {
  const terms = contentTerms(query);
  if (terms.length === 0) return [];
  const singles = [...terms].sort((a, b) => b.length - a.length).slice(0, QMD_MAX_QUERIES - 1);
  return terms.length > 1 ? [terms.join(' '), ...singles] : singles;
}

/** Relative paths (under the collection root) in qmd output: its JSON form, else its text form. */
export function parseQmdOutput(stdout: string, collection: string): string[] {
  const prefix = `qmd://${collection}/`;
  const paths: string[] = [];
  try {
    const data = JSON.parse(stdout) as unknown;
    if (Array.isArray(data)) {
      for (const row of data) {
        const file = row && typeof row === 'object' ? (row as Record<string, unknown>)['file'] : undefined;
        if (typeof file === 'string' && file.startsWith(prefix)) paths.push(file.slice(prefix.length));
      }
      return [...new Set(paths)];
    }
  } catch {
    /* not JSON: older qmd text output */
  }
  const re = new RegExp(`qmd://${collection.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(\\S+?\\.md)`, 'g');
  for (const m of stdout.matchAll(re)) paths.push(m[1]!);
  return [...new Set(paths)];
}

export interface QmdArmOptions {
  bin: string;
  collection: string;
  env: Readonly<Record<string, string | undefined>>;
  index: IndexHandle;
  limit: number;
}

type Sub = { ok: true; paths: string[] } | { ok: false; message: string };

export function qmdArm(query: string, opts: QmdArmOptions): Observable<ArmHit[]> {
  return defer(() => {
    const queries = qmdKeywordQueries(query);
    if (queries.length === 0) return of([]);
    return from(queries).pipe(
      mergeMap(
        (q, i) =>
          command$(opts.bin, ['search', q, '-c', opts.collection, '--json', '-n', String(opts.limit)], { env: opts.env }).pipe(
            map((r): Sub & { i: number } =>
              r.exitCode === 0
                ? { i, ok: true, paths: parseQmdOutput(r.stdout, opts.collection) }
                : { i, ok: false, message: `qmd search exited ${r.exitCode ?? r.signal}${r.stderr ? `: ${stderrTail(r.stderr)}` : ''}` },
            ),
            catchError((err: unknown) =>
              of<Sub & { i: number }>({ i, ok: false, message: err instanceof Error ? err.message : String(err) }),
            ),
          ),
        QMD_CONCURRENCY,
      ),
      toArray(),
      map((subs) => {
        const ok = subs.filter((s): s is { ok: true; paths: string[]; i: number } => s.ok).sort((a, b) => a.i - b.i);
        if (ok.length === 0) throw new Error((subs[0] as { message: string }).message);
        const fused = reciprocalRankFusion(
          ok.map((s) => ({ arm: String(s.i), items: s.paths })),
          (p) => p,
        );
        const notes = notesByPaths(
          opts.index,
          fused.map((f) => `documents/${f.key}`),
        );
        return fused
          .map((f) => ({ note: notes.get(`documents/${f.key}`), score: f.score }))
          .filter((h): h is ArmHit => h.note !== undefined && h.note.location === 'documents')
          .slice(0, opts.limit);
      }),
    );
  });
}
