/**
 * Lookup in a text table of sorted `key\tvalue` lines (build outputs under dist/data): a binary
 * search over the string itself, so a process reading one or two keys never splits or parses the
 * whole file. Keys are compared as JavaScript strings compare (the order Array.prototype.sort gives).
 */
import fs from 'node:fs';
import path from 'node:path';
export interface SortedTable {
  get(key: string): string | null;
}

export function sortedTable(body: string): SortedTable {
  const lineStart = (i: number): number => body.lastIndexOf('\n', i - 1) + 1;
  return {
    get(key) {
      let lo = 0;
      let hi = body.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const start = lineStart(mid);
        const tab = body.indexOf('\t', start);
        let end = body.indexOf('\n', start);
        if (end < 0) end = body.length;
        if (tab < 0 || tab > end) return null;
        const k = body.slice(start, tab);
        if (k === key) return body.slice(tab + 1, end);
        if (k < key) lo = end + 1;
        else hi = start;
      }
      return null;
    },
  };
}

/**
 * Where a build-output data file is: `dist/data/<name>` seen from the bundle (dist/bundle) or the
 * compiled modules (dist/sources/query), or from this source folder when running from source (tests).
 */
export function dataFileCandidates(moduleDir: string, name: string): string[] {
  return [
    path.join(moduleDir, '..', 'data', name),
    path.join(moduleDir, '..', '..', 'data', name),
    path.join(moduleDir, '..', '..', 'dist', 'data', name),
  ];
}

/** The first readable candidate's text, or null. */
export function readDataFile(moduleDir: string, name: string): string | null {
  for (const file of dataFileCandidates(moduleDir, name)) {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      /* try the next place */
    }
  }
  return null;
}
