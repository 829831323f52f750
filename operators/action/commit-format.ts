/**
 * The commit message format a rule states ("Subject `type(scope): imperative summary`, max 72 chars,
 * scope one of `ingestd`, `queryd` …"), and whether a `git commit` a call makes already follows it.
 * A commit written the way the rule asks needs no reminder of the rule: it is the rule applied. Only
 * what can be checked from the message is checked (the subject's shape, its prefix and scope where
 * the rule lists them, its length, a trailing period, trailers the rule forbids); a rule that states
 * no subject template gives no format, and its note is given as before. Pure.
 */
import { codeSpans } from './spans.js';
import { followsNote, passesFlag, runsPattern } from './commands.js';
import type { NoteTriggers } from './triggers.js';

export interface CommitFormat {
  /** The subject has a scope in parentheses after its prefix (`type(scope): …`). */
  scoped: boolean;
  /** The prefixes allowed (`feat`, `fix` … or the areas listed); null when any word will do. */
  prefixes: ReadonlySet<string> | null;
  /** The scopes allowed (the spans listed after "scope"); null when any will do. */
  scopes: ReadonlySet<string> | null;
  /** Longest subject the rule allows, in characters. */
  maxSubject: number | null;
  noTrailingPeriod: boolean;
  /** What the rule says never to write in a message (`Co-Authored-By`, "Generated with"), lower-cased. */
  forbidden: readonly string[];
}

