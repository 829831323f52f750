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
import { foldWord, type CommandPattern } from './patterns.js';

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
  /** Trailers the rule writes for every message (`Refs: SHOP-<n>`), by their key, lower-cased (`refs`). */
  required: readonly string[];
  /** The tracker key the subject ends with, when the template ends with one (`… [PAY-NNNN]` → `PAY`). */
  ticket: string | null;
}

/** The words a subject template uses for its prefix and scope (`type`, `<area>`, `component`). */
const PLACEHOLDER = String.raw`<?(?:type|kind|area|scope|component|module|package|service|context|dir)>?`;
/** A tracker key at the end of a template's subject, in brackets: `[PAY-NNNN]`, `(SHOP-<n>)`, `[JIRA-123]`. */
const TICKET = String.raw`[[(]([A-Z][A-Z0-9]{1,9})-(?:N+|X+|n+|x+|<\w+>|\d+|#+)[\])]`;
/** A subject template: `type(scope): imperative summary`, `<area>: <imperative summary>`, `… summary [PAY-NNNN]`. */
const TEMPLATE_RE = new RegExp(String.raw`^(${PLACEHOLDER})(\(${PLACEHOLDER}\))?!?:\s*<?[a-z][\w\s-]*>?(?:\s*${TICKET})?$`, 'i');
/**
 * A subject written out as an example, the first line of a fenced block ("```\napi: stop retrying
 * payouts after a Stripe timeout\n\n<why>\n\nStory: sc-4821\n```"): its prefix, its scope if any.
 */
