/**
 * Command patterns and path globs, as notes and `applies_when` write them. Pure.
 * - a command pattern is words, each with `|` alternatives (`pnpm|npm install`), the first the program;
 * - a path glob has a `/`, `*` or a file suffix and no space (`apps/api/**`, `*.tf`, `Dockerfile`);
 * - the glob of a place a note names in a code span (`.proto`, `internal/kafka`, `main.go`).
 */
import { trimToken } from './terms.js';
import { versionless } from './tool-call.js';
import { RUNNER_PROGRAMS, RUNNER_VALUE_OPTIONS, RUNNER_WORDS } from './runners.js';

export interface CommandPattern {
  /** Each word's alternatives, lower-cased; the first is the program. */
  words: string[][];
}

/** A word that can be a program's name (`npm`, `golangci-lint`, `docker-compose`, `./gradlew`). */
export const PROGRAM_RE = /^(?:\.\/)?[a-z][a-z0-9._+-]*$/;
/** The word of a named command that matches any glob argument of a call (`*.tmp` in `rm -f *.tmp`). */
export const ANY_GLOB = '<glob>';

/** Whether an `applies_when` entry is a path glob rather than a command. */
export function isPathPattern(entry: string): boolean {
  const e = entry.trim();
  return !/\s/.test(e) && (/[/*?]/.test(e) || /^[^|]*\.[A-Za-z0-9]{1,8}$/.test(e) || /^[A-Z][A-Za-z]*file$/.test(e));
}

/** A path glob as a regular expression over `/`-separated paths: `**` any folders, `*` and `?` within one. */
export function globRegExp(glob: string): RegExp {
  // `**/**` and `***` say no more than `**`; collapsed, a glob cannot stack `.*` into slow backtracking.
  const g = glob
    .trim()
    .replace(/^\.\//, '')
    .replace(/\*{3,}/g, '**')
    .replace(/(?:\*\*\/)+\*\*/g, '**')
    .replace(/(?:\*\*\/){2,}/g, '**/');
  let re = '';
  for (let i = 0; i < g.length; i += 1) {
    const c = g[i]!;
    if (c === '*' && g[i + 1] === '*') {
      re += '.*';
      i += 1;
      if (g[i + 1] === '/') i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // Anchored at a folder boundary anywhere in the path: `apps/api/**` matches /home/x/apps/api/main.ts.
  return new RegExp(`(?:^|/)${re}${g.endsWith('/') ? '' : '$'}`);
}

/**
 * A command's word as calls and notes are compared: lower-cased, but a one-letter option keeps its
 * case, which is what it means (`rubocop -A` corrects unsafely where `-a` does not; `git branch -D`
 * deletes unmerged work).
 */
export const foldWord = (w: string): string => (/^-[A-Za-z]$/.test(w) ? w : w.toLowerCase());

/** A command pattern from written words (`pnpm|npm install`), or null when it names no program. */
export function commandPattern(text: string): CommandPattern | null {
  const words = text
    .trim()
    .split(/\s+/)
    .map((w) =>
      w
        .split('|')
        .map((a) => foldWord(trimToken(a)))
        .filter(Boolean),
    )
    .filter((alts) => alts.length > 0);
  // The program as a call's is read: without its version (`python3 -m pip` is `python -m pip`).
  if (words.length > 0) words[0] = words[0]!.map(versionless);
  if (words.length === 0 || !words[0]!.every((p) => PROGRAM_RE.test(p))) return null;
  return { words };
}

/**
 * The glob of a file, folder or file type a "How to apply" line names in a code span: `.proto` is
 * any `.proto` file, `proto/` and `internal/kafka` everything under them, `writer/v2.rs` that file.
 * Null for what is no path (a command, a `KEY=value`, a URL, a flag).
 */
export function placeGlob(span: string): string[] {
  const s = span.trim();
  if (!s || /[\s='"(),;]|:\/\/|^[-@$~]|^\/\//.test(s) || !isPathPattern(s)) return [];
  if (/^\.[A-Za-z0-9]{1,8}$/.test(s)) return [`*${s}`];
  if (s.endsWith('/')) return [`${s}**`];
  if (s.includes('/') && !/[*?]/.test(s) && !/\.[A-Za-z0-9]{1,8}$/.test(s)) return [s, `${s}/**`];
  return [s];
}

/** The interpreters a runner may run. */
/** A word that names a command or subcommand (`larkspur`, `db:migrate`), not a path, option or value. */
const PLAIN = /^[a-z][\w:-]*$/;
export const INTERPRETERS = new Set(['python', 'node', 'bash', 'sh', 'ruby', 'deno', 'bun', 'tsx', 'ts-node', 'perl']);

/**
 * The words after the program that say which command it is: the next two, or, when they start with
 * an option (`pnpm --filter web e2e`, `kubectl -n prod get pods`), up to the second word that is no
 * option, so the option's value (`web`) is not taken for the subcommand (every `pnpm --filter web`
 * run would be the note's command); through a runner and its interpreter, what the interpreter runs.
 */
export function commandWords(words: readonly string[]): string[] {
  const out = leadingWords(words);
  // `run` names no command, the task after it does: `pnpm turbo run lint` is not `pnpm turbo run test`.
  if (out.length > 0 && out[out.length - 1]!.toLowerCase() === 'run') {
    // An option that takes a value (`--filter api`) is passed over with its value.
    const rest = words.slice(out.length + 1);
    const task = rest.find((w, k) => !w.startsWith('-') && !RUNNER_VALUE_OPTIONS.has(rest[k - 1] ?? ''));
    if (task !== undefined && /^[A-Za-z][\w:.-]*$/.test(task)) return [...out, task];
  }
  return out;
}

/** The words after the program that say which command it is, before a runner's task is added (see commandWords). */
function leadingWords(words: readonly string[]): string[] {
  // `uv run python -m app.openapi`, `pnpm exec node scripts/x.js`: the runner and the interpreter say
  // nothing of which command it is; what the interpreter runs does.
  if (RUNNER_WORDS.has((words[1] ?? '').toLowerCase()) && INTERPRETERS.has(versionless((words[2] ?? '').toLowerCase())))
    return [words[1]!, words[2]!, ...leadingWords(words.slice(2)).slice(0, 2)];
  // `poetry run larkspur ops backfill`, `bundle exec rails db:migrate`: a package manager's runner
  // runs the project's own program, whose subcommands say which command it is (`larkspur ops
  // parity` is another command). Only plain words: `npm run test -- --watch` is the task `test`.
  if (
    RUNNER_PROGRAMS.has((words[0] ?? '').toLowerCase()) &&
    RUNNER_WORDS.has((words[1] ?? '').toLowerCase()) &&
    PLAIN.test(words[2] ?? '')
  ) {
    const after = words.slice(3, 5);
    const plain = after.findIndex((w) => !PLAIN.test(w));
    return [words[1]!, words[2]!, ...(plain < 0 ? after : after.slice(0, plain))];
  }
  // `python3 -m venv .venv`: the module is the command, as a subcommand is; `.venv` is its argument.
  if (INTERPRETERS.has(versionless((words[0] ?? '').toLowerCase())) && words[1] === '-m') return words.slice(1, 3);
  if (!(words[1] ?? '').startsWith('-')) return words.slice(1, 3);
  const out: string[] = [];
  let plain = 0;
  for (const w of words.slice(1, 5)) {
    out.push(w);
    if (!w.startsWith('-')) plain += 1;
    if (plain === 2) break;
  }
  return out;
}

/**
 * A command's first word as the program a call runs is read (looking.ts `program`): lower-cased,
 * without `./` or a project's script folder (`bin/rubocop-changed` runs `rubocop-changed`).
 */
export const programWord = (word: string): string =>
  word
    .toLowerCase()
    .replace(/^\.\//, '')
    .replace(/^(?:bin|scripts?|tools|node_modules\/\.bin|vendor\/bin)\//, '');

/** Options read per note. */
const MAX_PASSED = 20;

/**
 * Words right before "pass" that forbid it ("never pass `--no-verify`", "do not pass", "avoid
 * passing"): a run that passes that option breaks the note, it does not follow it.
 */
const FORBIDS_RE =
  /\b(?:never|not|don't|dont|doesn't|mustn't|shouldn't|avoid|without|stop|no need to|instead of|rather than)\s+(?:\w+\s+){0,2}$/i;

/**
 * Words after the option, in its sentence, that say passing it is wrong ("Adding `--no-verify` skips
 * the hooks: never do it"): the note names it to warn of it.
 */
const FORBIDS_AFTER_RE = /\b(?:never|don't|dont|do not|avoid|skips?|bypass(?:es)?|disables?)\b/i;

/** The rest of the sentence from `at` (at most 200 characters). */
const sentenceAfter = (text: string, at: number): string => text.slice(at, at + 200).split(/[.!?](?:\s|$)|\n/)[0]!;

/**
 * The options a note tells the agent to pass, in so many words ("pass \`-s emulator-5554\`", "passing
 * \`--no-cache\`", "add \`-p 5433\`"): a run that passes one is doing what the note asks.
 */
export function passedFlags(text: string): string[][] {
  return [...text.matchAll(/\b(?:pass(?:ing)?|add(?:ing)?)\s+`(--?[A-Za-z][^`\n]{0,80})`/gi)]
    .filter((m) => !FORBIDS_RE.test(text.slice(Math.max(0, m.index - 40), m.index)))
    .filter((m) => !FORBIDS_AFTER_RE.test(sentenceAfter(text, m.index + m[0].length)))
    .map((m) => m[1]!.trim().split(/\s+/).map(foldWord))
    .slice(0, MAX_PASSED);
}
