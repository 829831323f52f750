/**
 * The local fleet-import ledger (`$REFLECT_STATE_DIR/fleet-ledger.json`, written by the import tool
 * outside any KB): `{ <content hash>: { doc_id, count, first_seen, last_seen } }`. It is the
 * provenance recall trusts for imported notes, because a note's own frontmatter can say anything.
 * Content seen in FLEET_VOUCH_COUNT or more imports is vouched for (the reference's promotion bar).
 */
import { readJson } from '../../io/private-fs.js';
import type { FleetLookup } from '../../core/note/index.js';

/** Imports of the same content after which the ledger vouches for it (the reference's promotion candidate bar). */
export const FLEET_VOUCH_COUNT = 3;

/** A lookup over the ledger at `file` (missing or unreadable: nothing is imported by the ledger's account). */
export function loadFleetLedger(file: string): FleetLookup {
  const data = readJson<Record<string, unknown>>(file, {});
  const entries = new Map<string, { count: number; docId: string }>();
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [hash, v] of Object.entries(data)) {
      const rec = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
      const count = Number(rec['count']);
      entries.set(hash.toLowerCase(), {
        count: Number.isFinite(count) ? count : 1,
        docId: typeof rec['doc_id'] === 'string' ? rec['doc_id'] : '',
      });
    }
  }
  // Vouching needs the ledger's own facts to match: the file's hash, or the declared hash together
  // with the document id the ledger recorded for it. A declared hash alone only marks the note as
  // imported (which can only lower its standing).
  return (contentHash, declaredHash, docId) => {
    const byFile = entries.get(contentHash.toLowerCase());
    const byDecl = declaredHash ? entries.get(declaredHash.toLowerCase()) : undefined;
    const vouched =
      (byFile?.count ?? 0) >= FLEET_VOUCH_COUNT ||
      (!!byDecl && byDecl.docId !== '' && byDecl.docId === docId && byDecl.count >= FLEET_VOUCH_COUNT);
    return { imported: byFile !== undefined || byDecl !== undefined, vouched };
  };
}
