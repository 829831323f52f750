/**
 * The code a note writes, read as commands: its inline code spans and code block lines, the commands
 * they name, and the commands and options it recommends. Pure.
 */
import { shellCommands } from './tool-call.js';
import { ANY_GLOB, PROGRAM_RE, commandWords, foldWord, programWord, type CommandPattern } from './patterns.js';
import { trimToken } from './terms.js';

/** A command a note recommends: its words (a placeholder's fixed prefix kept), and whether it ends open (`...`, `<args>`). */
export interface Recommended {
  words: string[];
  open: boolean;
  /** Its options that are how the note happened to run it, not what it is about (incidentalOptions): a run without them still follows it. */
  incidental?: ReadonlySet<string>;
}

/**
 * Switches that pick which of a workspace's packages a command runs on (`--workspace`, `--all`, `-r`):
 * `cargo nextest run -p compactor` follows "use `cargo nextest run --workspace`", the same command
 * on one package. Any other option a note writes in a command it recommends is the point
 * (`npm ci --ignore-scripts`, `git pull --rebase`, `kubectl apply --server-side`).
 */
const SCOPE_SWITCHES = new Set(['--workspace', '--workspaces', '--all', '--all-packages', '--all-targets', '-r', '--recursive']);

/** The options of a recommended command that a run may leave out: its scope switches (SCOPE_SWITCHES). */
export function incidentalOptions(r: Recommended): Set<string> {
  return new Set(r.words.filter((w, k) => k > 0 && SCOPE_SWITCHES.has(w)));
}

/** A placeholder in a documented command (`<exact-name>`, `{id}`, `$VAR`, `...`), not a word to match. */
const PLACEHOLDER_RE = /^[<{[$]|\.\.\.|^[A-Z_]+$/;

/** The code spans of a text (core/note: one parser for notes and memories alike). */
export { codeSpans } from '../../core/note/index.js';

/** Lines of fenced code blocks. */
export function codeLines(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) out.push(...m[1]!.split('\n'));
  return out;
}

/** A recommended span's commands with every word (`<sha>` in `--fixup=<sha>` keeps `--fixup=`). */
export function recommendedCommands(code: string): Recommended[] {
  const out: Recommended[] = [];
  for (const words of shellCommands(code)) {
    const sql = sqlStatement(words);
    if (sql) {
      out.push({ words: sql.words.map((w) => w[0]!), open: true });
      continue;
    }
    const program = programWord(words[0] ?? '');
    if (!PROGRAM_RE.test(program) || program.length < 2) continue;
    let open = false;
    const rest: string[] = [];
    for (const w of words.slice(1, 16)) {
      const cut = w.search(/[<{[$]|\.\.\./);
      if (PLACEHOLDER_RE.test(w) || cut === 0) open = true;
      else rest.push(foldWord(cut > 0 ? w.slice(0, cut) : w));
    }
    out.push({ words: [program, ...rest], open });
  }
  return out;
}

/** The keywords that open a SQL statement that changes something, as notes write them (in capitals). */
const SQL_STATEMENT = /^(?:CREATE|DROP|ALTER|UPDATE|DELETE|INSERT|VACUUM|REINDEX|TRUNCATE|GRANT|REVOKE|CLUSTER)$/;

/**
 * A SQL statement a span writes (`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS`, `ALTER TABLE
 * invoices ADD COLUMN tax_region text`) as a command: its keywords, the words in capitals, in order
 * (the names between them are this one case's); null for anything else. A database client's
 * statements are commands of a call (shell-split.ts), so a call that runs it names it.
 */
function sqlStatement(words: readonly string[]): CommandPattern | null {
  if (!SQL_STATEMENT.test(words[0] ?? '')) return null;
  const keywords = words
    .slice(1)
    .map((w) => w.replace(/[;,()]+$/, ''))
    .filter((w) => /^[A-Z]{2,}$/.test(w))
    .slice(0, 8);
  return keywords.length > 0 ? { words: [[words[0]!.toLowerCase()], ...keywords.map((w) => [w.toLowerCase()])] } : null;
}

/** The commands a code span or code line names: a program with at least one word after it, or a SQL statement. */
export function namedCommands(code: string): CommandPattern[] {
  const out: CommandPattern[] = [];
  for (const words of shellCommands(code.replace(/#.*$/, ''))) {
    const sql = sqlStatement(words);
    if (sql) {
      out.push(sql);
      continue;
    }
    const program = programWord(words[0] ?? '');
    if (!PROGRAM_RE.test(program) || program.length < 2) continue;
    const rest = commandWords(words).filter((w) => !PLACEHOLDER_RE.test(w));
    if (rest.length === 0) continue;
    // A glob argument (`rm -f *.tmp`) stands for any glob: the note is about the command run on a pattern.
    const word = (w: string): string => (/[*?]/.test(w) ? ANY_GLOB : foldWord(trimToken(w)));
    out.push({ words: [[program], ...rest.map((w) => [word(w)])] });
  }
  return out;
}

/**
 * What a note's recommended spans say to run: the commands, and the options any of them names
 * (a span of options alone, `--tests '*CartViewModelTest'`, included).
 */
export function recommendations(
  stances: readonly { span: string; recommended: boolean; warned?: boolean }[],
  max: number,
): { recommends: Recommended[]; recommendedFlags: Set<string> } {
  const spans = stances.filter((s) => s.recommended).map((s) => s.span);
  // A command the note also warns of, written the same ("Don't run `dbt build` without a selector …
  // Prefer `dbt build` over `dbt run`"), is not to be run as it stands: the warning says how not.
  const warned = new Set(
    stances
      .filter((s) => s.warned)
      .flatMap((s) => recommendedCommands(s.span))
      .map((r) => r.words.join(' ')),
  );
  const recommends = spans
    .flatMap(recommendedCommands)
    .filter((r) => !warned.has(r.words.join(' ')))
    .slice(0, max)
    .map((r) => ({ ...r, incidental: incidentalOptions(r) }));
  const flags = [...recommends.flatMap((r) => r.words.slice(1)), ...spans.flatMap((s) => s.trim().split(/\s+/))]
    .map(foldWord)
    .filter((w) => /^--?[a-z]/i.test(w));
  return { recommends, recommendedFlags: new Set(flags.slice(0, max)) };
}

/**
 * Options a text names in words, as a word joined to the subcommand of a command it recommends:
 * "never force-push" or "don't force push" with `git push` names `--force` (and so `-f`). What
 * such a word says of the command is what the note is about, so a run passing it does not follow.
 */
export function spokenFlags(text: string, recommends: readonly Recommended[]): string[] {
  const prose = text.replace(/`[^`\n]*`/g, ' ');
  const subs = new Set(recommends.map((r) => r.words[1] ?? '').filter((w) => /^[a-z]{3,}$/.test(w)));
  const out = new Set<string>();
  if (subs.size === 0) return [];
  for (const m of prose.matchAll(/\b([a-z]{3,})(?=(-|\s+)([a-z]{3,})\b)/gi)) {
    const negated = /\b(?:never|not|don'?t|do not|avoid|no)\s+$/i.test(prose.slice(Math.max(0, m.index - 12), m.index));
    if (subs.has(m[3]!.toLowerCase()) && (m[2] === '-' || negated)) out.add(`--${m[1]!.toLowerCase()}`);
  }
  return [...out].slice(0, 20);
}
