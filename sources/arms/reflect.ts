/**
 * Vector and graph arms through the reference engine: `reflect search QUERY --mode naive|local|global
 * --format json`, with GLOBAL_LEARNINGS_PATH set to the KB root (as the reference's own CLI expects).
 *
 * Output shapes: `{"context": "..."}` on success, `{"error": ...}` on an engine failure (exit 0),
 * `{"results": [], "message": "No results found"}` when empty.
 * - naive context: chunks joined by `--New Chunk--`; chunks without frontmatter (continuations,
 *   the engine's "Sorry…" string) are dropped.
 * - local context: CSV sections (-----Reports/Entities/Relationships/Sources-----, rows joined by
 *   ",\t", unquoted, so a Sources row runs until the next `<n>,\t` line). Notes come from the
 *   Sources rows that carry frontmatter, then from the notes that mention the listed entities in
 *   our entity index — the reference parsed none of this, so its graph arm returned nothing.
 * - global context (analyst reports) names no notes; any frontmatter chunks in it are used.
 * Notes found in our index are returned as indexed (full text, real path); others are built from
 * the chunk. A non-zero exit, an error envelope or unparseable output is an error (stderr kept).
 */
import { defer, map, type Observable } from 'rxjs';
import { command$, stderrTail } from './exec.js';
import { splitFrontmatter } from '../../core/frontmatter.js';
import { parseNote, type Note } from '../../core/note/index.js';
import { type IndexHandle, notesByKeys, notesMentioning, normaliseEntity } from '../index/index.js';
import type { ArmHit } from '../../core/types.js';

export type ReflectMode = 'naive' | 'local' | 'global';

const CHUNK_SEPARATOR = '--New Chunk--';

/** Pieces of a context that carry frontmatter (a note's head chunk). */
export function frontmatterChunks(pieces: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of pieces) {
    const piece = raw.trim();
    if (!piece.startsWith('---')) continue;
    try {
      if (Object.keys(splitFrontmatter(piece).frontmatter).length > 0) out.push(piece);
    } catch {
      /* a cut or broken header: not a usable note */
    }
  }
  return out;
}

export function parseNaiveContext(context: string): string[] {
  return frontmatterChunks(context.split(CHUNK_SEPARATOR));
}

/** Rows of one nano-graphrag CSV block: lines starting `<n>,\t` begin a row; others continue it. */
function csvRows(block: string): string[][] {
  const rows: string[] = [];
  for (const line of block.split('\n')) {
    if (/^\d+,\t/.test(line)) rows.push(line);
    else if (rows.length > 0) rows[rows.length - 1] += `\n${line}`;
  }
  return rows.map((r) => r.split(',\t'));
}

function section(context: string, name: string): string | null {
  const re = new RegExp(`-----${name}-----\\s*\`\`\`csv\\n([\\s\\S]*?)\\n?\`\`\``);
  return re.exec(context)?.[1] ?? null;
}

export interface LocalContext {
  /** Source chunks with frontmatter, in the engine's order. */
  chunks: string[];
  /** Entity names, in the engine's order (rank). */
  entities: string[];
}

export function parseLocalContext(context: string): LocalContext {
  const sources = section(context, 'Sources');
  const entities = section(context, 'Entities');
  const chunks = sources ? frontmatterChunks(csvRows(sources).map((cols) => cols.slice(1).join(',\t'))) : [];
  const names = entities
    ? csvRows(entities)
        .map((cols) => normaliseEntity(cols[1] ?? ''))
        .filter(Boolean)
    : [];
  return { chunks, entities: [...new Set(names)] };
}

function notesFromChunks(chunks: readonly string[], index: IndexHandle | null): Note[] {
  const parsed = chunks.map((c, i) => parseNote(c, `reflect:${i}`, 'documents'));
  const indexed = index
    ? notesByKeys(
        index,
        parsed.map((n) => n.key),
      )
    : new Map<string, Note>();
  return parsed.map((n) => {
    const known = indexed.get(n.key);
    return known && known.location === 'documents' ? known : { ...n, path: `reflect:${n.key}` };
  });
}

/** Parse `reflect search --format json` stdout into notes; throws on an error envelope or garbage. */
export function parseReflectOutput(stdout: string, mode: ReflectMode, index: IndexHandle | null): Note[] {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new Error(`reflect search printed output that is not JSON (${stdout.trim().slice(0, 60) || 'empty'})`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('reflect search printed JSON that is not an object');
  const o = data as Record<string, unknown>;
  if (typeof o['error'] === 'string' && o['error']) throw new Error(`reflect search: ${o['error']}`);
  const context = o['context'];
  if (typeof context !== 'string' || context.trim() === '') return [];
  if (mode === 'local') {
    const { chunks, entities } = parseLocalContext(context);
    const fromChunks = notesFromChunks(chunks, index);
    const fromEntities = index ? [...notesMentioning(index, entities).values()].flat() : [];
    const seen = new Set<string>();
    return [...fromChunks, ...fromEntities].filter((n) => (seen.has(n.key) ? false : (seen.add(n.key), true)));
  }
  return notesFromChunks(parseNaiveContext(context), index);
}

export interface ReflectArmOptions {
  bin: string;
  kbRoot: string;
  env: Readonly<Record<string, string | undefined>>;
  index: IndexHandle | null;
  limit: number;
}

export function reflectArm(query: string, mode: ReflectMode, opts: ReflectArmOptions): Observable<ArmHit[]> {
  return defer(() =>
    command$(opts.bin, ['search', query, '--mode', mode, '--format', 'json', '--limit', String(opts.limit)], {
      env: { ...opts.env, GLOBAL_LEARNINGS_PATH: opts.kbRoot },
    }).pipe(
      map((r) => {
        if (r.exitCode !== 0) {
          const why = r.signal ? `killed by ${r.signal}` : `exit ${r.exitCode}`;
          throw new Error(`reflect search --mode ${mode} failed (${why})${r.stderr ? `: ${stderrTail(r.stderr)}` : ''}`);
        }
        const notes = parseReflectOutput(r.stdout, mode, opts.index).slice(0, opts.limit);
        // The engine gives no per-note score: rank order is the signal (evidence falls back to ranks).
        return notes.map((note) => ({ note, score: 0 }));
      }),
    ),
  );
}