/** The words a subject template uses for its prefix and scope (`type`, `<area>`, `component`). */
const PLACEHOLDER = String.raw`<?(?:type|kind|area|scope|component|module|package|service|context|dir)>?`;
/** A subject template: `type(scope): imperative summary`, `<area>: <imperative summary>`. */
const TEMPLATE_RE = new RegExp(String.raw`^(${PLACEHOLDER})(\(${PLACEHOLDER}\))?!?:\s*<?[a-z][\w\s-]*>?$`, 'i');
/** The Conventional Commits types, for a template whose prefix is `type` and a rule that lists none. */
const CONVENTIONAL = ['feat', 'fix', 'chore', 'docs', 'refactor', 'test', 'tests', 'perf', 'build', 'ci', 'style', 'revert', 'deps'];
/** A list of types in words: "types feat/fix/refactor/chore". */
const TYPE_LIST_RE = /\btypes?\b[^.\n`]{0,20}?\b([a-z]+(?:\s*[/,|]\s*[a-z]+){2,})/i;
const MAX_RE = /\b(?:max(?:imum)?|at most|up to|under|no more than|<=|≤)\s*(\d{2,3})\s*(?:char|chars|characters)\b/i;
const PERIOD_RE = /\bno (?:trailing )?period\b|\bwithout a (?:trailing )?period\b|\bnot end with a period\b/i;
/** Words that open a list of what never goes in a message ("No `Co-Authored-By` or "Generated with" trailers"). */
const NEVER_RE = /\b(?:no|never|don'?t add|do not add|without)\s+([^.\n]{0,120})/gi;
/** What says the list is of a message's parts (not "Never commit on `main`", a rule about branches). */
const MESSAGE_PART_RE = /\b(?:trailers?|lines?|footers?|attributions?|messages?|subjects?|signatures?)\b/i;
/** Characters of a rule read for its format. */
const MAX_RULE_CHARS = 4000;

/** The format a rule's text states, or null when it states no subject template. */
export function commitFormatOf(text: string): CommitFormat | null {
  const rule = text.slice(0, MAX_RULE_CHARS);
  const spans = codeSpans(rule, 200);
  const template = spans.map((s) => TEMPLATE_RE.exec(s.trim())).find(Boolean);
  if (!template) return null;
  const prefixWord = template[1]!.replace(/[<>]/g, '').toLowerCase();
  const scopeWord = template[2]?.replace(/[<>()]/g, '').toLowerCase();
  // The values listed in the sentence that names the placeholder ("scope one of `ingestd`, `queryd`",
  // "area being a context or top-level dir (`billing`, `dispatch`)").
  const listed = (word: string): Set<string> | null => {
    for (const sentence of rule.split(/(?<=[.;])\s+|\n/)) {
      // The word in the sentence's prose, not inside the template's own span.
      const prose = sentence.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
      const at = prose.search(new RegExp(String.raw`\b${word}s?\b`, 'i'));
      if (at < 0) continue;
      const values = codeSpans(sentence.slice(at), 50)
        .map((s) => s.trim())
        .filter((s) => /^[a-z][\w./-]{0,30}$/.test(s));
      if (values.length >= 2) return new Set(values);
    }
    return null;
  };
  const typeList = TYPE_LIST_RE.exec(rule)?.[1];
  const prefixes =
    prefixWord === 'type' || prefixWord === 'kind'
      ? new Set(typeList ? typeList.toLowerCase().split(/\s*[/,|]\s*/) : CONVENTIONAL)
      : listed(prefixWord);
  const forbidden: string[] = [];
  for (const m of rule.matchAll(NEVER_RE)) {
    if (!MESSAGE_PART_RE.test(m[1]!.replace(/`[^`]*`|"[^"]*"/g, ' '))) continue;
    for (const q of m[1]!.matchAll(/`([^`]{3,40})`|"([^"]{3,40})"/g)) forbidden.push((q[1] ?? q[2]!).toLowerCase());
  }
  return {
    scoped: Boolean(scopeWord),
    prefixes,
    scopes: scopeWord ? listed(scopeWord) : null,
    maxSubject: Number(MAX_RE.exec(rule)?.[1]) || null,
    noTrailingPeriod: PERIOD_RE.test(rule),
    forbidden,
  };
}

/** The subject line shapes: `type(scope)!: summary`, `area: summary`. */
const SCOPED_SUBJECT = /^([a-z][\w-]*)\(([^()\s]+)\)!?: \S/;
const PLAIN_SUBJECT = /^([a-z][\w-]*)!?: \S/;

/** Whether a commit message follows the format (its first line is the subject). */
export function followsCommitFormat(message: string, f: CommitFormat): boolean {
  const subject = message.split('\n')[0]!.trim();
  const m = (f.scoped ? SCOPED_SUBJECT : PLAIN_SUBJECT).exec(subject);
  if (!m) return false;
  if (f.prefixes && !f.prefixes.has(m[1]!)) return false;
  if (f.scoped && f.scopes && !m[2]!.split(/[,/]/).every((s) => f.scopes!.has(s))) return false;
  if (f.maxSubject !== null && subject.length > f.maxSubject) return false;
  if (f.noTrailingPeriod && subject.endsWith('.')) return false;
  const lower = message.toLowerCase();
  return !f.forbidden.some((w) => lower.includes(w));
}

/**
 * The message of the `git commit` a shell command makes: its `-m`/`--message` values joined by blank
 * lines (quoted, or a `"$(cat <<'EOF' … EOF)"` heredoc, as agents write them); null when the command
 * makes no commit or its message is not on the command line (an editor, `-F file`, `--amend` with none).
 */
export function commitMessage(command: string): string | null {
  const at = /\bgit\s+(?:-C\s+\S+\s+)?commit\b/.exec(command);
  if (!at) return null;
  const rest = command.slice(at.index + at[0].length);
  const parts: string[] = [];
  const ARG_RE = /(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:=|\s+|(?=["']))(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/g;
  for (const m of rest.matchAll(ARG_RE)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(["\\$`])/g, '$1') : (m[2] ?? m[3] ?? '');
    const heredoc = /^\$\(cat\s+<<-?\s*['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\s*\1\s*\n?\s*\)$/.exec(raw.trim());
    parts.push(heredoc ? heredoc[2]! : raw);
  }
  return parts.length > 0 ? parts.join('\n\n').trim() : null;
}

/**
 * Whether a call's commit is the rule applied: its message follows the rule's format and the call
 * runs none of the commands the rule names without recommending them (`git add -A` where it says to
 * stage files by path).
 */
export function followsCommitRule(
  raw: string,
  commands: readonly string[][],
  t: Pick<NoteTriggers, 'commitFormat' | 'otherPhrases'>,
): boolean {
  if (!t.commitFormat) return false;
  const message = commitMessage(raw);
  if (message === null || !followsCommitFormat(message, t.commitFormat)) return false;
  return !commands.some((c) => t.otherPhrases.some((p) => runsPattern(c, p)));
}

/** Whether a run does what a note says: runs its command, passes an option it says to pass, or commits in its format. */
export function runFollows(raw: string, commands: readonly string[][], t: NoteTriggers): boolean {
  return followsNote(commands, t) || passesFlag(commands, t) || followsCommitRule(raw, commands, t);
}
