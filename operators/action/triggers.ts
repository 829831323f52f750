/**
 * What a learning is about, as things an action can touch: its triggers. Pure.
 *
 * - `applies_when` (frontmatter list, written by `recall add --when` and the MCP save tool): each
 *   entry is a command pattern or a path glob. A command pattern is words, each with `|`
 *   alternatives: `pnpm|npm install` matches `npm install zod` and `pnpm install`; `terraform
 *   force-unlock` matches that subcommand only. A path glob has a `/`, `*` or a file suffix and no
 *   space (`apps/api/**`, `*.tf`, `Dockerfile`): it matches a file the call touches.
 * - Without one, the triggers the note already has: the commands its code spans and code blocks
 *   name (a program and its subcommand), the code-like tokens it names anywhere in code spans, in
 *   its focus (title, key insight / description, how to apply, fix, rule, tags) and in its
 *   symptoms, the word stems of that focus, the names it writes there in capitals (`PATH`) and the
 *   word pairs of what it is about, and the files, folders and file types its "How to apply" names
 *   in code spans.
 * - What it recommends, read from the clause around each code span (`use X`, `X, never Y`): the
 *   commands and tokens a call that follows the note runs or writes, so such a call is left alone.
 */
import type { Note } from '../../core/note/index.js';
import { compoundsOf, rawTokens, settingTokens, stemPairs, stemsOf } from './terms.js';
import { versionless } from './tool-call.js';
import { blockStances, spanStances, type SpanStance } from './stances.js';
import { proseTriggers } from './prose.js';
import { focusNames } from './names.js';
import { exemptions } from './exemptions.js';
import { gitStepsOf, nameStepStems, noteName } from './git-steps.js';
import { commitFormatOf, type CommitFormat } from './commit-format.js';
import { namedWork, type NamedWork } from './call-work.js';
import { isRuleNote } from './asked-work.js';
import { placesOf, ruleText, type Place } from './places.js';
import { codeLines, codeSpans, namedCommands, recommendations, recommendedCommands, spokenFlags, type Recommended } from './spans.js';
import { noteValues } from './values.js';
import { constructsRecommended, constructsWritten } from './constructs.js';
import { PROGRAM_RE, commandPattern, globRegExp, isPathPattern, passedFlags, type CommandPattern } from './patterns.js';

export type { Recommended };

export interface NoteTriggers {
  /** The note's id as the session's injected set knows it. */
  id: string;
  /** From `applies_when`: explicit commands and path globs. */
  commands: CommandPattern[];
  globs: RegExp[];
  /**
   * The files and folders its "How to apply" names (`Any \`.proto\` edit`, `anything under
   * \`internal/kafka\``), and those a Claude Code memory's rule names (ruleText).
   */
  placeGlobs: Place[];
  /**
   * The commands its "How to apply" names, every word (`Any image that will run in a cluster:
   * \`docker buildx build --platform linux/amd64 ...\``): the step it applies to, in the note's words.
   */
  applyCommands: string[][];
  /** The kinds of work a rule note is named for (call-work.ts: `go-error-wrapping`); null for a note that states no rule. */
  work: NamedWork | null;
  /** The values it pins (values.ts: `2024-06-20`, `16.3`): an edit that replaces one changes what it is about. */
  values: Set<string>;
  /** The git steps it is named for (git-steps.ts): a memory's `name`, else its title (`commit-message-format`). */
  gitSteps: Set<string>;
  /** The commit message format it states, when it is named for commits (commit-format.ts). */
  commitFormat: CommitFormat | null;
  /** Commands the note names (code spans and code blocks): program and subcommand at least. */
  phrases: CommandPattern[];
  /** Code-like tokens the note names. */
  compounds: Set<string>;
  /** Those it names in what it is about (title, key insight or description, how to apply, rule; not the fix's code). */
  focusCompounds: Set<string>;
  /** Stems of the note's focus text. */
  stems: Set<string>;
  /**
   * Names written in capitals in what the note is about (`PATH`, `HOME`, `TZ`, `NODE_OPTIONS`): an
   * environment variable's name as the note writes it, matched only by a call that uses the variable.
   */
  variables: Set<string>;
  /** Those it writes as code: in a code span, or as `$NAME` or `NAME=`. */
  codeVariables: Set<string>;
  /** Commands it says are fine and places its rule leaves out (exemptions.ts). */
  exemptCommands: CommandPattern[];
  exemptPlaces: RegExp[];
  /** The file types its focus writes as files (`plist` for "launchd plists", `proto` for ".proto files"), by their stems. */
  fileTypes: Set<string>;
  /** Stems of what the note says is retired ("Heroku is decommissioned", "JWTs are deprecated"). */
  retired: Set<string>;
  /** Stems of what the note sets aside in a contrast ("fix the pool, not the timeout": `timeout`). */
  setAside: Set<string>;
  /** Adjacent word pairs of what the note is about (title, key insight, how to apply, rule, description, tags). */
  pairs: Set<string>;
  /**
   * Adjacent words of what the note is about as written, lower-cased (`kubectl describe`, `git
   * worktree`): a command it names in prose, without a code span, reads as a program and its subcommand.
   */
  wordPairs: Set<string>;

