/**
 * Commands of a tool call against the commands a note names. Pure.
 *
 * - runsPattern: the call runs a named command (same program, then each word in order);
 * - followsNote: the call runs a command the note recommends, as the note writes it;
 * - commandName: the words that name what a command runs (its program and subcommand);
 * - appliesStep: the call takes the step a note's "How to apply" names, in its own way.
 */
import type { NoteTriggers, Recommended } from './triggers.js';
import { ANY_GLOB, INTERPRETERS, commandWords, foldWord, type CommandPattern } from './patterns.js';
import { RUNNER_WORDS } from './runners.js';
import { versionless } from './tool-call.js';
import { program } from './looking.js';
import { GIT_STEPS, gitStepStem } from './git-steps.js';

/** Whether command `c` runs pattern `p`: the same program, then each further word in order. */
export function runsPattern(c: readonly string[], p: CommandPattern): boolean {
  if (!p.words[0]!.includes(program(c))) return false;
  // A subcommand is the call's own (`pnpm test`), not a word further on (`pnpm turbo run test`):
  // one of the first two words after the program that are no option or short option's value.
  const sub = p.words[1];
  if (sub && sub.every((a) => !a.startsWith('-') && a !== ANY_GLOB) && !subcommandWords(c).some((w) => sub.includes(w))) return false;
  let at = 1;
  for (const alts of p.words.slice(1)) {
    while (at < c.length && !alts.some((a) => a === c[at] || (a === ANY_GLOB && /[*?]/.test(c[at]!)))) at += 1;
    if (at >= c.length) return false;
    at += 1;
  }
  return true;
}

/** The first two words after a command's program that are no option nor a short option's value (`kubectl -n prod describe pod` → describe, pod). */
function subcommandWords(c: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < c.length && out.length < 2; i += 1) {
    const w = c[i]!;
    if (w.startsWith('-')) {
      if (/^-[A-Za-z]$/.test(w)) i += 1;
      continue;
    }
    out.push(w);
  }
  return out;
}

/** What else a note names, for reading a run against its recommended commands. */
export interface NamedInNote {
  /** Its code spans, trimmed and lower-cased: values it offers besides the one a command writes ("(or `platform:api`)"). */
  spans: ReadonlySet<string>;
  /** Every option it writes anywhere (`--force` in "never `git push --force`"). */
  flags: ReadonlySet<string>;
}

/** An option's name (`--filter` of `--filter=@x/api`). */
const flagName = (a: string): string => a.split('=')[0]!;
/**
 * Whether a note that writes options `flags` says something of option `a`: names it, names a longer
 * option it begins (`--force` of `--force-with-lease`), or, for a one-letter option, a long option
 * of that letter (`-f`, `--force-with-lease`): the run may be undoing what the note asks.
 */
function saysOf(flags: ReadonlySet<string>, a: string): boolean {
  const name = flagName(a).toLowerCase();
  const letter = /^-[a-z]$/.test(name) ? `--${name[1]}` : null;
  return [...flags].some((f) => f === name || f.startsWith(`${name}-`) || (letter !== null && f.startsWith(letter)));
}
/** File types that are one language's: a `.tsx` test is run as a `.ts` one is (`vitest run src/a.test.ts`). */
const SAME_TYPE: Readonly<Record<string, string>> = {
  '.tsx': '.ts',
  '.mts': '.ts',
  '.cts': '.ts',
  '.jsx': '.js',
  '.mjs': '.js',
  '.cjs': '.js',
};
/** A path argument's kind: its first folder and its file type (`spec/requests/orders_spec.rb:42` → spec, .rb). */
const pathKind = (a: string): string | null => {
  const m = /^([\w.-]+)\/(?:[\w.-]+\/)*[\w.-]+?(\.[A-Za-z0-9]{1,8})(?::\d+)?$/.exec(a);
  return m ? `${m[1]} ${SAME_TYPE[m[2]!] ?? m[2]}` : null;
};

