/**
 * Which tokens of a prompt are folders or files of the repository the work is in (queryTerms reads
 * their words as one place: core/stems.ts QueryTerm.pathWords). Pure string checks, no patterns
 * that backtrack: a prompt may be megabytes long.
 */

/**
 * Longest token read as a file path: a longer run with slashes is a pasted blob (base64, a minified
 * line), not a place.
 */
const MAX_PATH_CHARS = 300;

/**
 * A token without its trailing punctuation and, for a compiler's `src/lib.rs:142:13`, its line and
 * column: the file is the place. Trimmed from the end by hand (a pattern anchored at the end
 * backtracks over a long run of dots or `:1`s).
 */
function withoutLineNumbers(token: string): string {
  let end = token.length;
  while (end > 0 && '.:!?'.includes(token[end - 1]!)) end -= 1;
  for (;;) {
    let digits = end;
    while (digits > 0 && token[digits - 1]! >= '0' && token[digits - 1]! <= '9') digits -= 1;
    if (digits === end || digits === 0 || token[digits - 1] !== ':') break;
    end = digits - 1;
  }
  return token.slice(0, end);
}

/**
 * Tokens with slashes that name no folder of the repository: a pair of capitalised abbreviations
 * (CI/CD, TCP/IP, I/O) and a module path that starts with a domain (github.com/spf13/cobra).
 */
function notAPlace(token: string): boolean {
  const segments = token.split('/').filter(Boolean);
  return (
    segments.every((seg) => /^[\p{Lu}\p{N}]+$/u.test(seg)) || /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)*\.[\p{L}]{2,}$/u.test(segments[0] ?? '')
  );
}

/**
 * The token as a repository path (trailing punctuation and line numbers dropped), or null: it must
 * hold a `/`, start like a relative path (a letter, digit, `.` or `_`) and hold no `:` (a URL, a
 * socket, an image tag) nor be a scoped package (`@rollup/…`), an abbreviation pair or a module path.
 */
export function repositoryPath(raw: string): string | null {
  // Length first: what follows scans the token, and a pasted blob is no path.
  if (raw.length > 2 * MAX_PATH_CHARS || !raw.includes('/')) return null;
  const token = withoutLineNumbers(raw);
  if (token.length > MAX_PATH_CHARS || token.includes(':') || !/^[\p{L}\p{N}._]/u.test(token) || notAPlace(token)) return null;
  return token;
}