  /** Programs the note names as commands (one-word code spans included). */
  programs: Set<string>;
  /**
   * The commands the note tells the agent to run (`use \`cargo nextest run --workspace\``, `then
   * \`git push --force-with-lease\``), every word kept: a call that runs one of them as written is
   * already doing what the note says.
   */
  recommends: Recommended[];
  /** Options it recommends in any span (`--tests '*CartTest'` beside a recommended command): a run may add them and still follow it. */
  recommendedFlags: Set<string>;
  /** Options it tells the agent to pass (`pass \`-s emulator-5554\``), as words: a run that passes one follows it. */
  followFlags: string[][];
  /** Its code spans no word warns of, trimmed and lower-cased: values it offers besides those its commands write (commands.ts passesInstance). */
  namedSpans: Set<string>;
  /** Every option it writes anywhere (`--force`): a run adding one of these to a recommended command does not follow it. */
  namedFlags: Set<string>;
  /** The commands the note names anywhere else (warned about, or only mentioned). */
  otherPhrases: CommandPattern[];
  /** Those of them a word warns of ("Never `git commit` on `main`"). */
  warnedPhrases: CommandPattern[];
  /**
   * Code-like tokens the note names only as what to do (its fix, recommended spans), never in what it
   * is about or warns of: a call that writes one (`origin: allowList`, `invoice_id` in a log line) is
   * following the note, so they are no evidence for it.
   */
  followTokens: Set<string>;
  /**
   * The settings its fix or a recommended span writes, key and value (`timezone=etc/utc` for "set
   * timeZone: Etc/UTC"): an edit that writes one and nothing the note warns of is following the note.
   */
  followSettings: Set<string>;
}

/** Most triggers kept per kind and note (a note of 500 code spans must not make every call match). */
const MAX_PER_KIND = 200;
/** `applies_when` entries read per note, and the longest entry (what `recall add --when` accepts). */
const MAX_WHEN = 20;
const MAX_WHEN_CHARS = 200;

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter(Boolean) : str(v) ? [str(v)] : []);

/** The commands a "How to apply" names in code spans, every word (placeholders left out). */
function applyCommandsOf(howToApply: string): string[][] {
  return codeSpans(howToApply)
    .flatMap(recommendedCommands)
    .map((r) => r.words)
    .slice(0, MAX_WHEN);
}

/** The text a note is about: what it says to do and when (never its war story). */
export function focusText(note: Pick<Note, 'title' | 'keyInsight' | 'howToApply' | 'tags' | 'frontmatter'>): string {
  const fm = note.frontmatter;
  return [note.title, note.keyInsight, note.howToApply, str(fm['fix']), str(fm['rule']), note.tags.join(' '), str(fm['description'])]
    .filter(Boolean)
    .join('\n');
}