/**
 * Whether the run passes, where the note's command writes `w`, a value the note offers too, or a
 * file of the same kind: the note's value is one instance of what to pass. `--filter=@plotline/shared`
 * for `--filter=@plotline/api` when the note names `@plotline/shared`; `bin/rspec
 * spec/requests/tips_spec.rb` for `bin/rspec spec/requests/orders_spec.rb:42`.
 */
function passesInstance(args: readonly string[], r: Recommended, k: number, named: NamedInNote): boolean {
  const w = r.words[k]!;
  if (w.includes('=') && w.startsWith('-')) {
    const name = `${flagName(w)}=`;
    return args.some((a) => a.startsWith(name) && named.spans.has(a.slice(name.length).toLowerCase()));
  }
  if (w.startsWith('-')) return false;
  const before = r.words[k - 1];
  if (before?.startsWith('-') && k > 1) return args.some((a, j) => a === before && named.spans.has((args[j + 1] ?? '').toLowerCase()));
  // The script an interpreter runs is the command itself: `bash scripts/deploy-prod.sh` is not
  // `bash scripts/deploy-staging.sh`, where `bin/rspec spec/requests/tips_spec.rb` is another test.
  if (k === 1 && INTERPRETERS.has(versionless(r.words[0]!))) return false;
  const kind = pathKind(w);
  return kind !== null && args.some((a) => pathKind(a) === kind);
}

/**
 * Whether command `c` runs recommended command `r` as the note writes it: the same program, each of
 * its words, and no flag the note does not write (unless it leaves the command open with `...`).
 * Given what else the note names, also another instance of a value (see passesInstance), unless
 * `instances` is false, and more options so long as the note says nothing of them: `gh pr create
 * --draft --base main` with `--title`, not with `--force` where the note names `--force`; `git push
 * --force` does not follow "a plain `git push`, never `--force`".
 */
export function followsCommand(
  c: readonly string[],
  r: Recommended,
  alsoFlags: ReadonlySet<string> = new Set(),
  named: NamedInNote | null = null,
  instances = true,
): boolean {
  if (program(c) !== r.words[0]) return false;
  const args = c.slice(1);
  const has = (w: string, k: number): boolean =>
    args.some((a) => a === w || (w.endsWith('=') && a.startsWith(w))) || (instances && named !== null && passesInstance(args, r, k, named));
  if (!r.words.every((w, k) => k === 0 || has(w, k) || r.incidental?.has(w) === true)) return false;
  if (r.open) return true;
  // An option the note says nothing of is how this run is done, not what the note is about: `podman
  // build -t api:local -f Dockerfile .` follows "use `podman build`". One it names (`--force` where
  // it warns of it, `-A` where it says `-a`) is what it is about. Read as written (`instances`
  // false: a command the note also names as a problem, "`dotnet add package` writes `Version=` into
  // the csproj"), a plain command it writes is followed only without options it does not write.
  const lenient = named !== null && (instances || r.words.slice(1).some((w) => w.startsWith('-')));
  // What follows `--` is handed to the script the command runs (`npm run e2e -- e2e/x.spec.ts`): no option of the command's,
  // but what the note says of an option still holds there (`npm test -- -u` where it warns of `-u`).
  const end = args.indexOf('--');
  const warnedAfter = (a: string): boolean =>
    a.startsWith('-') && !alsoFlags.has(a) && !r.words.includes(a.toLowerCase()) && named !== null && saysOf(named.flags, a);
  if (end >= 0 && args.slice(end + 1).some(warnedAfter)) return false;
  return [...new Set((end < 0 ? args : args.slice(0, end)).filter((a) => a.startsWith('-')))].every(
    (a) =>
      alsoFlags.has(a) ||
      r.words.slice(1).some((w) => a === w || (w.endsWith('=') && a.startsWith(w)) || (w.includes('=') && flagName(w) === flagName(a))) ||
      (lenient && !saysOf(named.flags, a)),
  );
}

