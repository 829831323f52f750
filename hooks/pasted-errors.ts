/**
 * The error texts a prompt pastes (`sqlite3.OperationalError: database is locked`, 'Could not resolve
 * to a node with the global id of ...'), as the words that tell one error from another: the most
 * specific thing a prompt says about its problem. A learning the prompt hook is unsure of and whose
 * text holds none of them is about another problem of the same tool (prompt-pick.ts). Pure.
 */
import { constants } from 'node:os';
import { stemOf, textStems } from '../core/stems.js';

/** A span that reads as an error in words: an error's everyday wording. */
const ERROR_RE =
  /\b(?:error|errno|exception|failed|denied|refused|not found|no \w+ (?:found|named)|could not|cannot|can't|unable to|fatal|panic|timed out|no such|not allowed|forbidden)\b/i;
/**
 * Or an exception's name with its message (`OperationalError: database is locked`), or alone as a
 * class is named (`KeyError`, `ModuleNotFoundError`): a camelCase identifier alone (`handleError`,
 * `onError`) names code, not an error that happened.
 */
const RAISED_RE = /[a-z](?:Error|Exception)\b(?=:|\s)|(?<![\w.])(?:[\w]+\.)*[A-Z][A-Za-z0-9]*[a-z](?:Error|Exception)$/;

/** Words every error says: they tell no error from another. */
const GENERIC = new Set(
  `error errors errno exception exceptions failed failure fail fails denied refused found could cannot unable fatal panic timed
  such allowed forbidden with from that this have when while into there their what which after before about code line file
  unknown invalid`
    .split(/\s+/)
    .map(stemOf),
);

/**
 * Spans a prompt quotes: in backticks, or in single or double quotes (at most 300 characters). A
 * single quote inside a word is an apostrophe, not a quote: "I don't get it: the build failed and
 * it's blocking" quotes nothing.
 */
const QUOTED_RE = /`([^`\n]{3,300})`|(?<![A-Za-z0-9])'([^'\n]{3,300})'(?![A-Za-z0-9])|"([^"\n]{3,300})"/g;

/**
 * Tokens that name one error, not words every error of its kind says: a snake_case name (a config
 * key `max_client_conn`, a program `pg_config`, an error code `ERR_REQUIRE_ESM`) or a system error's
 * code (`ECONNREFUSED`, `EADDRINUSE`: the platform's errno names, and `ENOTFOUND`, which Node's DNS
 * lookups report). A note about that error names it; one that does not is about another error of the
 * same tool. A CamelCase exception name is none: a note on "could not find a valid Docker
 * environment" rarely repeats `IllegalStateException`.
 */
const SNAKE_RE = /^(?:[A-Za-z0-9]+_)+[A-Za-z0-9]+$/;
// Five letters at least: a three-letter one (`EIO`) is as likely an abbreviation of something else.
const ERRNO = new Set([...Object.keys(constants.errno), 'ENOTFOUND'].filter((k) => k.length >= 5));
const namesError = (token: string): boolean => (SNAKE_RE.test(token) && /[A-Za-z]/.test(token)) || ERRNO.has(token);

/** Whether a quoted span reads as an error: in words, as a raised exception, or by a system error's code. */
const isError = (span: string): boolean => ERROR_RE.test(span) || RAISED_RE.test(span) || span.split(/[^A-Z]+/).some((t) => ERRNO.has(t));

/** The error texts a prompt quotes (the first 4,000 characters read), without what each names of its own case. */
function quotedErrors(prompt: string): string[] {
  const out: string[] = [];
  for (const m of prompt.slice(0, 4000).matchAll(QUOTED_RE)) {
    const span = m[1] ?? m[2] ?? m[3] ?? '';
    // What the error names of this one case (a quoted branch or file, a path) is not the error's wording.
    if (isError(span)) out.push(span.replace(/'[^']*'|"[^"]*"|\S*[/\\]\S*/g, ' '));
  }
  return out;
}

/**
 * The tokens that name the errors a prompt quotes (namesError), lower-cased: `FATAL: no more
 * connections allowed (max_client_conn)` → max_client_conn. Empty when it quotes none.
 */
export function pastedErrorNames(prompt: string): Set<string> {
  const out = new Set<string>();
  for (const wording of quotedErrors(prompt))
    for (const token of wording.split(/[^A-Za-z0-9_]+/)) if (namesError(token)) out.add(token.toLowerCase());
  return out;
}

/**
 * Whether a note's text names none of the errors' names (false when the prompt quotes no such name):
 * a pgbouncer note on prepared statements and `no more connections allowed (max_client_conn)`.
 */
export function namesNoPastedError(names: ReadonlySet<string>, noteText: string): boolean {
  if (names.size === 0) return false;
  const text = noteText.slice(0, 20_000).toLowerCase();
  return ![...names].some((n) => text.includes(n));
}

/**
 * The distinguishing word stems of the error texts a prompt quotes (the first 4,000 characters
 * read): each error's words of four letters or more, camelCase split and whole, less the words
 * every error says. Empty when the prompt quotes no error.
 */
export function pastedErrorStems(prompt: string): Set<string> {
  const out = new Set<string>();
  for (const wording of quotedErrors(prompt)) {
    for (const token of wording.split(/[^A-Za-z0-9]+/)) {
      const words = [token, ...token.split(/(?<=[a-z])(?=[A-Z])/)];
      for (const w of words)
        if (/^[A-Za-z][A-Za-z0-9]{3,}$/.test(w) && !GENERIC.has(stemOf(w.toLowerCase()))) out.add(stemOf(w.toLowerCase()));
    }
  }
  return out;
}

/** Whether a note's text holds none of the pasted errors' words (false when the prompt quotes no error). */
export function missesPastedErrors(errors: ReadonlySet<string>, noteText: string): boolean {
  if (errors.size === 0) return false;
  const stems = textStems(noteText, 20_000);
  return ![...errors].some((s) => stems.has(s));
}

/** Distinguishing words an error must have for the share a note holds to say anything. */
const MIN_ERROR_WORDS = 3;
/**
 * Share of them a note about that error holds at least: on the shared prompt sets every labelled note
 * holds more; a long driver error ("is the server running on host ... accepting TCP/IP connections
 * on port 5432?") says much a note on the port never repeats, so not half.
 */
const MIN_ERROR_SHARE = 1 / 3;

/**
 * Whether a note's text holds too few of the pasted errors' words to be about that error: under a
 * third of them, of three or more. "`rpc error: code = ResourceExhausted desc = tenant 5521 over
 * ingest quota`" shares `ResourceExhausted` with a note on gRPC message size, and none of tenant,
 * ingest, quota: the same error code, another problem. False when the prompt quotes no such error.
 */
export function coversFewPastedErrors(errors: ReadonlySet<string>, noteText: string): boolean {
  if (errors.size < MIN_ERROR_WORDS) return false;
  const stems = textStems(noteText, 20_000);
  return [...errors].filter((s) => stems.has(s)).length < errors.size * MIN_ERROR_SHARE;
}
