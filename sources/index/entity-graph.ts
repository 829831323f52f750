/**
 * The entity graph of a KB, built at index time and searched by the embedded graph arm.
 *
 * Sources: `*.entities.yaml` sidecars (`entities: [{name, type, description, aliases?}]`,
 * `relationships: [{source, target, type, strength 1-10, tvalid?, tvalid_end?, superseded_by?}]`) and
 * note frontmatter (`entities: [name | {name, type, description}]`, `causal_relations: [{source,
 * target, type}]`). Entity names are normalised (lower case, spaces/underscores → hyphens, quotes
 * stripped), so the same entity named by several notes is one node: that shared node is what links
 * the notes.
 *
 * Rows are keyed by the file they came from, so a changed or deleted sidecar or note replaces only
 * its own mentions and edges.
 */
import type { SqlDatabase } from '../sqlite/index.js';
import { str } from '../../core/note/index.js';
import { parseLooseDate } from '../../core/dates.js';

export const GRAPH_DDL = `
CREATE TABLE IF NOT EXISTS entities (
  id INTEGER PRIMARY KEY, norm TEXT NOT NULL UNIQUE, words TEXT NOT NULL, type TEXT NOT NULL DEFAULT '',
  aliases TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS mentions (
  entity_id INTEGER NOT NULL, note_path TEXT NOT NULL, note_key TEXT, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS mentions_entity ON mentions(entity_id);
CREATE INDEX IF NOT EXISTS mentions_source ON mentions(source);
CREATE TABLE IF NOT EXISTS edges (
  src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL, strength REAL NOT NULL,
  valid_end_ms INTEGER, retired INTEGER NOT NULL DEFAULT 0, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS edges_src ON edges(src);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
CREATE INDEX IF NOT EXISTS edges_source ON edges(source);
CREATE VIRTUAL TABLE IF NOT EXISTS entity_fts USING fts5(
  words, aliases, description, content='entities', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS entities_ai AFTER INSERT ON entities BEGIN
  INSERT INTO entity_fts(rowid, words, aliases, description) VALUES (new.id, new.words, new.aliases, new.description);
END;
CREATE TRIGGER IF NOT EXISTS entities_ad AFTER DELETE ON entities BEGIN
  INSERT INTO entity_fts(entity_fts, rowid, words, aliases, description) VALUES ('delete', old.id, old.words, old.aliases, old.description);
END;
CREATE TRIGGER IF NOT EXISTS entities_au AFTER UPDATE ON entities BEGIN
  INSERT INTO entity_fts(entity_fts, rowid, words, aliases, description) VALUES ('delete', old.id, old.words, old.aliases, old.description);
  INSERT INTO entity_fts(rowid, words, aliases, description) VALUES (new.id, new.words, new.aliases, new.description);
END;
`;

export const GRAPH_TABLES = ['entity_fts', 'entities', 'mentions', 'edges'] as const;

export interface EntityDecl {
  norm: string;
  type: string;
  description: string;
  aliases: string[];
}

export interface EdgeDecl {
  src: string;
  dst: string;
  type: string;
  strength: number;
  validEndMs: number | null;
  retired: boolean;
}

export interface GraphRows {
  entities: EntityDecl[];
  edges: EdgeDecl[];
}

