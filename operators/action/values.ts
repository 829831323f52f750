/**
 * The values a note pins (a version, a date-stamped API version: `2024-06-20`, `16.3`, `10.x`) and an
 * edit that replaces one. Pure. A note that says "Stripe stays on API version 2024-06-20" or "RDS
 * runs 16.3 until the extension is certified" is about any change of that value, whatever the edit's
 * other words: `stripe.api_version = "2024-06-20"` → `"2025-03-31.basil"` shares one token with it,
 * and that token is what the note is about.
 */
import { stemOf } from '../../core/stems.js';
import { rawTokens } from './terms.js';
import type { ToolAction } from './tool-call.js';
import { addedLines } from './tool-call.js';

/** A version or dated value: digits with at least one `.` or `-` part (`16.3`, `2024-06-20`, `v2.31.0`, `10.x`), a suffix allowed (`.basil`). */
const VALUE_RE = /^v?\d+(?:[.-](?:\d+|x))+(?:[.-][A-Za-z][A-Za-z0-9]*)?$/;
/**
 * Or a name the note writes as code, of parts joined by `-`, `_` or `.` (`skerry-compactor`,
 * `compactor-v1`): the identity of one thing (a consumer group, a queue, a bucket). A note that tells
 * how such a name came to be, or that it must not change, is about an edit that replaces it. A file
 * name (`groups.go`) is none: it is where code lives, not a value the code holds.
 */
const NAME_VALUE_RE = /^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+$/;
const FILE_NAME_RE =
  /\.(?:go|rs|ts|tsx|js|jsx|mjs|cjs|vue|svelte|py|rb|java|kt|kts|gradle|swift|c|h|cc|cpp|cs|php|ex|exs|md|rst|html?|css|scss|sass|less|xml|ya?ml|json|toml|sql|prisma|proto|tf|tfvars|hcl|sh|bash|zsh|ps1|txt|csv|lock|mod|sum|conf|cfg|ini|env|properties|dockerfile)$/;
/** Shortest such name kept (`a-b` says nothing). */
const MIN_NAME_VALUE = 6;

/** Values kept per note (a changelog of hundreds of versions names no one value it pins). */
const MAX_VALUES = 20;

/** A token without the quotes and punctuation around it, lower-cased. */
const bare = (token: string): string => token.replace(/^["'`(]+|["'`),;:]+$/g, '').toLowerCase();

/** A token as a value, lower-cased, or '' (too short to say anything: `1.0`). */
function valueOf(token: string): string {
  const t = bare(token);
  return t.length >= 4 && VALUE_RE.test(t) ? t : '';
}

/** A token as a name value (NAME_VALUE_RE), lower-cased, or ''. */
function nameValueOf(token: string): string {
  const t = bare(token);
  return t.length >= MIN_NAME_VALUE && NAME_VALUE_RE.test(t) && !FILE_NAME_RE.test(t) ? t : '';
}

/**
 * The values a note's focus text names (what it is about, not the story of its body), and the names
 * it writes as code spans of their own (`spans`: of its focus and its rule).
 */
export function noteValues(focus: string, spans: readonly string[] = []): Set<string> {
  const out = new Set<string>();
  for (const tok of rawTokens(focus, 2000)) {
    const v = valueOf(tok);
    if (v) out.add(v);
    if (out.size >= MAX_VALUES) return out;
  }
  for (const span of spans) {
    const v = nameValueOf(span.trim());
    if (v) out.add(v);
    if (out.size >= MAX_VALUES) break;
  }
  return out;
}

/** The values an edit drops and does not write again: what it replaces. */
export function replacedValues(action: ToolAction): Set<string> {
  if (action.kind !== 'edit' || !action.before) return new Set();
  const values = (text: string): string[] => rawTokens(text).flatMap((t) => [valueOf(t), nameValueOf(t)].filter(Boolean));
  const kept = new Set(values(addedLines(action.text, action.before)));
  return new Set(values(action.before).filter((v) => !kept.has(v)));
}

/** Words any pinned value stands beside (`version: 1.0.0`), and the numbers a value is made of: no sign of the note's subject. */
const VALUE_WORDS = new Set(['version', 'versions', 'ver', 'v'].map(stemOf));
export const isValueWord = (s: string): boolean => VALUE_WORDS.has(s) || !/[a-z]{2}/.test(s);
