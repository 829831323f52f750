/**
 * Statistics the relevance estimate reads on every recall: term document frequencies from the
 * full-text vocabulary, and which candidate notes the entity graph links.
 */
import type { SqlDatabase, SqlStatement } from '../sqlite/index.js';
import type { IndexHandle } from './handle.js';
import { countNotes } from './lookups.js';

/**
 * Statements the relevance estimate runs on every recall, prepared once per connection. Lists are
 * passed as one JSON array (`json_each`) so the statement text does not change with their length.
 */
interface RelevanceStatements {
  df: SqlStatement;
  shared: SqlStatement;
  edges: SqlStatement;
  declared: SqlStatement;
  graphSuccessors: SqlStatement;
}
const relevanceStatements = new WeakMap<SqlDatabase, RelevanceStatements>();

/**
 * A file that declares more `supersedes` relationships than this is not anyone's successor: a note
 * replaces one or two older ones, and a sidecar claiming to replace a hundred would lend its note the
 * relevance of each (measured: one such note was injected first for 28 of 31 prompts of the example KB).
 */
export const MAX_SUPERSEDES_CLAIMS = 3;
/**
 * Link limits of one note: entities its note and sidecar name, and relationships one file declares.
 * The example KB's sidecars name at most 7 and declare at most 5; past these a file is a list of
 * everything, and one hostile note linked that way was injected for 29 of the example KB's 31 titles.
 */
export const MAX_LINK_ENTITIES = 24;
export const MAX_LINK_CLAIMS = 12;

// Mentions are indexed by the file they came from (the note itself or its entity sidecar); a
// candidate entity's note count is bounded by a LIMIT so a hub named by thousands of notes costs
// no more than a specific one.
const candidateMentions = `cm AS (SELECT DISTINCT entity_id, note_path FROM mentions
    WHERE source IN (SELECT value FROM json_each(@sources)) AND note_path IN (SELECT value FROM json_each(@notes)))`;
const specificMentions = `specific AS (SELECT DISTINCT entity_id FROM cm
                       WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = cm.entity_id LIMIT @cap)) < @cap)`;
const liveEdge = `e.retired = 0 AND (e.valid_end_ms IS NULL OR e.valid_end_ms > @now)`;
// Candidate notes whose own files name more entities than MAX_LINK_ENTITIES: a note (or sidecar)
// that lists a hundred entities is linked to everything it lists, and would borrow the relevance of
// whatever note matches; it gets no link (nor lends one).
const crowdedFiles = `crowded AS (SELECT note_path FROM cm GROUP BY note_path HAVING COUNT(*) > ${MAX_LINK_ENTITIES})`;