/** Entity identity: lower case, surrounding quotes stripped, runs of spaces/underscores → one hyphen. */
export function normaliseEntity(name: unknown): string {
  return str(name)
    .replace(/^["'`]+|["'`]+$/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-{2,}/g, '-');
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function entityDecl(e: unknown): EntityDecl | null {
  if (typeof e === 'string') {
    const norm = normaliseEntity(e);
    return norm ? { norm, type: '', description: '', aliases: [] } : null;
  }
  if (!e || typeof e !== 'object') return null;
  const o = e as Record<string, unknown>;
  const norm = normaliseEntity(o['name']);
  if (!norm) return null;
  return {
    norm,
    type: str(o['type']).toLowerCase(),
    description: str(o['description']),
    aliases: asList(o['aliases']).map(str).filter(Boolean),
  };
}

/** Default relationship strength when a sidecar gives none (the reference's default). */
const DEFAULT_STRENGTH = 5;

function edgeDecl(r: unknown): EdgeDecl | null {
  if (!r || typeof r !== 'object') return null;
  const o = r as Record<string, unknown>;
  const src = normaliseEntity(o['source']);
  const dst = normaliseEntity(o['target']);
  if (!src || !dst || src === dst) return null;
  const s = typeof o['strength'] === 'number' ? o['strength'] : Number(str(o['strength']) || NaN);
  return {
    src,
    dst,
    type: str(o['type']).toLowerCase() || 'relates_to',
    strength: Number.isFinite(s) ? Math.min(10, Math.max(0, s)) : DEFAULT_STRENGTH,
    validEndMs: parseLooseDate(o['tvalid_end'])?.getTime() ?? null,
    retired: str(o['superseded_by']) !== '' && str(o['superseded_by']).toLowerCase() !== 'null',
  };
}

/** Entities and edges declared by a sidecar mapping; relationship endpoints count as entities too. */
export function graphFromMapping(entities: unknown, relations: unknown): GraphRows {
  const byNorm = new Map<string, EntityDecl>();
  for (const e of asList(entities)) {
    const d = entityDecl(e);
    if (d && !byNorm.has(d.norm)) byNorm.set(d.norm, d);
  }
  const edges: EdgeDecl[] = [];
  for (const r of asList(relations)) {
    const d = edgeDecl(r);
    if (!d) continue;
    edges.push(d);
    for (const n of [d.src, d.dst]) if (!byNorm.has(n)) byNorm.set(n, { norm: n, type: '', description: '', aliases: [] });
  }
  return { entities: [...byNorm.values()], edges };
}

/** Prepared statements that replace one source file's graph rows. */
export class GraphWriter {
  private readonly upsertEntity;
  private readonly entityId;
  private readonly enrich;
  private readonly insertMention;
  private readonly insertEdge;
  private readonly dropMentions;
  private readonly dropEdges;

  constructor(private readonly db: SqlDatabase) {
    this.upsertEntity = db.prepare(
      `INSERT INTO entities(norm, words, type, aliases, description) VALUES (@norm, @words, @type, @aliases, @description)
       ON CONFLICT(norm) DO NOTHING`,
    );
    this.entityId = db.prepare(`SELECT id, type, aliases, description FROM entities WHERE norm = ?`);
    this.enrich = db.prepare(`UPDATE entities SET type = ?, aliases = ?, description = ? WHERE id = ?`);
    this.insertMention = db.prepare(`INSERT INTO mentions(entity_id, note_path, note_key, source) VALUES (?, ?, ?, ?)`);
    this.insertEdge = db.prepare(`INSERT INTO edges(src, dst, type, strength, valid_end_ms, retired, source) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.dropMentions = db.prepare(`DELETE FROM mentions WHERE source = ?`);
    this.dropEdges = db.prepare(`DELETE FROM edges WHERE source = ?`);
  }

  private id(e: EntityDecl): number {
    this.upsertEntity.run({
      norm: e.norm,
      words: e.norm.replace(/-/g, ' '),
      type: e.type,
      aliases: e.aliases.join(' '),
      description: e.description,
    });
    const row = this.entityId.get(e.norm) as { id: number; type: string; aliases: string; description: string };
    // The first file to name an entity may know less about it than a later one: fill blanks.
    if ((!row.description && e.description) || (!row.type && e.type) || (e.aliases.length && !row.aliases)) {
      this.enrich.run(row.type || e.type, row.aliases || e.aliases.join(' '), row.description || e.description, row.id);
    }
    return row.id;
  }

  /** Replace the rows that came from `source`; mentions point at the note at `notePath` (and key, if known). */
  replace(source: string, notePath: string, noteKey: string | null, rows: GraphRows): void {
    this.remove(source);
    const ids = new Map<string, number>();
    for (const e of rows.entities) {
      const id = this.id(e);
      ids.set(e.norm, id);
      this.insertMention.run(id, notePath, noteKey, source);
    }
    for (const e of rows.edges) {
      const src = ids.get(e.src);
      const dst = ids.get(e.dst);
      if (src !== undefined && dst !== undefined)
        this.insertEdge.run(src, dst, e.type, e.strength, e.validEndMs, e.retired ? 1 : 0, source);
    }
  }

  remove(source: string): void {
    this.dropMentions.run(source);
    this.dropEdges.run(source);
  }

  /** Drop entities no file mentions or links any more (run once after a refresh that changed files). */
  pruneOrphans(): void {
    this.db.exec(
      `DELETE FROM entities WHERE id NOT IN (SELECT entity_id FROM mentions)
         AND id NOT IN (SELECT src FROM edges) AND id NOT IN (SELECT dst FROM edges)`,
    );
  }
}
