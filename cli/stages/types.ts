/** The shapes of staged recall: its I/O, scope, search port, and the rows each step returns. */
import type { ModelClient } from '../../core/ports.js';
import type { Note } from '../../core/note/index.js';

export interface StagesIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Diagnostics sink (stderr in the CLI). */
  warn: (l: string) => void;
  /** Model client handed to the recall pipeline (default: whatever the installation provides). */
  models?: ModelClient;
  /** Ranked search behind step 1 (default: the recall pipeline); tests inject a stub. */
  search?: StageSearch;
}

export interface StagesScope {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

/** One ranked hit of the search behind step 1. */
export interface StageHit {
  note: Note;
  score: number;
  /** Absolute relevance (0..1) when the recall pipeline found the hit; absent for the lexical scan. */
  relevance?: number;
}

/** The ranked search of step 1: hits best first, at most `limit`. May throw (step 1 then scans lexically). */
export type StageSearch = (query: string, limit: number, scope: StagesScope, io: StagesIo) => Promise<StageHit[]>;

export interface IndexRow {
  id: string;
  title: string;
  score: number;
  /** How likely the note is about the query (0..1; under the floor = a weak match); absent for the lexical scan. */
  relevance?: number;
  project: string;
  date: string;
}

export interface IndexStep {
  step: 1;
  query: string;
  count: number;
  results: IndexRow[];
}

export interface TimelineRow {
  id: string;
  title: string;
  project: string;
  date: string;
  anchor: boolean;
}

export type TimelineStep =
  { step: 2; anchor: string; depth_before: number; depth_after: number; results: TimelineRow[] } | { step: 2; error: string; results: [] };

export type HydrateRow =
  | {
      id: string;
      found: true;
      title: string;
      project: string;
      date: string;
      frontmatter: Record<string, unknown>;
      body: string;
      entities: Record<string, unknown> | null;
    }
  | { id: string; found: false };

export interface HydrateStep {
  step: 3;
  /** Number of result rows (one per requested id, found or not). */
  count: number;
  results: HydrateRow[];
}
