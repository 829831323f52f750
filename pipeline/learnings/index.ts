/**
 * A learning as an agent or a person hands it to recall, checked and cleaned before it becomes a
 * note (pipeline/notes/notes.ts `addNote`, the one writer behind `recall add` and the MCP `save` tool).
 *
 * - Checked (`checkLearning`): every field has a size limit and a shape; a field that breaks one is
 *   refused with a message naming the field and the rule, never silently cut.
 * - Cleaned (`cleanNote`, applied to every note written): secrets are scrubbed (sinks/scrub/scrub.ts) and
 *   invisible or control characters removed (sinks/safe-text.ts), in every text field.
 * - Ids (`checkId`): what recall shows as an id (sinks/safe-text.ts), so no id can name a path
 *   outside the KB; file names come from the title's slug (sinks/note-writer.ts), never from input.
 */
import { UsageError } from '../../core/errors.js';
import { CONFIDENCE_TIERS, type ConfidenceTier } from '../../core/confidence.js';
import { scrub } from '../../sinks/scrub/index.js';
import { safeId, stripControls } from '../../sinks/safe-text.js';
import type { NewNote } from '../../sinks/note-writer.js';

/** Limits of each field, in characters. A title is a line; an insight a few sentences; a body a page or two. */
export const LEARNING_LIMITS = {
  title: 200,
  insight: 1000,
  apply: 1000,
  body: 20_000,
  tags: 20,
  tag: 40,
  when: 20,
  whenEntry: 200,
  type: 40,
  id: 128,
} as const;

/** A tag or learning type: lower-case words joined by `-`, `_` or `.` (what tag boosts and glyph tables match). */
const WORD_LIST_RE = /^[a-z0-9][a-z0-9._-]*$/;

/** A learning as the MCP `save` tool takes it. */
export interface LearningInput {
  title: string;
  insight: string;
  how_to_apply?: string;
  tags?: string[];
  confidence?: string;
  type?: string;
  body?: string;
  id?: string;
  /** When it applies: commands (`pnpm|npm install`) and path globs (`apps/api/**`), one per entry. */
  applies_when?: string[];
}

/** Text without invisible or control characters (newlines and tabs kept), without surrounding space. */
export const visibleText = (s: string): string => stripControls(s).trim();

function oneLine(field: string, raw: string, max: number, required: boolean): string {
  const v = visibleText(raw);
  if (required && !v) throw new UsageError(`${field}: must not be empty`);
  if (/[\r\n]/.test(v)) throw new UsageError(`${field}: must be one line`);
  if (v.length > max) throw new UsageError(`${field}: ${v.length} characters, at most ${max}`);
  return v;
}

function text(field: string, raw: string | undefined, max: number): string {
  const v = visibleText(raw ?? '');
  if (v.length > max) throw new UsageError(`${field}: ${v.length} characters, at most ${max}`);
  return v;
}

/** A note id given by a caller: what recall can show as an id (letters, digits, `._:@/-`, ≤ 128), and no path steps. */
export function checkId(field: string, raw: string): string {
  const id = raw.trim();
  if (!id) throw new UsageError(`${field}: must not be empty`);
  if (id.length > LEARNING_LIMITS.id || safeId(id) !== id || id.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    throw new UsageError(
      `${field}: ${JSON.stringify(id.slice(0, 60))} is not a note id (letters, digits and ._:@/- only, at most ${LEARNING_LIMITS.id})`,
    );
  }
  return id;
}

/** A learning checked field by field, as the note writer takes it. Throws UsageError naming the field. */
export function checkLearning(a: LearningInput): NewNote {
  const title = oneLine('title', a.title, LEARNING_LIMITS.title, true);
  const keyInsight = oneLine('insight', a.insight, LEARNING_LIMITS.insight, true);
  const howToApply = oneLine('how_to_apply', a.how_to_apply ?? '', LEARNING_LIMITS.apply, false);
  const body = text('body', a.body, LEARNING_LIMITS.body);
  const tags = (a.tags ?? []).map((t) => visibleText(t).toLowerCase()).filter(Boolean);
  if (tags.length > LEARNING_LIMITS.tags) throw new UsageError(`tags: ${tags.length} tags, at most ${LEARNING_LIMITS.tags}`);
  for (const t of tags)
    if (t.length > LEARNING_LIMITS.tag || !WORD_LIST_RE.test(t))
      throw new UsageError(
        `tags: ${JSON.stringify(t.slice(0, 60))} is not a tag (lower-case letters, digits and . _ -, at most ${LEARNING_LIMITS.tag})`,
      );
  const appliesWhen = checkAppliesWhen(a.applies_when ?? []);
  const confidence = (a.confidence ?? 'medium').trim().toLowerCase();
  if (!(CONFIDENCE_TIERS as readonly string[]).includes(confidence))
    throw new UsageError(`confidence: ${JSON.stringify(confidence.slice(0, 20))} is not one of ${CONFIDENCE_TIERS.join(', ')}`);
  const learningType = (a.type ?? 'pattern').trim().toLowerCase();
  if (learningType.length > LEARNING_LIMITS.type || !WORD_LIST_RE.test(learningType))
    throw new UsageError(
      `type: ${JSON.stringify(learningType.slice(0, 60))} is not a learning type (e.g. pattern, bug-fix, decision, correction, anti-pattern)`,
    );
  return {
    title,
    keyInsight,
    ...(howToApply ? { howToApply } : {}),
    ...(body ? { body } : {}),
    tags,
    confidence: confidence as ConfidenceTier,
    learningType,
    ...(a.id ? { id: secretFree('id', checkId('id', a.id)) } : {}),
    ...(appliesWhen.length ? { appliesWhen } : {}),
  };
}