/**
 * Whether a run already does what the note says: one of its commands runs a command the note
 * recommends, as written, and none runs a command the note names otherwise (warns about or mentions).
 * `cargo nextest run --workspace` for "use `cargo nextest run --workspace`, not `cargo test`".
 */
export function followsNote(commands: readonly string[][], t: NoteTriggers): boolean {
  if (t.recommends.length === 0) return false;
  // A flag the note recommends in another span ("`./gradlew :app:testDebugUnitTest` (or `--tests
  // '*CartTest'`)") is as much what it says to run.
  const named = { spans: t.namedSpans, flags: t.namedFlags };
  const follows = (c: readonly string[]): boolean =>
    [...t.recommends, stepAsSaid(c, t)].some((r) => r !== undefined && followsCommand(c, r, t.recommendedFlags, named));
  // A run of a command the note names otherwise (`node scripts/migrate-prod.js` where it warns of
  // it) follows only a command with the values the note writes, not another instance of them.
  const asWritten = (c: readonly string[]): boolean => t.recommends.some((r) => followsCommand(c, r, t.recommendedFlags, named, false));
  return commands.some(follows) && !commands.some((c) => !asWritten(c) && t.otherPhrases.some((p) => runsPattern(c, p)));
}

/**
 * Whether `token` is an option a run passes to a program none of the note's recommended commands
 * runs: the option is followed only by its own command (`gh issue create --title` does not follow
 * "`linear issue create --title …`"), so it stays evidence.
 */
export function optionOfOtherProgram(token: string, commands: readonly string[][], t: NoteTriggers): boolean {
  return token.startsWith('-') && commands.length > 0 && !commands.some((c) => t.recommends.some((r) => r.words[0] === program(c)));
}

/** Whether a run passes an option the note tells it to pass (`adb -s emulator-5554 shell …` for "pass `-s emulator-5554`"). */
export function passesFlag(commands: readonly string[][], t: NoteTriggers): boolean {
  return t.followFlags.some((flag) =>
    commands.some((c) => c.some((_, at) => flag.every((w, k) => c[at + k] === w || (flag.length === 1 && c[at + k]?.startsWith(`${w}=`))))),
  );
}

/**
 * The words that name what a command runs: the program and up to two plain words after it, a short
 * flag's value passed over (`kubectl -n prod describe pod x` → kubectl, describe, pod).
 */
export function commandName(c: readonly string[]): string[] {
  const out = [program(c)];
  for (let i = 1; i < c.length && out.length < 3; i += 1) {
    const w = c[i]!;
    if (w.startsWith('-')) {
      if (/^-[A-Za-z]$/.test(w)) i += 1;
      continue;
    }
    if (!/^[a-z][a-z-]*$/.test(w)) break;
    out.push(w);
  }
  return out;
}

/**
 * The notes that name a command of the call in prose (`kubectl describe shows the limit`, `run git
 * worktree prune`): its program and subcommand side by side in what the note is about. A note that
 * names the code it is about (a flag, a key: `--paginate`, `memory.peak`) is about that code, not every
 * run of its command: then the call must write one of those too.
 */
export function proseCommands(
  byWordPair: ReadonlyMap<string, readonly number[]>,
  notes: readonly NoteTriggers[],
  commands: readonly string[][],
  compounds: Iterable<{ forms: string[]; near: boolean }>,
): { i: number; said: string }[] {
  const written = new Set<string>();
  for (const { forms, near } of compounds) if (!near) for (const c of forms) written.add(c);
  const out: { i: number; said: string }[] = [];
  for (const c of commands) {
    const name = commandName(c);
    if (name.length < 2) continue;
    const said = `${name[0]} ${name[1]}`;
    for (const i of byWordPair.get(said) ?? []) {
      const focus = notes[i]!.focusCompounds;
      if (focus.size === 0 || [...focus].some((k) => written.has(k))) out.push({ i, said });
    }
  }
  return out;
}

