/**
 * Frontmatter splitting and YAML parsing for learning notes, compatible with the reference
 * (`---` at offset 0, header ends at the first `\n---` after offset 3).
 *
 * YAML is parsed with the YAML 1.2 core schema: timestamps stay strings (we parse dates ourselves,
 * so date-only and datetime values keep their original text), no custom tags, no code execution.
 *
 * Aliases make a few hundred bytes of YAML stand for billions of nodes ("billion laughs"): js-yaml
 * shares the aliased object, but everything that walks the result (JSON, entity extraction, flatten)
 * would expand it. So a parsed document is measured as it would expand, and refused past a node budget.
 */
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';

// js-yaml is loaded on first use: an up-to-date index parses no YAML, and the recall hot path
// should not pay for evaluating the library (~14 ms of start-up, measured).
const loadCjs = createRequire(import.meta.url);
let yamlLib: typeof JsYaml | null = null;
function yaml(): typeof JsYaml {
  return (yamlLib ??= loadCjs('js-yaml') as typeof JsYaml);
}

export interface SplitNote {
  /** Parsed header; `{}` when the file has no frontmatter. */
  frontmatter: Record<string, unknown>;
  /** Text after the header, leading newlines stripped. */
  body: string;
  /** True when the file starts with a `---` header. */
  hasFrontmatter: boolean;
}

export class FrontmatterError extends Error {
  readonly code = 'E_FRONTMATTER';
  constructor(message: string) {
    super(message);
    this.name = 'FrontmatterError';
  }
}

/**
 * Split a note into frontmatter and body.
 * - no leading `---`: `{}` and the whole text as body (memory files have no header);
 * - an unterminated header, invalid YAML, or a header that is not a mapping: throws FrontmatterError
 *   with a one-line reason (the caller skips the note and reports it).
 */
export function splitFrontmatter(text: string): SplitNote {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (!src.startsWith('---')) {
    return { frontmatter: {}, body: src.replace(/^\n+/, ''), hasFrontmatter: false };
  }
  const end = src.indexOf('\n---', 3);
  if (end < 0) throw new FrontmatterError('frontmatter starts with --- but has no closing ---');
  const header = src.slice(3, end);
  // Skip the rest of the closing fence line (`---` possibly followed by spaces).
  const afterFence = src.indexOf('\n', end + 4);
  const body = afterFence < 0 ? '' : src.slice(afterFence + 1).replace(/^\n+/, '');
  // The header text starts with the newline after the opening ---, so js-yaml's 0-based line + 1 is the file line.
  const parsed = loadLenient(header);
  if (parsed === null || parsed === undefined) return { frontmatter: {}, body, hasFrontmatter: true };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new FrontmatterError(`frontmatter is a ${Array.isArray(parsed) ? 'list' : typeof parsed}, not a mapping`);
  }
  return { frontmatter: parsed as Record<string, unknown>, body, hasFrontmatter: true };
}

/** YAML that does not parse (as opposed to YAML refused for what it expands to). */
class YamlSyntaxError extends FrontmatterError {}

/**
 * Nodes a YAML document may expand to: a fixed allowance plus one per source character. Without
 * aliases a node takes at least two characters of text, so only alias expansion can exceed it.
 */
export const YAML_NODE_ALLOWANCE = 10_000;

/**
 * Count the nodes of `value` as fully expanded (aliases counted every time they are reached), and
 * throw once `budget` is passed. Cost is bounded by the budget, whatever the sharing.
 */
function checkExpansion(value: unknown, budget: number): void {
  let left = budget;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    left -= 1;
    if (left < 0) throw new FrontmatterError(`YAML expands to more than ${budget} nodes (alias bomb?); not read`);
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) stack.push(x);
  }
}

/** Parse YAML with the core schema; a syntax error becomes a one-line FrontmatterError naming the line. */
function loadYaml(text: string, what: string): unknown {
  let parsed: unknown;
  try {
    parsed = yaml().load(text, { schema: yaml().CORE_SCHEMA, json: true });
  } catch (err) {
    const e = err as { reason?: string; mark?: { line?: number }; message?: string };
    const line = e.mark?.line !== undefined ? ` at line ${e.mark.line + 1}` : '';
    throw new YamlSyntaxError(`${what}${line}: ${e.reason ?? e.message ?? String(err)}`);
  }
  checkExpansion(parsed, YAML_NODE_ALLOWANCE + text.length);
  return parsed;
}

/** A top-level `key: value` line whose plain value YAML cannot take as it is ("a: b: c", "x # y", "@here"). */
const UNQUOTED_SPECIAL = /^([A-Za-z0-9_.-]+):[ \t]+(?!["'[{])(.*(?:: |[ \t]#|[*&!|>%@`]).*?)[ \t]*$/;

/**
 * The header as YAML; when it is not valid YAML, once more with each top-level plain value that holds
 * a ": ", a " #" or an indicator character put in quotes. Claude Code reads its memory files that way
 * (`description: User preference: always use pnpm` is not YAML, but is a memory it uses), so recall
 * reads them too. A header that still fails is reported with the first error.
 */
function loadLenient(header: string): unknown {
  try {
    return loadYaml(header, 'invalid YAML frontmatter');
  } catch (err) {
    // Only a syntax error is retried: a header refused by the node budget (an alias bomb) stays refused.
    if (!(err instanceof YamlSyntaxError)) throw err;
    const quoted = header
      .split('\n')
      .map((line) => {
        const m = UNQUOTED_SPECIAL.exec(line);
        return m ? `${m[1]}: '${m[2]!.replace(/'/g, "''")}'` : line;
      })
      .join('\n');
    if (quoted === header) throw err;
    try {
      return loadYaml(quoted, 'invalid YAML frontmatter');
    } catch {
      throw err;
    }
  }
}

/** Parse a YAML document that must be a mapping (entity sidecars); throws FrontmatterError otherwise. */
export function parseYamlMapping(text: string): Record<string, unknown> {
  const parsed = loadYaml(text, 'invalid YAML');
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new FrontmatterError('YAML document is not a mapping');
  return parsed as Record<string, unknown>;
}