/**
 * The `applies_when` entries: each one line, a command or a path glob, at most LEARNING_LIMITS.when
 * of them. Throws UsageError naming the field and the entry.
 */
export function checkAppliesWhen(raw: readonly string[]): string[] {
  const out = raw.map((w) => visibleText(String(w))).filter(Boolean);
  if (out.length > LEARNING_LIMITS.when) throw new UsageError(`applies_when: ${out.length} entries, at most ${LEARNING_LIMITS.when}`);
  for (const w of out) {
    if (/[\r\n]/.test(w)) throw new UsageError(`applies_when: ${JSON.stringify(w.slice(0, 60))} must be one line`);
    if (w.length > LEARNING_LIMITS.whenEntry)
      throw new UsageError(`applies_when: an entry of ${w.length} characters, at most ${LEARNING_LIMITS.whenEntry}`);
  }
  return [...new Set(out)];
}

/** An id is a file name and shown everywhere: one that looks like a secret is refused, not scrubbed. */
function secretFree(field: string, v: string): string {
  if (scrub(v) !== v) throw new UsageError(`${field}: looks like a secret; choose another`);
  return v;
}

/** Every text field of a note with secrets scrubbed and invisible characters removed: what is written to disk. */
export function cleanNote(n: NewNote): NewNote {
  const clean = (s: string): string => scrub(stripControls(s));
  return {
    ...n,
    title: clean(n.title),
    keyInsight: clean(n.keyInsight),
    ...(n.howToApply !== undefined ? { howToApply: clean(n.howToApply) } : {}),
    ...(n.body !== undefined ? { body: clean(n.body) } : {}),
    ...(n.tags ? { tags: n.tags.map(clean) } : {}),
    ...(n.appliesWhen ? { appliesWhen: n.appliesWhen.map(clean) } : {}),
    ...(n.learningType !== undefined ? { learningType: clean(n.learningType) } : {}),
  };
}

type Env = Readonly<Record<string, string | undefined>>;

/** A session id fit for a provenance line; anything else is not recorded. */
const SESSION_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Who is writing a note, for its provenance block: the tool (`recall add`, `recall mcp`), the
 * harness and its session. Claude Code gives its tools and MCP servers CLAUDECODE=1 and
 * CLAUDE_CODE_SESSION_ID; Codex gives its commands CODEX_THREAD_ID; REFLECT_HARNESS names any
 * harness; an MCP client's own name (from the handshake) is the last resort. `fallbackSession`
 * (an MCP connection's id) keeps the notes of one conversation together when no session is known.
 */
export function provenanceOf(
  env: Env,
  tool: string,
  opts: { client?: string; sessionId?: string | null; fallbackSession?: string } = {},
): { tool: string; harness?: string; sessionId?: string } {
  const named = (env['REFLECT_HARNESS'] ?? '').trim().toLowerCase();
  const client = opts.client ?? '';
  const harness =
    named === 'claude' || named === 'codex' || named === 'copilot'
      ? named
      : env['CLAUDECODE'] === '1' || /claude/i.test(client)
        ? 'claude'
        : env['CODEX_THREAD_ID'] || /codex/i.test(client)
          ? 'codex'
          : /copilot/i.test(client)
            ? 'copilot'
            : // Scrubbed whole before it is cut: a token cut short no longer looks like one.
              scrub(client)
                .replace(/[^A-Za-z0-9._-]/g, '')
                .slice(0, 40);
  const session = [opts.sessionId, env['CLAUDE_CODE_SESSION_ID'], env['CLAUDE_SESSION_ID'], env['CODEX_THREAD_ID'], opts.fallbackSession]
    .map((s) => (s ?? '').trim())
    .find((s) => SESSION_RE.test(s) && scrub(s) === s);
  return { tool, ...(harness ? { harness } : {}), ...(session ? { sessionId: session } : {}) };
}
