/**
 * Writing changed KB files into the index: one prepared statement per table, the counters of the
 * refresh in progress, and what a removed or broken file takes out of every table.
 */
import { createHash } from 'node:crypto';
import { sqliteErrorCode, type SqlStatement } from '../sqlite/index.js';
import { isMemory, isMemoryIndex, parseNote, str, type FleetLookup, type Note } from '../../core/note/index.js';
import { loadFleetLedger } from './fleet-ledger.js';
import { parseYamlMapping } from '../../core/frontmatter.js';
import { type KbFile, type WalkProblem, decoratorFor, readText } from '../kb/index.js';
import { GraphWriter, graphFromMapping } from './entity-graph.js';
import { KeyClaims } from './key-claims.js';
import { noteRow } from './schema.js';
import type { IndexHandle } from './handle.js';

/** What the index remembers of a file: enough to tell whether it changed since. */
export interface KnownFile {
  mtime_ms: number;
  size: number;
  content_hash: string | null;
  /** The warning the file's note was indexed with (another note held its key), or null. */
  warning: string | null;
}

/** Counters of one refresh (rolled back with a batch that failed). */
export interface RefreshCounts {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  generation: number;
  newProblems: WalkProblem[];
}

/** Ids a note declares it replaces (`supersedes`: a string or a list). */
function supersedesTargets(note: Note): string[] {
  const v = note.frontmatter['supersedes'];
  const list = Array.isArray(v) ? v : [v];
  const declared = list.map(str).filter((t) => t && t.toLowerCase() !== 'null');
  // A memory that says it replaces [[name]] (core/note: replacedLinks) names the older one by its
  // `name:`, which findSupersededBy matches as well as keys.
  return [...new Set([...declared, ...(note.replaces ?? [])])];
}

function prepareStatements(h: IndexHandle) {
  const db = h.db;
  return {
    upsertFile: db.prepare(
      `INSERT INTO files(path, kind, mtime_ms, size, content_hash, problem, warning)
     VALUES (@path, @kind, @mtime_ms, @size, @content_hash, @problem, @warning)
     ON CONFLICT(path) DO UPDATE SET kind=excluded.kind, mtime_ms=excluded.mtime_ms, size=excluded.size,
       content_hash=excluded.content_hash, problem=excluded.problem, warning=excluded.warning`,
    ),
    deleteFile: db.prepare(`DELETE FROM files WHERE path = ?`),
    deleteNote: db.prepare(`DELETE FROM notes WHERE path = ?`),
    deleteSidecar: db.prepare(`DELETE FROM sidecars WHERE path = ?`),
    deleteSupersedes: db.prepare(`DELETE FROM supersedes WHERE by_path = ?`),
    insertSupersedes: db.prepare(`INSERT INTO supersedes(target, by_path, by_key) VALUES (?, ?, ?)`),
    deleteVector: db.prepare(`DELETE FROM vectors WHERE path = ?`),
    upsertNote: db.prepare(
      `INSERT INTO notes(path, key, location, date_ms, content_hash, declared_hash, title, tags, insight, extra, body, chunk, data, episode)
     VALUES (@path, @key, @location, @date_ms, @content_hash, @declared_hash, @title, @tags, @insight, @extra, @body, @chunk, @data, @episode)
     ON CONFLICT(path) DO UPDATE SET key=excluded.key, location=excluded.location, date_ms=excluded.date_ms,
       content_hash=excluded.content_hash, declared_hash=excluded.declared_hash, title=excluded.title, tags=excluded.tags,
       insight=excluded.insight, extra=excluded.extra, body=excluded.body, chunk=excluded.chunk, data=excluded.data, episode=excluded.episode`,
    ),
    upsertSidecar: db.prepare(`INSERT OR REPLACE INTO sidecars(path, note_path, document_id, data) VALUES (?, ?, ?, ?)`),
    // Incremented in SQL, inside the writer's transaction: another writer of the same file (a vector
    // save, another process's refresh) may have bumped it since this refresh read it, and a
    // generation must never be handed out twice (caches and the server's lookup threads key on it).
    bumpGeneration: db.prepare(`UPDATE meta SET v = CAST(v AS INTEGER) + 1 WHERE k = 'generation'`),
    generation: db.prepare(`SELECT CAST(v AS INTEGER) AS g FROM meta WHERE k = 'generation'`),
  } satisfies Record<string, SqlStatement>;
}

export class IndexWriter {
  private readonly st: ReturnType<typeof prepareStatements>;
  private readonly graph: GraphWriter;
  private readonly claims: KeyClaims;
  private fleet: FleetLookup | undefined;

  /**
   * `present`: the paths of the walk in progress; `recheck`: files to parse again even when their
   * text did not change (a note indexed under a distinct key may have its own back).
   */
  constructor(
    private readonly h: IndexHandle,
    private readonly force: boolean,
    private readonly known: ReadonlyMap<string, KnownFile>,
    readonly counts: RefreshCounts,
    present: ReadonlySet<string>,
    private readonly recheck: ReadonlySet<string> = new Set(),
  ) {
    this.st = prepareStatements(h);
    this.graph = new GraphWriter(h.db);
    this.claims = new KeyClaims(h.db, present);
  }