/** The work a rule note is named for; null for a note that states no rule or is named for a git step (that step is its subject). */
function ruleWork(
  note: Pick<Note, 'title' | 'frontmatter' | 'memoryType' | 'learningType' | 'tags' | 'howToApply'>,
  gitSteps: ReadonlySet<string>,
  text: string,
): NamedWork | null {
  if (!isRuleNote(note) || gitSteps.size > 0) return null;
  const description = typeof note.frontmatter['description'] === 'string' ? note.frontmatter['description'] : '';
  const work = namedWork(noteName(note), text, `${description}\n${note.howToApply}`, Boolean(note.memoryType));
  if (note.memoryType) return work;
  // A learning's title is a sentence ("Retry 503 errors from the payment API" is about retries, not
  // error handling): the kind it names counts when its tags say it too (`logging` for "Redact PII in
  // structured logs"), as a memory's name is its subject.
  const tagged = namedWork(note.tags.join(' '), '').kinds;
  return { ...work, kinds: new Set([...work.kinds].filter((k) => tagged.has(k))) };
}

/** The spans of a note no word warns of, trimmed and lower-cased: the values it offers. */
const offered = (stances: readonly SpanStance[]): string[] => stances.filter((x) => !x.warned).map((x) => x.span.trim().toLowerCase());

/** An option written anywhere in a note's text (`--force`, `-A`), by its name. */
const FLAG_RE = /(?<![\w-])(--?[A-Za-z][\w-]*)/g;

/** Every option a note writes (`--force` in "never `git push --force`") or names in words ("never force-push"). */
function namedFlagsOf(text: string, recommends: readonly Recommended[]): Set<string> {
  const written = [...text.matchAll(FLAG_RE)].map((m) => m[1]!.toLowerCase());
  return new Set([...written, ...spokenFlags(text, recommends)].slice(0, MAX_PER_KIND));
}

/** The commands and path globs of a note's `applies_when`. */
function whenPatterns(fm: Record<string, unknown>): Pick<NoteTriggers, 'commands' | 'globs'> {
  // Note text is data: a note cannot make every call slow with thousands of patterns or long globs.
  const when = list(fm['applies_when'])
    .filter((w) => w.length <= MAX_WHEN_CHARS)
    .slice(0, MAX_WHEN);
  return {
    commands: when.map((w) => (isPathPattern(w) ? null : commandPattern(w))).filter((p): p is CommandPattern => p !== null),
    globs: when.filter(isPathPattern).map(globRegExp),
  };
}

/** The code-like tokens a note names: those of what it is about first, then those of these texts, at most MAX_PER_KIND. */
function tokensNamed(first: ReadonlySet<string>, texts: readonly string[]): Set<string> {
  const out = new Set<string>(first);
  for (const t of texts) for (const tok of rawTokens(t)) for (const c of compoundsOf(tok)) if (out.size < MAX_PER_KIND) out.add(c);
  return out;
}

/**
 * The module constructs its advice writes (`import _ from 'lodash'`: `default-import`, constructs.ts)
 * or its words recommend ("Prefer named exports"), and no span it warns of or mentions: a call
 * writing one is doing what the note says.
 */
function adviceConstructs(advice: readonly string[], stances: readonly SpanStance[], text: string): string[] {
  const named = (t: string): string[] => constructsWritten(t).map((w) => w.join('-'));
  const spans = stances.filter((x) => !x.recommended).map((x) => x.span);
  const other = new Set(named(spans.join('\n')));
  return [...named(advice.join('\n')), ...constructsRecommended(text)].filter((c) => !other.has(c));
}

/** The values a note pins in its focus and rule (values.ts), with the names it writes there as code spans. */
const pinnedValues = (text: string): Set<string> => noteValues(text, codeSpans(text));

