/**
 * A recall's outcome as the requested output (markdown, JSON, fleet context) and the one-line
 * diagnostics that go with it.
 */
import type { Note } from '../../core/note/index.js';
import type { Degradation, RecallOutcome, ScoredCandidate } from '../../core/types.js';
import { renderFleetContext, renderJson, fieldValue, renderMarkdown, renderWeak } from '../../sinks/render/index.js';
import type { RecallCommand } from '../command.js';
import type { RecallConfig } from '../config/index.js';
import type { Scope } from '../scope.js';

type ScopeJson = { root: string; scope: string; reason: string; project: string; branch: string };

/** The KB a recall read, as JSON output reports it. */
export function scopeJson(scope: Scope): ScopeJson {
  return { root: scope.root, scope: scope.kind, reason: scope.reason, project: scope.project, branch: scope.branch };
}

/**
 * `--field NAME` when no result has that field: the rows show their key insight instead, and the
 * user is told so (with the fields the results do have). null when some result has it.
 */
export function fieldMissing(results: readonly { note: Note }[], field: string): string | null {
  if (results.length === 0 || results.some((r) => fieldValue(r.note, field) !== null)) return null;
  const have = [...new Set(results.flatMap((r) => Object.keys(r.note.frontmatter)))]
    .filter((k) => results.some((r) => fieldValue(r.note, k) !== null))
    .sort();
  return `no result has a "${field}" field; showing key insights instead (fields these results have: ${have.join(', ') || 'none'})`;
}

/** Degradations as --verbose prints them: real failures first, one line each; missing models on one line at the end. */
export function degradationLines(degraded: readonly Degradation[]): string[] {
  const notInstalled = degraded.filter((d) => d.reason === 'unavailable' && /recall models pull/.test(d.message));
  const rest = degraded.filter((d) => !notInstalled.includes(d));
  const lines = rest.map((d) => `recall: degraded ${d.stage} (${d.reason}): ${d.message}`);
  if (notInstalled.length)
    lines.push(
      `recall: no model for ${notInstalled.map((d) => d.stage.replace(/^arm:/, '')).join(', ')} (optional; \`recall models pull\` installs them)`,
    );
  return lines;
}

export interface RenderContext {
  config: RecallConfig;
  glyphs: Map<string, string>;
  /** The KB (or KBs) read, for JSON output. */
  kb: ScopeJson | ScopeJson[];
}

/** What goes to stdout for an outcome in the command's format. */
export function renderOutcome(cmd: RecallCommand, outcome: RecallOutcome, results: ScoredCandidate[], ctx: RenderContext): string {
  const { config, glyphs } = ctx;
  if (cmd.format === 'json')
    return renderJson(outcome, { field: cmd.field, economics: config.economics, glyphs, home: config.home, kb: ctx.kb });
  if (cmd.format === 'fleet-context') return renderFleetContext(cmd.query, results);
  return (
    renderMarkdown({
      query: cmd.query,
      results,
      field: cmd.field,
      maxChars: cmd.maxChars ?? config.defaultMaxChars,
      economics: config.economics,
      glyphs,
      home: config.home,
    }) + renderWeak(outcome.weak, outcome.floor, results.length > 0)
  );
}
