/**
 * Read-only access to the reference's reflect.db (ledger and persona tables), when one exists.
 *
 * The file is opened read-only and never created. A missing file means "no ledger"; a file that
 * cannot be opened or lacks a table is reported by the caller as a degradation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from './sqlite/index.js';

export interface Ledger {
  /** Artifact paths and content hashes of ledger rows marked is_latest = 0 that match the given values. */
  retired(artifactNames: string[], hashes: string[]): { artifactPath: string | null; contentHash: string | null }[];
  /** project_persona rows for a project with confidence ≥ min, best first. */
  persona(projectId: string, minConfidence: number): { field_name: string; value: string; confidence: number }[];
  close(): void;
}

export function openLedger(dbPath: string): Ledger | null {
  if (!fs.existsSync(dbPath)) return null;
  const db = openDatabase(dbPath, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 2000');
  return {
    retired(artifactNames, hashes) {
      if (artifactNames.length === 0 && hashes.length === 0) return [];
      const names = artifactNames.length ? artifactNames : [''];
      const hs = hashes.length ? hashes : [''];
      const ph = (n: number): string => Array.from({ length: n }, () => '?').join(',');
      // artifact_path is usually absolute; match on its file name (the index keys notes by path).
      const rows = db
        .prepare(
          `SELECT artifact_path, content_hash FROM learnings
           WHERE is_latest = 0 AND (content_hash IN (${ph(hs.length)})
             OR replace(artifact_path, rtrim(artifact_path, replace(artifact_path, '/', '')), '') IN (${ph(names.length)}))`,
        )
        .all(...hs, ...names) as { artifact_path: string | null; content_hash: string | null }[];
      return rows.map((r) => ({ artifactPath: r.artifact_path, contentHash: r.content_hash }));
    },
    persona(projectId, minConfidence) {
      return db
        .prepare(
          `SELECT field_name, value, confidence FROM project_persona
           WHERE project_id = ? AND confidence >= ? ORDER BY confidence DESC, field_name`,
        )
        .all(projectId, minConfidence) as { field_name: string; value: string; confidence: number }[];
    },
    close() {
      db.close();
    },
  };
}

export function fileName(p: string): string {
  return path.basename(p);
}
