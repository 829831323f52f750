/**
 * The code a note tells the agent to write, and what it warns against writing. A rule such as
 * "CPU-heavy work goes through `tokio::task::spawn_blocking`" is being followed by an edit that
 * brings in that call and does nothing else: the agent needs no reminder then (followed.ts). The
 * same note still applies to an edit that writes code it warns of, or new code without the call. Pure.
 */
import type { SpanStance } from './stances.js';

/** A qualified name at the start of a span: `fmt.Errorf(...)`, `tokio::task::spawn_blocking`, `errors.Is`. */
const QUALIFIED_RE = /^[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+/;
/** A name ending like a file (`errors.go`, `writer.rs`, `schema.sql`): a file a note names, not code to write. */
const FILE_NAME_RE = /\.(?:go|rs|ts|tsx|js|jsx|mjs|py|rb|java|kt|swift|c|h|cc|cpp|cs|md|ya?ml|json|toml|sql|proto|sh|txt|lock|mod)$/i;
/** Words before a quoted phrase that forbid it ("no \"failed to\" prefixes", "never \"TODO\""). */
const FORBID_CUE = /\b(?:never|no|not|don'?t|do not|avoid|without)\b[^.;!?\n]{0,40}$/i;
/** A quoted phrase in plain text, and the longest kept (a sentence in quotes is no phrase to look for). */
const QUOTED_RE = /"([^"\n]{2,40})"/g;
/** At most this many of each per note: a note of hundreds of spans must not make every edit slow. */
const MAX_PER_NOTE = 50;

export interface Adoption {
  /** Qualified names the note recommends writing, lower-cased (`fmt.errorf`, `tokio::task::spawn_blocking`). */
  adoptTokens: Set<string>;
  /** What it warns against writing, lower-cased: its warned code spans and the quoted phrases it forbids. */
  forbidden: Set<string>;
}

/** What a note recommends writing and warns against writing (see the module comment). */
export function adoptionOf(stances: readonly SpanStance[], text: string): Adoption {
  const adoptTokens = new Set<string>();
  const forbidden = new Set<string>();
  for (const s of stances) {
    const span = s.span.trim();
    if (s.warned && span.length <= 60 && forbidden.size < MAX_PER_NOTE) forbidden.add(span.toLowerCase());
    // Only a span that is the name alone (`tokio::task::spawn_blocking`, `errors.Is()`): one with
    // arguments recommends them too (`fmt.Errorf("…: %w", err)`, where `%v` would lose the wrapping),
    // and whether an edit's own arguments keep that is not known here.
    const head = s.recommended && !s.warned ? QUALIFIED_RE.exec(span)?.[0] : undefined;
    const alone = head !== undefined && /^(?:\(\))?$/.test(span.slice(head.length));
    if (alone && !FILE_NAME_RE.test(head) && adoptTokens.size < MAX_PER_NOTE) adoptTokens.add(head.toLowerCase());
  }
  for (const m of text.slice(0, 20_000).matchAll(QUOTED_RE)) {
    if (forbidden.size >= MAX_PER_NOTE) break;
    if (FORBID_CUE.test(text.slice(Math.max(0, (m.index ?? 0) - 60), m.index ?? 0))) forbidden.add(m[1]!.toLowerCase());
  }
  return { adoptTokens, forbidden };
}

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether code holds a qualified name as a name (not inside a longer one: `errors.Is` is not in `myerrors.IsValid`). */
export function writesName(code: string, name: string): boolean {
  return new RegExp(`(?<![\\w.:])${escaped(name)}(?![\\w])`, 'i').test(code);
}

/**
 * The names of `adoptTokens` an edit brings in (in the lines it adds, not in the text it replaces),
 * or [] when it writes anything else: a line without one of them (a `log.Printf` beside the wrapped
 * error may be just what the note forbids in words, "never log and return"), or anything the note
 * forbids. Only an edit that does no more than adopt the note's code is known to follow it.
 */
export function adoptedNames(a: Adoption, added: string, before: string): string[] {
  const names = [...a.adoptTokens].filter((t) => writesName(added, t) && !writesName(before, t));
  if (names.length === 0) return [];
  const lines = added.split('\n').filter((l) => /[A-Za-z0-9]/.test(l));
  if (!lines.every((l) => names.some((n) => writesName(l, n)))) return [];
  const lower = added.toLowerCase();
  return [...a.forbidden].some((f) => lower.includes(f)) ? [] : names;
}