const EXAMPLE_SUBJECT = /^([a-z][\w-]*)(?:\(([a-z][\w./-]*)\))?!?: [a-z]/;
/** The Conventional Commits types, for a template whose prefix is `type` and a rule that lists none. */
const CONVENTIONAL = ['feat', 'fix', 'chore', 'docs', 'refactor', 'test', 'tests', 'perf', 'build', 'ci', 'style', 'revert', 'deps'];
/** A list of types in words: "types feat/fix/refactor/chore". */
const TYPE_LIST_RE = /\btypes?\b[^.\n`]{0,20}?\b([a-z]+(?:\s*[/,|]\s*[a-z]+){2,})/i;
const MAX_RE = /\b(?:max(?:imum)?|at most|up to|under|no more than|<=|≤)\s*(\d{2,3})\s*(?:char|chars|characters)\b/i;
const PERIOD_RE = /\bno (?:trailing )?period\b|\bwithout a (?:trailing )?period\b|\bnot end with a period\b/i;
/** Words that open a list of what never goes in a message ("No `Co-Authored-By` or "Generated with" trailers"). */
const NEVER_RE = /\b(?:no|never|(?:don'?t|do not|must not|should not) (?:add|include|put|write|append)|without|avoid)\s+([^.\n]{0,120})/gi;
/**
 * A trailer as a rule writes it (`Refs: SHOP-<n>`, `Co-Authored-By: Claude`): a capitalised key, its
 * words joined by hyphens, then a colon. Never a subject (`type(scope): summary`, `fix: typo`).
 */
const TRAILER_RE = /^([A-Z][A-Za-z]*(?:-[A-Za-z]+)*):(?:\s|$)/;
/** What says the list is of a message's parts (not "Never commit on `main`", a rule about branches). */
const MESSAGE_PART_RE = /\b(?:trailers?|lines?|footers?|attributions?|messages?|subjects?|signatures?)\b/i;
/** Characters of a rule read for its format. */
const MAX_RULE_CHARS = 4000;

/**
 * The values listed in the sentence that names a placeholder ("scope one of `ingestd`, `queryd`",
 * "area being a context or top-level dir (`billing`, `dispatch`)").
 */
function listedFor(rule: string, word: string): Set<string> | null {
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
}

/**
 * The values a sentence lists with an example's prefix or scope among them ("Area is one of `api`,
 * `mobile`, …"); null with no such list, when any word will do where the example has one.
 */
function listingOf(rule: string, value: string): Set<string> | null {
  for (const sentence of rule.split(/(?<=[.;])\s+|\n/)) {
    const values = new Set(codeSpans(sentence, 50).map((s) => s.trim()));
    if (values.size >= 2 && values.has(value)) return values;
  }
  return null;
}

/** The format a rule's text states, or null when it states no subject template. */
export function commitFormatOf(text: string): CommitFormat | null {
  const rule = text.slice(0, MAX_RULE_CHARS);
  const spans = codeSpans(rule, 200);
  const template = spans.map((s) => TEMPLATE_RE.exec(s.trim())).find(Boolean);
  const example = template ? undefined : exampleMessage(rule);
  if (!template && !example) return null;
  const prefixWord = template ? template[1]!.replace(/[<>]/g, '').toLowerCase() : '';
  const scopeWord = template ? template[2]?.replace(/[<>()]/g, '').toLowerCase() : example!.scope;
  const typeList = TYPE_LIST_RE.exec(rule)?.[1];
  const prefixes = example
    ? listingOf(rule, example.prefix)
    : prefixWord === 'type' || prefixWord === 'kind'
      ? new Set(typeList ? typeList.toLowerCase().split(/\s*[/,|]\s*/) : CONVENTIONAL)
      : listedFor(rule, prefixWord);
  const forbidden: string[] = [];
  for (const m of rule.matchAll(NEVER_RE)) {
    // A trailer written whole (`Co-Authored-By: Claude`) is a message's part whatever the words around it say.
    const part = MESSAGE_PART_RE.test(m[1]!.replace(/`[^`]*`|"[^"]*"/g, ' '));
    for (const q of m[1]!.matchAll(/`([^`]{3,40})`|"([^"]{3,40})"/g)) {
      const said = q[1] ?? q[2]!;
      if (part || TRAILER_RE.test(said)) forbidden.push(said.toLowerCase());
    }
  }
  // The trailers it writes, less those it forbids: each message must carry them (`Refs: SHOP-<n>`).
  const required = [...spans, ...(example?.lines ?? [])]
    .map((sp) => TRAILER_RE.exec(sp.trim()))
    .filter((t): t is RegExpExecArray => t !== null && !forbidden.some((f) => f.startsWith(t[1]!.toLowerCase())))
    .map((t) => t[1]!.toLowerCase());
  return {
    scoped: Boolean(scopeWord),
    prefixes,
    scopes: !scopeWord ? null : example ? listingOf(rule, scopeWord) : listedFor(rule, scopeWord),
    ticket: template?.[3] ?? null,
    maxSubject: Number(MAX_RE.exec(rule)?.[1]) || null,
    noTrailingPeriod: PERIOD_RE.test(rule),
    forbidden,
    required: [...new Set(required)],
  };
}

/**
 * The message a rule writes out whole in a fenced block, subject first: its subject's prefix and
 * scope, and its lines (a trailer among them is one every message carries). Undefined when no block
 * opens with a subject.
 */
function exampleMessage(rule: string): { prefix: string; scope: string | undefined; lines: string[] } | undefined {
  for (const m of rule.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    const lines = m[1]!.split('\n');
    const subject = EXAMPLE_SUBJECT.exec(lines.find((l) => l.trim() !== '')?.trim() ?? '');
    if (subject) return { prefix: subject[1]!, scope: subject[2], lines: lines.slice(1) };
  }
  return undefined;
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
  if (f.ticket !== null && !new RegExp(String.raw`[[(]${f.ticket}-\d+[\])]$`).test(subject)) return false;
  const lower = message.toLowerCase();
  if (f.forbidden.some((w) => lower.includes(w))) return false;
  const keys = new Set(lower.split('\n').map((l) => /^\s*([\w-]+):/.exec(l)?.[1] ?? ''));
  return f.required.every((k) => keys.has(k));
}

/** Where a `git commit` starts in a shell command. */
const COMMIT_RE = /\bgit\s+(?:-C\s+\S+\s+)?commit\b/g;
/** A `-m`/`--message` value: double-quoted, single-quoted or bare. */
const ARG_RE = /(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:=|\s+|(?=["']))(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/g;
/** The line that opens a `"$(cat <<'EOF'` heredoc, and its delimiter. */
const HEREDOC_OPEN = /^\$\(cat\s+<<-?[ \t]*(['"]?)(\w+)\1[ \t]*\n/;

/**
 * The body of a `$(cat <<'EOF' … EOF )` value, line by line (a regex with a lazy body between
 * whitespace runs backtracked for minutes on a message of blank lines); null when it is none.
 */
function heredocBody(raw: string): string | null {
  const open = HEREDOC_OPEN.exec(raw);
  if (!open) return null;
  const lines = raw.slice(open[0].length).split('\n');
  const delim = open[2]!;
  for (let k = 0; k < lines.length; k += 1) {
    const line = lines[k]!.trim();
    if (!line.startsWith(delim)) continue;
    const on = line.slice(delim.length).trim();
    if (on !== '' && on !== ')') continue;
    const tail =
      on === ')'
        ? on
        : lines
            .slice(k + 1)
            .join('\n')
            .trim();
    return tail === ')' ? lines.slice(0, k).join('\n') : null;
  }
  return null;
}

/**
 * The message of each `git commit` a shell command makes: its `-m`/`--message` values up to the next
 * commit, joined by blank lines (quoted, or a `"$(cat <<'EOF' … EOF)"` heredoc, as agents write
 * them); null for a commit whose message is not on the command line (an editor, `-F file`, `--amend`
 * with none). Empty when the command makes no commit.
 */
export function commitMessages(command: string): (string | null)[] {
  const starts = [...command.matchAll(COMMIT_RE)];
  return starts.map((at, k) => {
    const rest = command.slice(at.index + at[0].length, starts[k + 1]?.index ?? command.length);
    const parts: string[] = [];
    for (const m of rest.matchAll(ARG_RE)) {
      const raw = m[1] !== undefined ? m[1].replace(/\\(["\\$`])/g, '$1') : (m[2] ?? m[3] ?? '');
      parts.push(heredocBody(raw.trim()) ?? raw);
    }
    return parts.length > 0 ? parts.join('\n\n').trim() : null;
  });
}

/** The message of the first `git commit` a shell command makes (see commitMessages); null when none is on the command line. */
export function commitMessage(command: string): string | null {
  return commitMessages(command)[0] ?? null;
}

/** Options git spells long where a rule writes them short. */
const GIT_SHORT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  add: { '--all': '-A' },
  commit: { '--all': '-a', '--signoff': '-s', '--gpg-sign': '-S' },
};

/**
 * A git command with its bundled short options apart (`-am` → `-a -m`) and its long ones as the rule
 * may write them short, lower-cased as a note's commands are.
 */
function spelledOut(c: readonly string[]): string[] {
  if (c[0] !== 'git') return [...c];
  const short = GIT_SHORT[c.find((w, k) => k > 0 && !w.startsWith('-')) ?? ''] ?? {};
  return c.flatMap((w) => (/^-[a-zA-Z]{2,}$/.test(w) ? [...w.slice(1)].map((ch) => `-${ch}`) : [short[w] ?? w])).map(foldWord);
}

/** Options of `git commit` by which git writes or keeps the message itself. */
const REUSED_MESSAGE = /^(?:--fixup(?:=.*)?|--squash(?:=.*)?|--no-edit|-C|--reuse-message(?:=.*)?)$/;

/**
 * Whether a call's commits are the rule applied: each message follows the rule's format, each commit
 * passes the options of a `git commit` the rule recommends (`git commit -s`), and the call runs none
 * of the commands the rule names without recommending them (`git add -A` where it says to stage
 * files by path; `-am` and `--all` are read as what they are).
 */
export function followsCommitRule(
  raw: string,
  commands: readonly string[][],
  t: Pick<NoteTriggers, 'commitFormat' | 'otherPhrases' | 'warnedPhrases' | 'recommends'>,
): boolean {
  const format = t.commitFormat;
  if (!format) return false;
  const calls = commands.map(spelledOut);
  const commits = calls.filter((c) => c[0] === 'git' && c.includes('commit'));
  const messages = commitMessages(raw);
  // A commit that writes no message of its own (`--fixup`, `--squash`, `--no-edit`, `-C <sha>`) has
  // nothing the format could be wrong in: git writes "fixup! <subject>" or keeps the old message.
  // Read after `commit`: git's own `-C <dir>` before it is a folder, not a commit to reuse.
  const reusesMessage = (c: readonly string[]): boolean => c.slice(c.indexOf('commit') + 1).some((w) => REUSED_MESSAGE.test(w));
  const reused = messages.every((m) => m === null) && commits.length > 0 && commits.every(reusesMessage);
  if (!reused && (messages.length === 0 || messages.some((m) => m === null || !followsCommitFormat(m, format)))) return false;
  const asked = t.recommends
    .filter((r) => r.words[0] === 'git' && r.words[1] === 'commit')
    .map((r) => r.words.filter((w) => /^-[a-zA-Z]$/.test(w)));
  if (asked.length > 0 && !commits.every((c) => asked.some((flags) => flags.every((f) => c.includes(f))))) return false;
  // "Every `git commit` message: …" names the commit the rule is about, not a command to avoid;
  // "Never `git commit` on `main`" does.
  const bare = (p: CommandPattern): boolean => p.words.length === 2 && p.words[0]?.[0] === 'git' && p.words[1]?.[0] === 'commit';
  const avoided = t.otherPhrases.filter((p) => !bare(p) || t.warnedPhrases.some(bare));
  return !calls.some((c) => avoided.some((p) => runsPattern(c, p)));
}

/** Whether a run does what a note says: runs its command, passes an option it says to pass, or commits in its format. */
export function runFollows(raw: string, commands: readonly string[][], t: NoteTriggers): boolean {
  return followsNote(commands, t) || passesFlag(commands, t) || followsCommitRule(raw, commands, t);
}