/** The triggers of a note (see the module comment). */
export function noteTriggers(
  note: Pick<Note, 'title' | 'keyInsight' | 'howToApply' | 'tags' | 'frontmatter' | 'body' | 'memoryType' | 'learningType'>,
  id: string,
): NoteTriggers {
  const fm = note.frontmatter;
  const focus = focusText(note);
  const gitSteps = gitStepsOf(nameStepStems(noteName(note)), stemsOf(`${focus}\n${note.body}`));
  const spans = [...codeSpans(focus), ...codeSpans(note.body)];
  const code = [...spans, ...codeLines(note.body)];
  const phrases = code.flatMap(namedCommands).slice(0, MAX_PER_KIND);
  const stances = [...spanStances(focus), ...spanStances(note.body), ...blockStances(note.body)];
  const otherPhrases = stances.flatMap((s) => (s.recommended ? [] : namedCommands(s.span))).slice(0, MAX_PER_KIND);
  const { recommends, recommendedFlags } = recommendations(stances, MAX_PER_KIND);
  // What the note warns about or is about, not the code its fix recommends: a call that already
  // writes the fix (`origin: allowList`) is doing what the note says. A setting it names
  // (`Access-Control-Allow-Origin: *`) is one token, `origin=*` (terms.ts).
  const about = [note.title, note.keyInsight, note.howToApply, str(fm['rule']), str(fm['description'])].join('\n');
  const focusCompounds = new Set([...new Set([...rawTokens(about).flatMap(compoundsOf), ...settingTokens(about)])].slice(0, MAX_PER_KIND));
  // The code-like tokens of its symptoms too (an error's name, a field seen where it should not be:
  // `ERR_REQUIRE_ESM`, `card.last4`); their everyday words would match too much.
  const compounds = tokensNamed(focusCompounds, [focus, ...spans, list(fm['symptoms']).join('\n')]);
  const programs = new Set<string>(phrases.map((p) => p.words[0]![0]!));
  for (const s of spans) if (PROGRAM_RE.test(s.trim()) && s.trim().length >= 3) programs.add(versionless(s.trim().toLowerCase()));
  const pairs = new Set([...stemPairs(about), ...note.tags.flatMap((t) => [...stemPairs(t.replace(/[-_]/g, ' '))])]);
  const tokensOf = (texts: string[]): Set<string> => new Set(texts.flatMap((t) => rawTokens(t)).flatMap(compoundsOf));
  const mentioned = new Set([...focusCompounds, ...tokensOf(stances.filter((x) => !x.recommended).map((x) => x.span))]);
  const advice = [str(fm['fix']), ...stances.filter((x) => x.recommended).map((x) => x.span)];
  const followed = [...tokensOf(advice), ...adviceConstructs(advice, stances, `${focus}\n${note.body}`)];
  const followTokens = new Set(followed.filter((c) => !mentioned.has(c)));
  const followSettings = new Set(advice.flatMap((t) => settingTokens(t)).filter((c) => !mentioned.has(c)));
  return {
    id,
    ...whenPatterns(fm),
    placeGlobs: placesOf(note),
    applyCommands: applyCommandsOf(note.howToApply),
    gitSteps,
    commitFormat: gitSteps.has('commit') ? commitFormatOf(`${str(fm['description'])}\n${note.body}`) : null,
    work: ruleWork(note, gitSteps, `${focus}\n${note.body}`),
    values: pinnedValues(`${focus}\n${ruleText(note)}`),
    ...exemptions(`${focus}\n${note.body}`),
    phrases,
    compounds,
    focusCompounds,
    stems: stemsOf(focus),
    ...focusNames(focus, codeSpans(focus)),
    ...proseTriggers(about),
    pairs,
    programs,
    recommends,
    recommendedFlags,
    followFlags: passedFlags(`${focus}\n${note.body}`),
    // A value it warns of ("never deploy `shop-prod`") is no value it offers.
    namedSpans: new Set(offered(stances).slice(0, MAX_PER_KIND)),
    namedFlags: namedFlagsOf(`${focus}\n${note.body}`, recommends),
    otherPhrases,
    warnedPhrases: stances.flatMap((s) => (s.warned ? namedCommands(s.span) : [])).slice(0, MAX_PER_KIND),
    followTokens,
    followSettings,
  };
}
