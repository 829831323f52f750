/**
 * Every note of every source a recall reads (the KB the scope rules choose, or with no KB configured
 * the zero-config sources: the reflect KB and the harnesses' memory folders), each source with its
 * notes of every location (live, superseded, archived, forgotten) and whether recall may change it.
 * `recall view`'s Notes page lists these.
 *
 * The sources are resolved by pipeline/kb-sources `resolveSources`, the resolution a recall uses.
 */
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { checkKbDir } from '../run.js';
import { isHarnessMemory, resolveSources } from '../kb-sources/index.js';
import { notesByDate, supersededKeys } from '../../sources/index/index.js';
import type { ScopeKind } from '../scope.js';
import { withKbIfExists, type KbOptions, type NotesIo } from './kb.js';

/** How long the listing waits for another process refreshing a source's index before reading the last committed one. */
const LIST_REFRESH_WAIT_MS = 5_000;

export type NoteState = 'live' | 'superseded' | 'archived' | 'forgotten';

export interface SourceNote {
  id: string;
  title: string;
  keyInsight: string;
  howToApply: string;
  date: string | null;
  confidence: string;
  tags: string[];
  state: NoteState;
  supersededBy: string | null;
  /** Path inside its source. */
  path: string;
  /** The note's frontmatter (its provenance says who wrote it). */
  frontmatter: Record<string, unknown>;
}

export interface NoteSource {
  root: string;
  kind: ScopeKind;
  /** Why it is read, in words (`--kb`, "branch shard of project P", …). */
  reason: string;
  /** A harness's memory folder: read, never changed by recall. */
  readOnly: boolean;
  notes: SourceNote[];
}

function stateOf(n: { location: string; supersededBy: string | null; status: string; key: string }, superseded: Set<string>): NoteState {
  if (n.location === 'forgotten' || n.location === 'archived') return n.location;
  return n.supersededBy || n.status === 'superseded' || n.status === 'archived' || superseded.has(n.key) ? 'superseded' : 'live';
}

/** The sources a recall with these options reads, each with all its notes (newest first). */
export function notesOfEverySource(opts: KbOptions, io: NotesIo): NoteSource[] {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const { read } = resolveSources(config, { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env });
  return read.map((scope) => {
    const notes =
      withKbIfExists(
        scope,
        config,
        io.env,
        (h) => {
          const superseded = supersededKeys(h);
          return notesByDate(h).map((n): SourceNote => ({
            id: n.displayId,
            title: n.title,
            keyInsight: n.keyInsight,
            howToApply: n.howToApply,
            date: n.dateMs !== null ? new Date(n.dateMs).toISOString().slice(0, 10) : null,
            confidence: n.confidence,
            tags: n.tags,
            state: stateOf(n, superseded),
            supersededBy: n.supersededBy,
            path: n.path,
            frontmatter: n.frontmatter,
          }));
        },
        LIST_REFRESH_WAIT_MS,
      ) ?? [];
    return {
      root: path.resolve(scope.root),
      kind: scope.kind,
      reason: scope.reason,
      readOnly: scope.kind === 'claude-memory' || scope.kind === 'codex-memory' || isHarnessMemory(scope.root, io.env, config.home),
      notes,
    };
  });
}
