/**
 * The retired-note lookups of the superseded filter, answered by the KB's index and, when the
 * reference's reflect.db exists, its ledger. The ledger is opened only when a candidate is left to
 * check against it (see RecallDeps.ledger for how an open failure is recorded).
 */
import type { RetiredLookup } from '../../core/ports.js';
import { findRetired, findSupersededBy, type IndexHandle } from '../../sources/index/index.js';
import type { Ledger } from '../../sources/ledger.js';

export function indexRetiredLookup(index: IndexHandle, ledger: () => Ledger | null): RetiredLookup {
  return {
    supersededBy: (keys) => findSupersededBy(index, keys),
    retiredCopies: (keys, hashes) => findRetired(index, keys, hashes),
    ledgerRetired: (fileNames, hashes) => ledger()?.retired(fileNames, hashes) ?? [],
  };
}
