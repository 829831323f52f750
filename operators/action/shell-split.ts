/**
 * A shell line cut into the parts that are simple commands, the way a shell reads its operators:
 * at `&&`, `||`, `;`, `|`, `(`, `)`, `$(` and backquotes, but not inside quotes, where they are text
 * (`psql -c "CREATE INDEX ...; SELECT 1"`, `git commit -m "fix: a; b"`). Pure.
 *
 * Each line is read apart and a quote left open at its end is closed there: a heredoc's body
 * (`don't` in a commit message) is no shell syntax, and one stray quote must not swallow the
 * commands of the lines after it.
 */

import { program } from './looking.js';

/** The operators that end a simple command outside quotes, longest first. */
const OPERATORS = ['&&', '||', '$(', ';', '|', '(', ')', '`'];

/**
 * The parts of a shell line between its operators (quotes kept, for the word split after). A
 * command substitution inside double quotes (`echo "$(cat .env)"`, "`date`") runs its command as
 * one outside them does; a backslash outside quotes makes the next character text (`don\'t`, `\;`).
 */
export function commandParts(line: string): string[] {
  const out: string[] = [];
  for (const text of line.split('\n')) {
    let part = '';
    let quote: '"' | "'" | null = null;
    // The substitutions opened inside double quotes, innermost last: what closes each, its open `(`s
    // and the part around it (which goes on after it).
    const inner: { close: ')' | '`'; depth: number; outer: string }[] = [];
    const cut = (): void => {
      out.push(part);
      part = '';
    };
    for (let i = 0; i < text.length; i += 1) {
      const ch = text[i]!;
      // A backslash escapes the next character outside quotes and inside double quotes.
      if (ch === '\\' && quote !== "'" && i + 1 < text.length) {
        part += ch + text[i + 1]!;
        i += 1;
        continue;
      }
      if (quote === '"' && (text.startsWith('$(', i) || ch === '`')) {
        inner.push({ close: ch === '`' ? '`' : ')', depth: 0, outer: part });
        part = '';
        quote = null;
        i += ch === '`' ? 0 : 1;
        continue;
      }
      if (quote) {
        if (ch === quote) quote = null;
        part += ch;
        continue;
      }
      const sub = inner[inner.length - 1];
      if (sub && ch === sub.close && sub.depth === 0) {
        // The substitution ends: back inside the double quotes, and the part, it was opened in.
        out.push(part);
        part = inner.pop()!.outer;
        quote = '"';
        continue;
      }
      if (sub && (ch === '(' || text.startsWith('$(', i))) sub.depth += 1;
      if (sub && ch === ')') sub.depth -= 1;
      if (ch === '"' || ch === "'") {
        quote = ch;
        part += ch;
        continue;
      }
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (op) {
        cut();
        i += op.length - 1;
        continue;
      }
      part += ch;
    }
    // A substitution the line leaves open (a heredoc's `"$(cat <<EOF`) ends with it, and the command it was in.
    out.push(part, ...inner.reverse().map((s) => s.outer));
  }
  return out;
}

/** Options whose value is prose a person reads: a commit or tag message, a pull request's or issue's title and body. */
export const PROSE_OPTIONS: readonly string[] = ['-m', '--message', '--title', '--body', '--description', '--notes', '--subject'];
/** The same, short, for the forges' CLIs (`gh pr create -t … -b …`), where `-t` and `-b` mean nothing else. */
export const FORGE_PROSE_OPTIONS: readonly string[] = ['-t', '-b'];

/**
 * `-m "$(cat <<'EOF' … EOF)"` is the text of its heredoc, the way Claude Code writes a commit message or
 * a pull request's body: its lines are no commands ("npm install no longer runs …" in a message runs
 * nothing). It becomes that text, one line, inside the quotes around it (`-m "fix: a …"`), its quotes,
 * backquotes, `$` and backslashes taken out so it stays one word. Only where it is the value of a
 * message option, with nothing the shell expands in the body (a quoted tag, or no `$` and no
 * backquote), and ended where the shell ends it (the first line that is the tag): a heredoc a shell
 * runs (`bash -c "$(cat <<EOF …`), one that substitutes, and one with the tag on an earlier line stay as written.
 */
export function literalHeredocs(line: string): string {
  if (!line.includes('<<')) return line;
  return line.replace(HEREDOC_TEXT_RE, (whole, before: string, quote: string, tag: string, body: string) =>
    body.split('\n').some((l) => l.replace(/^\t+/, '') === tag) || (quote === '' && /[$`]/.test(body))
      ? whole
      : before +
        body
          .replace(/["'`$\\]/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
  );
}

/**
 * A message option, its opening quote, then `$(cat <<'TAG'` (or `<<TAG`, `<<"TAG"`, `<<-'TAG'`), its body, the line
 * holding TAG alone, and the closing `)`. The trailer is written so that no two runs of blanks meet
 * (a hostile line of blanks must not cost quadratic time).
 */
const HEREDOC_TEXT_RE = new RegExp(
  `((?:^|\\s)(?:${[...PROSE_OPTIONS, ...FORGE_PROSE_OPTIONS].join('|')})(?:=|\\s+)")` +
    `\\$\\(\\s*cat\\s+<<-?\\s*(['"]?)([A-Za-z_]\\w{0,30})\\2[ \\t]*\\n([\\s\\S]*?)\\n[ \\t]*\\3[ \\t]*(?:\\n[ \\t]*)?\\)`,
  'g',
);

/** Options of ssh that take a value (the word after them is no host). */
const SSH_VALUE_FLAGS = new Set([
  '-b',
  '-c',
  '-D',
  '-E',
  '-e',
  '-F',
  '-I',
  '-i',
  '-J',
  '-L',
  '-l',
  '-m',
  '-O',
  '-o',
  '-p',
  '-Q',
  '-R',
  '-S',
  '-W',
  '-w',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ash', 'ksh']);

/**
 * The shell scripts a command runs elsewhere, as one line each: what `ssh host '…'` runs on the
 * host, and the script of a shell started with `-c` further on (`docker compose exec api sh -c '…'`,
 * `kubectl exec pod -- bash -lc '…'`). A command given that way is as much the call's action as
 * one run here (`ssh mac 'cd ios && xcrun altool --upload-app …'` uploads a build).
 */
export function nestedScripts(words: readonly string[]): string[] {
  if (program(words) === 'ssh') {
    let i = 1;
    while (i < words.length && words[i]!.startsWith('-')) i += SSH_VALUE_FLAGS.has(words[i]!) ? 2 : 1;
    // words[i] is the host; what follows is the remote command line.
    return i + 1 < words.length ? [words.slice(i + 1).join(' ')] : [];
  }
  for (let k = 0; k + 2 < words.length; k += 1)
    if (SHELLS.has(program(words.slice(k))) && /^-[a-z]*c[a-z]*$/.test(words[k + 1]!)) return [words[k + 2]!];
  return [];
}
