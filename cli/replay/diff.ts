/** What a replayed line gives now against what it gave then. */
export interface ReplayDiff {
  line: number;
  query: string;
  caller: string;
  before: string[];
  after: string[];
  added: string[];
  removed: string[];
  /** Ids in both lists whose rank moved: [id, old rank, new rank] (1-based). */
  moved: [string, number, number][];
  tokensBefore: number | null;
  tokensAfter: number;
  msBefore: number | null;
  msAfter: number;
  changed: boolean;
  /** Why this record could not be replayed (counted as a change). */
  error?: string;
}

export function diffIds(before: readonly string[], after: readonly string[]): Pick<ReplayDiff, 'added' | 'removed' | 'moved' | 'changed'> {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const moved: [string, number, number][] = after
    .map((id, i): [string, number, number] => [id, before.indexOf(id) + 1, i + 1])
    .filter(([, old, now]) => old > 0 && old !== now);
  return { added, removed, moved, changed: added.length + removed.length + moved.length > 0 };
}