/**
 * The step of a note's "How to apply" that a command takes, or undefined: the same program, and its
 * subcommand among the words of a command the note names there. "Any image that will run in a
 * cluster: `docker buildx build --platform linux/amd64 ...`" applies to `docker build -t api .`, the
 * same step taken another way; a run that follows the note as written is left alone (followsNote).
 */
export function appliesStep(c: readonly string[], t: Pick<NoteTriggers, 'applyCommands'>): string | undefined {
  const name = commandName(c);
  if (name.length < 2) return undefined;
  const [prog, sub] = [name[0]!, name[1]!];
  // A group the note names with its own subcommand is not every run of the group: `gh run rerun <id>`
  // is not `gh run watch`, nor `kubectl rollout restart` `kubectl rollout status`.
  const other = (a: readonly string[]): boolean => {
    const step = commandName(a);
    return step[1] === sub && step.length > 2 && name.length > 2 && step[2] !== name[2];
  };
  // Through a runner the step is what it runs: `poetry run larkspur ops backfill` is not the step
  // `poetry run larkspur ops parity`, though both run `larkspur`.
  const through = (a: readonly string[]): boolean => {
    if (!RUNNER_WORDS.has(sub)) return true;
    const [mine, theirs] = [commandWords(c), commandWords(a)];
    return theirs.slice(0, mine.length).every((w, k) => w === mine[k]);
  };
  return t.applyCommands.some((a) => a[0] === prog && a.slice(1).includes(sub) && !other(a) && through(a)) ? `${prog} ${sub}` : undefined;
}

/**
 * The command a note's "How to apply" recommends for the step a run takes another way (appliesStep),
 * as that run would write it: `docker buildx build --platform linux/amd64` read as `docker build
 * --platform linux/amd64`, so `docker build --platform linux/amd64 -t api .` follows it and `docker
 * build -t api .` does not. Only a command that asks options of the step (a bare subcommand is the step
 * itself); undefined when there is none.
 */
function stepAsSaid(c: readonly string[], t: Pick<NoteTriggers, 'applyCommands' | 'recommends'>): Recommended | undefined {
  const step = appliesStep(c, t);
  if (!step) return undefined;
  const sub = step.split(' ')[1]!;
  const args = new Set(c.slice(1).map(foldWord));
  const applied = new Set(t.applyCommands.map((a) => a.join(' ')));
  for (const r of t.recommends) {
    const at = r.words.indexOf(sub, 1);
    if (r.words[0] !== c[0] || at < 0 || !applied.has(r.words.join(' ')) || !r.words.slice(at + 1).some((w) => w.startsWith('-'))) continue;
    // Only a plain word the run takes another way (`buildx`) is left out; an option before the step
    // and its value (`--context staging`) is still asked for.
    const before = r.words.slice(1, at).filter((w, k, ws) => args.has(w) || w.startsWith('-') || ws[k - 1]?.startsWith('-') === true);
    return { ...r, words: [r.words[0]!, ...before, ...r.words.slice(at)] };
  }
  return undefined;
}

/**
 * The notes named for the git step a command takes (git-steps.ts): `git commit -m ...`
 * and a memory named `commit-message-format`. The step is the subcommand (`git -C repo commit`).
 */
export function gitStepNotes(
  byGitStep: ReadonlyMap<string, readonly number[]>,
  commands: readonly string[][],
): { i: number; said: string }[] {
  const out: { i: number; said: string }[] = [];
  for (const c of commands) {
    const name = commandName(c);
    if (name[0] !== 'git' || name.length < 2) continue;
    const step = gitStepStem(name[1]!);
    if (!GIT_STEPS.has(step)) continue;
    for (const i of byGitStep.get(step) ?? []) out.push({ i, said: `git ${name[1]}` });
  }
  return out;
}
