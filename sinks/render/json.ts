/**
 * `--format json` (the reference's envelope, a compatibility contract): the machine-readable envelope of a recall, or the one-line
 * persona answer. Key order is part of the contract (consumers and golden files rely on it).
 */
import { wellFormedJson } from '../safe-text.js';
import type { ArmName, ArmOutcome, CacheTier, Degradation, RecallOutcome, ScoredCandidate } from '../../core/types.js';
import { ARM_NAMES } from '../../core/types.js';
import { temporalToJson } from '../../core/temporal-constraint.js';
import { economicsBlock, economicsRow, type EconomicsBlock, type EconomicsRow, type StatSize } from '../economics.js';
import { fieldValue } from './markdown.js';
import { noteGist, unreviewedLabel, type Note } from '../../core/note/index.js';

/** Indent of the pretty-printed envelope (the reference's `indent=2`). */
export const JSON_INDENT = 2;

export interface RenderJsonOptions {
  /** `--field NAME`, or null ('' counts as null). */
  field: string | null;
  economics: boolean;
  glyphs: ReadonlyMap<string, string>;
  home: string;
  /** Injected stat for the economics source-file fallback (default: fs). */
  statSize?: StatSize;
  /** The KB that was read and why (added last to the envelope); a list when several were searched. */
  kb?: JsonKb | JsonKb[];
}

export interface JsonKb {
  root: string;
  scope: string;
  reason: string;
  project: string;
  branch: string;
}

export interface JsonResult {
  id: string;
  title: string;
  key_insight: string;
  /** A note without a key insight (plain markdown): the first paragraph of its body, when it has one. */
  gist?: string;
  confidence: string;
  confidence_num: number;
  tags: string[];
  how_to_apply: string;
  archived_at: string | null;
  field_value?: string | null;
  economics?: EconomicsRow;
  score: number;
  /** Cross-encoder logit, or null when the note was not rescored. */
  ce: number | null;
  /** Absolute relevance, 0..1 (sigmoid(ce) when rescored, else the calibrated lexical estimate). */
  relevance: number;
  arms: ArmName[];
  path: string;
  /** Notes imported from a team store only: who published it (as the store recorded it) and whether it is quarantined. */
  origin?: { kind: 'team'; author: string; machine: string; kb: string; revision: number; verified: boolean; quarantined: boolean };
  /** Present only on a note an agent wrote that no person has accepted (core/note/review.ts). */
  review?: { state: 'unreviewed'; source_tool: string; harness: string; session_id: string; label: string };
}

export interface JsonArm {
  arm: ArmName;
  status: ArmOutcome['status'];
  hits: number;
  ms: number;
  message?: string;
}

export interface JsonEnvelope {
  query: string;
  mode: string;
  count: number;
  ood_gated: boolean;
  /** Relevance floor applied (0 = none). */
  floor: number;
  /** Why nothing cleared the floor, else null. */
  abstained: string | null;
  temporal: ReturnType<typeof temporalToJson> | null;
  field: string | null;
  economics: EconomicsBlock | null;
  cache_tier: CacheTier;
  results: JsonResult[];
  /** Candidates under the floor, shown as weak matches (CLI only; [] otherwise). */
  weak: JsonResult[];
  degraded: Degradation[];
  arms: JsonArm[];
  /** Which KB was read, and why (scope rule, project, branch); a list when several were searched. */
  kb?: JsonKb | JsonKb[];
}

/** Where a team note came from, and whether it is quarantined. */
function originOf(n: ScoredCandidate['note'], o: NonNullable<ScoredCandidate['note']['origin']>) {
  return {
    kind: o.kind,
    author: o.author,
    machine: o.machine,
    kb: o.kb,
    revision: o.revision,
    verified: o.verified,
    quarantined: n.quarantine,
  };
}

/** The unreviewed mark of an agent's note, with the label the markdown block shows. */
function reviewOf(r: NonNullable<Note['review']>) {
  return { state: r.state, source_tool: r.tool, harness: r.harness, session_id: r.sessionId, label: unreviewedLabel(r) };
}

/** `gist` for a note that has no key insight and a first paragraph; nothing otherwise. */
function gistField(n: Note): { gist?: string } {
  if (n.keyInsight) return {};
  const gist = noteGist(n.body ?? '');
  return gist ? { gist } : {};
}

/** The envelope as an object with keys in contract order (empty results → count 0, results []). */
export function toJsonEnvelope(outcome: RecallOutcome, options: RenderJsonOptions): JsonEnvelope {
  const opts = { ...options, field: options.field || null }; // '' is no projection
  const rows: EconomicsRow[] = [];
  const toRow = (c: ScoredCandidate, counted: boolean): JsonResult => {
    const n = c.note;
    const row = opts.economics ? economicsRow(n, { glyphs: opts.glyphs, home: opts.home, statSize: opts.statSize }) : null;
    if (row && counted) rows.push(row);
    return {
      id: n.displayId,
      title: n.title,
      key_insight: n.keyInsight,
      ...gistField(n),
      confidence: n.confidence,
      confidence_num: n.confidenceNum,
      tags: [...n.tags],
      how_to_apply: n.howToApply,
      archived_at: n.archivedAt,
      ...(opts.field !== null ? { field_value: fieldValue(n, opts.field) } : {}),
      ...(row ? { economics: row } : {}),
      score: c.score,
      ce: c.ce,
      relevance: c.relevance,
      arms: ARM_NAMES.filter((a) => c.ranks[a] !== undefined),
      path: n.path,
      ...(n.origin ? { origin: originOf(n, n.origin) } : {}),
      // Only on a note an agent wrote that no person accepted: a person's note's row is unchanged.
      ...(n.review ? { review: reviewOf(n.review) } : {}),
    };
  };
  const results = outcome.results.map((c) => toRow(c, true));
  const weak = outcome.weak.map((c) => toRow(c, false));
  return {
    query: outcome.query,
    mode: outcome.mode,
    count: outcome.results.length,
    ood_gated: outcome.oodGated,
    floor: outcome.floor,
    abstained: outcome.abstained,
    temporal: outcome.temporal ? temporalToJson(outcome.temporal) : null,
    field: opts.field,
    economics: opts.economics ? economicsBlock(rows) : null,
    cache_tier: outcome.cacheTier,
    results,
    weak,
    degraded: outcome.degraded,
    arms: outcome.arms.map((a): JsonArm => {
      const arm: JsonArm = { arm: a.arm, status: a.status, hits: a.hits.length, ms: a.ms };
      if (a.message !== undefined) arm.message = a.message;
      return arm;
    }),
    ...(opts.kb ? { kb: opts.kb } : {}),
  };
}

/**
 * The JSON output: the envelope pretty-printed with 2-space indent plus a newline; when the outcome
 * is a persona hit, one compact line `{"persona": {...,"type":"persona","tier":"persona"},"query": q}`
 * plus a newline instead.
 */
export function renderJson(outcome: RecallOutcome, opts: RenderJsonOptions): string {
  if (outcome.persona) {
    const p = outcome.persona;
    const persona = {
      project_id: p.project_id,
      field_name: p.field_name,
      value: p.value,
      confidence: p.confidence,
      type: 'persona',
      tier: 'persona',
    };
    return wellFormedJson({ persona, query: outcome.query }) + '\n';
  }
  return wellFormedJson(toJsonEnvelope(outcome, opts), JSON_INDENT) + '\n';
}
