/**
 * How a KB's index is opened: its link policy, fleet ledger and attached folders (the pulled team
 * shard). Every process that refreshes an index opens it from here — recalls, `recall index`, the
 * background refresher — so none of them indexes a different set of files and deletes the others'.
 */
import type { RecallConfig } from '../config/index.js';
import { openIndex, type IndexHandle, type OpenIndexOptions } from '../../sources/index/index.js';
import { teamAttachments } from '../../sources/team/index.js';

export function kbIndexOptions(config: RecallConfig, root: string): OpenIndexOptions {
  return {
    followOutside: config.followOutsideLinks,
    fleetLedger: config.fleetLedger,
    attached: teamAttachments(config.stateDir, root),
  };
}

/** The index of a KB root, with the pulled team shard attached when there is one. */
export function openKbIndex(config: RecallConfig, root: string): IndexHandle {
  return openIndex(root, config.stateDir, kbIndexOptions(config, root));
}
