/**
 * One key per live note of the KB. A note's key comes from its own file (core/note), so two live
 * files that declare exactly the same id (or two paths that read alike, `Kafka Lag.md` and
 * `Kafka-Lag.md`) would come to one key, and everything that addresses notes by key (fusion, the
 * session's injected ids, `recall show`, forget, supersede) would see only one of them.
 *
 * Here the live note that holds a key in the index keeps it; another live file that comes to the
 * same key is indexed under distinctKey (the key and 6 hex of a hash of its place) with a one-line
 * warning naming both files. Its retired copies (archived/, .forgotten/ at the same place) follow it,
 * as they share their live note's key everywhere else (a live note with an archived copy is retired).
 * A copy whose live note is gone has only its file to go by: `recall forget` writes the key such a
 * note was indexed under into its `id:` (pipeline/notes/write.ts), so that copy never takes the
 * shared id, which would retire the other note on the next fresh index.
 *
 * Which file holds the key: on a fresh index the first in walk order (sorted by path); later, the
 * one already holding it, so a note keeps its key when it or the other file is edited, and a file
 * added later never takes the key of a note that has it. A file no longer on disk (a renamed note)
 * holds nothing. A note indexed under a distinct key is checked again at the end of every refresh
 * that changed something, and takes its own key back once no other live file holds it.
 * Notes of an attached root (the team shard) keep the keys their root gives them.
 */
import type { SqlDatabase } from '../sqlite/index.js';
import { distinctKey, pathId, type Note } from '../../core/note/index.js';
import { TEAM_PREFIX } from '../team/index.js';

const OWN = `path NOT LIKE '${TEAM_PREFIX}/%'`;
/** Hash lengths tried in turn when a distinct key is taken too (a file that declares exactly `<id>-<hex>`). */
const HEX_LENGTHS = [6, 10, 40];

export interface ClaimedKey {
  key: string;
  /** Why the note is not indexed under its own key (one line), or null. */
  warning: string | null;
}

export class KeyClaims {
  private readonly holders;
  private readonly liveHolds;
  private readonly retiredWith;
  private readonly rekey;
  private readonly rekeyMentions;

  /** `present`: the paths of the walk in progress (a note whose file is gone holds no key). */
  constructor(
    db: SqlDatabase,
    private readonly present: ReadonlySet<string>,
  ) {
    this.holders = db.prepare(`SELECT path FROM notes WHERE key = ? AND location = 'documents' AND path != ? AND ${OWN} ORDER BY rowid`);
    this.liveHolds = db.prepare(`SELECT 1 FROM notes WHERE key = ? AND location = 'documents' AND ${OWN} LIMIT 1`);
    this.retiredWith = db.prepare(`SELECT path, data FROM notes WHERE key = ? AND location != 'documents' AND ${OWN}`);
    this.rekey = db.prepare(`UPDATE notes SET key = ?, data = ? WHERE path = ?`);
    this.rekeyMentions = db.prepare(`UPDATE mentions SET note_key = ? WHERE note_path = ?`);
  }

  /** The key an own note of the KB, about to be stored at its path, is indexed under. */
  claim(note: Note): ClaimedKey {
    const place = pathId(note.path);
    if (place === null) return { key: note.key, warning: null };
    const own = note.key;
    if (note.location !== 'documents') {
      const displaced = distinctKey(own, place);
      return { key: this.liveHolds.get(displaced) ? displaced : own, warning: null };
    }
    const holder = this.holderOf(own, note.path);
    let key = own;
    if (holder !== null) {
      // Files whose paths read alike (`Kafka Lag.md`, `Kafka-Lag.md`, `Kafka,Lag.md`, …) share their
      // place, so past three of them the place's hashes are all taken: then the hash of the file's own
      // path, which no other live file has.
      const tries = [...HEX_LENGTHS.map((n) => distinctKey(own, place, n)), distinctKey(own, note.path, 40)];
      for (const k of tries) {
        key = k;
        if (this.holderOf(key, note.path) === null) break;
      }
    }
    this.followedByCopies(place, [own, distinctKey(own, place)], key);
    const warning =
      holder === null ? null : `id ${own} is already the id of ${holder}; this note is indexed as ${key} (give one of them another id)`;
    return { key, warning };
  }

  /** The first live note of the KB still on disk, other than the one at `path`, that holds `key`. */
  private holderOf(key: string, path: string): string | null {
    for (const r of this.holders.all(key, path) as { path: string }[]) if (this.present.has(r.path)) return r.path;
    return null;
  }

  /** Give the retired copies at `place` that carry one of `keys` the key their live note now has. */
  private followedByCopies(place: string, keys: string[], key: string): void {
    for (const k of keys) {
      if (k === key) continue;
      for (const r of this.retiredWith.all(k) as { path: string; data: string }[]) {
        if (pathId(r.path) !== place) continue;
        const meta = JSON.parse(r.data) as Record<string, unknown>;
        this.rekey.run(key, JSON.stringify({ ...meta, key, displayId: key }), r.path);
        this.rekeyMentions.run(key, r.path);
      }
    }
  }
}