function statementsFor(h: IndexHandle): RelevanceStatements {
  let st = relevanceStatements.get(h.db);
  if (st) return st;
  // A temp table is per connection and never written to the index file (works on a read-only index).
  h.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.notes_vocab USING fts5vocab(main, notes_fts, 'row')`);
  st = {
    df: h.db.prepare(`SELECT term, doc FROM temp.notes_vocab WHERE term IN (SELECT value FROM json_each(?))`),
    shared: h.db.prepare(
      `WITH ${candidateMentions}, ${specificMentions}, ${crowdedFiles}
       SELECT DISTINCT a.note_path AS a, b.note_path AS b FROM cm a
       JOIN cm b ON b.entity_id = a.entity_id AND b.note_path > a.note_path
       WHERE a.entity_id IN (SELECT entity_id FROM specific)
         AND a.note_path NOT IN (SELECT note_path FROM crowded) AND b.note_path NOT IN (SELECT note_path FROM crowded)`,
    ),
    // A relationship links two notes only between specific entities: an edge into a hub
    // ("idempotency → postgres") would link a note to every note that names the hub.
    edges: h.db.prepare(
      `WITH ${candidateMentions}, ${specificMentions}, ${crowdedFiles}
       SELECT DISTINCT a.note_path AS a, b.note_path AS b FROM cm a
       JOIN edges e ON e.src = a.entity_id JOIN cm b ON b.entity_id = e.dst
       WHERE ${liveEdge} AND e.type != 'supersedes' AND a.note_path != b.note_path
         AND a.entity_id IN (SELECT entity_id FROM specific) AND b.entity_id IN (SELECT entity_id FROM specific)
         AND (SELECT COUNT(*) FROM (SELECT 1 FROM edges x WHERE x.source = e.source LIMIT @claims)) < @claims
         AND a.note_path NOT IN (SELECT note_path FROM crowded) AND b.note_path NOT IN (SELECT note_path FROM crowded)`,
    ),
    // Frontmatter `supersedes: <key>` of a live note, both notes among the given ones.
    // Driven from the candidates' paths through supersedes_by and notes_key: written the other way
    // round (supersedes filtered by the lists) SQLite took 18 ms for 200 candidates on a 10k-note index
    // with an empty supersedes table; this way 0.2 ms.
    declared: h.db.prepare(
      `SELECT DISTINCT o.path AS older, s.by_path AS newer FROM json_each(@notes) j
       JOIN supersedes s ON s.by_path = j.value
       JOIN notes o ON o.path IN (SELECT value FROM json_each(@notes))
         AND (o.key = s.target OR json_extract(o.data, '$.frontmatter.name') = s.target)
       WHERE o.location = 'documents' AND o.path != s.by_path`,
    ),
    // A live `supersedes` relationship from an entity of the newer note to an entity of the older one.
    // The sidecar that declares it names both ends, so a note that names the newer end is never the
    // older note; both ends must be specific, as for a link (a hub would make every note that names
    // it the successor of everything).
    // The few `supersedes` edges between candidate entities first; only their two ends are then
    // checked for being specific (counting every candidate entity's notes cost more than the rest).
    graphSuccessors: h.db.prepare(
      `WITH ${candidateMentions}, ${crowdedFiles},
       sup AS (SELECT e.src, e.dst, e.source FROM edges e WHERE ${liveEdge} AND e.type = 'supersedes'
               AND e.src IN (SELECT entity_id FROM cm) AND e.dst IN (SELECT entity_id FROM cm))
       SELECT DISTINCT b.note_path AS older, a.note_path AS newer FROM sup
       JOIN cm a ON a.entity_id = sup.src JOIN cm b ON b.entity_id = sup.dst
       WHERE a.note_path != b.note_path
         AND NOT EXISTS (SELECT 1 FROM cm x WHERE x.note_path = b.note_path AND x.entity_id = sup.src)
         AND (SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = sup.src LIMIT @cap)) < @cap
         AND (SELECT COUNT(*) FROM (SELECT 1 FROM mentions m WHERE m.entity_id = sup.dst LIMIT @cap)) < @cap
         AND (SELECT COUNT(*) FROM (SELECT 1 FROM edges x WHERE x.source = sup.source AND x.type = 'supersedes'
              AND x.retired = 0 LIMIT @claims)) < @claims
         AND a.note_path NOT IN (SELECT note_path FROM crowded) AND b.note_path NOT IN (SELECT note_path FROM crowded)`,
    ),
  };
  relevanceStatements.set(h.db, st);
  return st;
}

/**
 * How many live notes contain each stem (the FTS5 vocabulary of the live-notes index, so stems
 * must be Porter stems as the index makes them), and how many live notes there are.
 */
export function termStats(h: IndexHandle, stems: readonly string[]): { live: number; df: Map<string, number> } {
  const st = statementsFor(h);
  const df = new Map<string, number>();
  if (stems.length)
    for (const r of st.df.all(JSON.stringify([...new Set(stems)])) as { term: string; doc: number }[]) df.set(r.term, r.doc);
  return { live: countNotes(h).live, df };
}

/**
 * Pairs among the given notes (by path) that the KB's entity graph links: both mention the same
 * entity, when that entity is named by at most `maxNotesPerEntity` notes (a hub such as "postgres"
 * links everything and so nothing), or a live relationship joins an entity of one to an entity of
 * the other, both specific in the same sense (a relationship whose validity has ended does not
 * count; a `supersedes` relationship is a succession, see successorNotes). Symmetric; a note is never
 * linked to itself.
 */
export function linkedNotes(h: IndexHandle, paths: readonly string[], maxNotesPerEntity: number, nowMs: number): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const unique = [...new Set(paths)];
  if (unique.length < 2) return out;
  const st = statementsFor(h);
  const { sources, notes } = candidateLists(unique);
  const link = (a: string, b: string): void => {
    if (a === b) return;
    if (!out.has(a)) out.set(a, new Set());
    if (!out.has(b)) out.set(b, new Set());
    out.get(a)!.add(b);
    out.get(b)!.add(a);
  };
  for (const r of st.shared.all({ sources, notes, cap: maxNotesPerEntity + 1 }) as { a: string; b: string }[]) link(r.a, r.b);
  const params = { sources, notes, now: nowMs, cap: maxNotesPerEntity + 1, claims: MAX_LINK_CLAIMS + 1 };
  for (const r of st.edges.all(params) as { a: string; b: string }[]) link(r.a, r.b);
  return out;
}

/** The statements' lists of the given notes: their paths, and the files their mentions came from (note and sidecar). */
function candidateLists(unique: readonly string[]): { sources: string; notes: string } {
  return { sources: JSON.stringify(unique.flatMap((p) => [p, p.replace(/\.md$/, '.entities.yaml')])), notes: JSON.stringify(unique) };
}

/**
 * Successions among the given notes (by path): older path → the paths of the live notes that
 * supersede it, declared in frontmatter (`supersedes: <id>`; a Claude Code memory names the older
 * one by its `name:`, "[[CI runs on Jenkins]] is obsolete", which is not its key when the name is
 * free text) or by a live `supersedes` relationship of the entity graph from an entity of the newer
 * note to an entity of the older one (both specific, as for linkedNotes). One pass over the given
 * notes, whatever their number.
 */
export function successorNotes(
  h: IndexHandle,
  paths: readonly string[],
  maxNotesPerEntity: number,
  nowMs: number,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const unique = [...new Set(paths)];
  if (unique.length < 2) return out;
  const st = statementsFor(h);
  const { sources, notes } = candidateLists(unique);
  const add = (r: { older: string; newer: string }): void => {
    if (r.older === r.newer) return;
    if (!out.has(r.older)) out.set(r.older, new Set());
    out.get(r.older)!.add(r.newer);
  };
  for (const r of st.declared.all({ notes }) as { older: string; newer: string }[]) add(r);
  const params = { sources, notes, now: nowMs, cap: maxNotesPerEntity + 1, claims: MAX_SUPERSEDES_CLAIMS + 1 };
  for (const r of st.graphSuccessors.all(params) as { older: string; newer: string }[]) add(r);
  return out;
}