  /** Apply one changed file; returns whether the index content changed. */
  applyFile(f: KbFile): boolean {
    const prev = this.known.get(f.rel);
    const read = readText(f);
    let problem: string | null;
    let warning: string | null = null;
    let hash: string | null = null;
    if ('problem' in read) {
      problem = read.problem;
    } else if (f.kind === 'note' && isMemoryIndex(f.rel, read.text)) {
      problem = "Claude Code's index of the other memory files (links only), not a learning";
    } else {
      hash = createHash('sha256').update(read.text).digest('hex');
      if (!this.force && prev && prev.content_hash === hash && !this.recheck.has(f.rel) && !datedByFile(f, read.text)) {
        // Touched but identical: record the new stat data only.
        const stat = { path: f.rel, kind: f.kind, mtime_ms: f.mtimeMs, size: f.size, content_hash: hash };
        this.st.upsertFile.run({ ...stat, problem: null, warning: prev.warning });
        this.counts.unchanged += 1;
        return false;
      }
      ({ problem, warning } = this.storeContent(f, read.text));
    }
    if (problem !== null) {
      this.forget(f.rel);
      this.counts.newProblems.push({ rel: f.rel, message: problem });
    }
    this.st.upsertFile.run({ path: f.rel, kind: f.kind, mtime_ms: f.mtimeMs, size: f.size, content_hash: hash, problem, warning });
    if (prev) this.counts.updated += 1;
    else this.counts.added += 1;
    return true;
  }

  /** Count one more committed change of the index content. */
  bumpGeneration(): void {
    this.st.bumpGeneration.run();
    this.counts.generation = (this.st.generation.get() as { g: number }).g;
  }

  /** Drop the files that left the KB, and prune what only they referred to. */
  removeGone(gone: readonly string[]): void {
    for (const p of gone) {
      this.st.deleteFile.run(p);
      this.forget(p);
      this.st.deleteVector.run(p);
      this.counts.removed += 1;
    }
    const c = this.counts;
    if (c.updated + c.removed > 0 || this.force) this.graph.pruneOrphans();
    if (c.removed > 0 || (this.force && c.added + c.updated === 0)) this.bumpGeneration();
  }

  /**
   * Store a note or an entity sidecar; returns the file's problem when it cannot be parsed, and the
   * warning a note stored all the same comes with.
   */
  private storeContent(f: KbFile, text: string): { problem: string | null; warning: string | null } {
    try {
      if (f.kind === 'note') return { problem: null, warning: this.storeNote(f, text) };
      this.storeSidecar(f, text);
      return { problem: null, warning: null };
    } catch (err) {
      // A database failure ends the batch (rolled back); anything else is this file's problem.
      if (sqliteErrorCode(err) !== null) throw err;
      return { problem: (err as Error).message.split('\n')[0] ?? 'unreadable', warning: null };
    }
  }

  private storeNote(f: KbFile, text: string): string | null {
    const parsed = memoryDated(parseNote(text, f.rel, f.location, this.fleetLookup()), f.mtimeMs);
    // A note of an attached root (the team shard) gets its provenance from that root.
    const decorate = decoratorFor(this.h.attached, f.rel);
    const decorated = decorate ? decorate(parsed, f.abs) : parsed;
    if (!decorated) {
      // Left out of this index (its root says so): drop what an earlier refresh stored for it.
      this.forget(f.rel);
      return null;
    }
    // Two files of the KB that come to one key would hide each other: the second gets its own.
    const claimed = decorate ? { key: decorated.key, warning: null } : this.claims.claim(decorated);
    const note = claimed.key === decorated.key ? decorated : { ...decorated, key: claimed.key, displayId: claimed.key };
    this.st.upsertNote.run(noteRow(note));
    this.st.deleteSupersedes.run(f.rel);
    // An unreviewed note (an agent's word, core/note/review.ts) retires nothing by naming it: until
    // a person accepts it, only an old note's own `superseded_by` retires that note.
    if (note.location === 'documents' && !note.review)
      for (const t of supersedesTargets(note)) this.st.insertSupersedes.run(t, f.rel, note.key);
    this.graph.replace(f.rel, f.rel, note.key, graphFromMapping(note.frontmatter['entities'], note.frontmatter['causal_relations']));
    return claimed.warning;
  }

  private storeSidecar(f: KbFile, text: string): void {
    const data = parseYamlMapping(text);
    const notePath = f.rel.replace(/\.entities\.yaml$/, '.md');
    this.st.upsertSidecar.run(f.rel, notePath, str(data['document_id']) || null, JSON.stringify(data));
    this.graph.replace(f.rel, notePath, str(data['document_id']) || null, graphFromMapping(data['entities'], data['relationships']));
  }

  /** Everything a file contributed, except its stat row and its vectors. */
  private forget(rel: string): void {
    this.st.deleteNote.run(rel);
    this.st.deleteSupersedes.run(rel);
    this.graph.remove(rel);
    this.st.deleteSidecar.run(rel);
  }

  private fleetLookup(): FleetLookup | undefined {
    return this.h.fleetLedger ? (this.fleet ??= loadFleetLedger(this.h.fleetLedger)) : undefined;
  }
}

/**
 * A Claude Code memory with no date of its own (no `modified`) is dated by its file's mtime, as
 * Claude Code dates it: so the newer of two memories on one subject is the newer for recall too.
 */
function memoryDated(note: Note, mtimeMs: number | undefined): Note {
  if (note.dateMs !== null || !mtimeMs || !isMemory(note.frontmatter)) return note;
  return { ...note, dateMs: mtimeMs, recencyMs: note.recencyMs ?? mtimeMs };
}

/** Whether a touched file's stored date is its mtime (an undated memory's), so touching it re-dates it. */
function datedByFile(f: KbFile, text: string): boolean {
  // Only a memory (a `name:` line in its frontmatter) can be dated by its file: others need no parse.
  if (f.kind !== 'note' || !/^name[ \t]*:/m.test(text.slice(0, 4096))) return false;
  try {
    const note = parseNote(text, f.rel, f.location);
    return note.dateMs === null && isMemory(note.frontmatter);
  } catch {
    // A note that does not parse: stored again, which records its problem (a throw here failed the batch).
    return true;
  }
}
