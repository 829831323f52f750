/**
 * The team store: a versioned schema in a PostgreSQL database (through the `pg` client) holding
 * every published revision of every shared note, and the SQL that pushes, pulls and searches it.
 *
 * Table `<schema>.notes`, one row per revision, primary key (id, revision):
 * - content: content_hash, title, body, frontmatter (JSONB), created/updated time of the note;
 * - provenance: author (the database role of the session that published it, set by the server, so
 *   a client cannot claim someone else's name), machine and KB it came from, publish time;
 * - lifecycle: `head` (the revision the store keeps as the note's latest, one per id), `state`
 *   current | superseded | forgotten, superseded_by, and who retired it and when (server-set);
 * - search: a weighted tsvector (title A; key insight and tags B; problem, root cause, fix, rule,
 *   symptoms C; body D) under a GIN index; a note vector (real[]) when the publisher had an
 *   embedding model, plus a pgvector column when the server has that extension;
 * - change tracking: `txid`, the id of the transaction that last wrote the row. A pull reads the
 *   rows written by transactions below the oldest transaction still running (everything below that
 *   horizon is final), so an incremental pull never misses a row committed late.
 * - publisher: a random id per KB and state dir of the publishing recall (schema version 3), so two
 *   people on one host, or two KBs of one person, are told apart.
 * A trigger makes published content immutable: only the lifecycle columns can change, and row-level
 * security lets a role change only the rows it published (sources/team/schema.ts, version 3).
 *
 * The work lives in connection (connecting, errors), schema (migrations), push, pull, revisions
 * (which revision of a note is shown, content read in bounded batches), search and rows; this
 * module is their one entry point, loaded on demand so that `pg` is only read when a team store is
 * configured.
 *
 * Every error that leaves these modules is a TeamError whose message has the password removed.
 */
export { clientConfig, openStore, sessionRole, teamError, type TeamConnection } from './connection.js';
export { migrate, storeInfo, STORE_SCHEMA_VERSION, type MigrateResult, type StoreInfo } from './schema.js';
export {
  headsFrom,
  pushBatch,
  zeroCounts,
  type BatchResult,
  type PushCounts,
  type PushItem,
  type PushOrigin,
  type Rejected,
  type RetireItem,
} from './push.js';
export { pullChanges, START_CURSOR, storeStall, type PullCursor, type PullEnd, type PullPage, type Stall } from './pull.js';
export { chooser, chooseRevisions, loadContent, overCap } from './revisions.js';
export { noteHistory, orTsQuery, searchStore, storeCounts, type StoreCounts, type StoreHit } from './search.js';
