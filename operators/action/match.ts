/**
 * Which learnings a tool call is specifically about: the call's commands, files and written text
 * against each note's triggers (triggers.ts), through an inverted index so a 10,000-note KB costs a
 * few lookups per call. Pure.
 *
 * Evidence, strongest first (weights below):
 * - an `applies_when` pattern the call matches (a command and subcommand, a path glob);
 * - a command the note names, run with the same program and subcommand (`tmux kill-server`);
 * - a code-like token the note names (`proxy_read_timeout`, `--experimental-vm-modules`,
 *   `@rollup/rollup-linux-x64-gnu`), found in the call;
 * - a variable the note names in capitals, used or set by the call (`$PATH`), and the type of a
 *   file the call writes when the note names it (a `.plist`): names.ts;
 * - rare words the note is about (its focus stems), found in the call, each worth its rarity in
 *   everyday English and among the KB's notes.
 * What an edit only quotes around its change (unchanged lines) counts like its file path: where the
 * change is, not what it does. A run that does what a note recommends, as the note writes it (`use
 * \`cargo nextest run --workspace\``), gives that note nothing: the agent is already following it.
 * A note is given when its evidence reaches ACTION_MATCH_THRESHOLD and is more than one shared word.
 * Calls that only look (`ls`, `git status`, `cat`, a README read) give nothing unless `applies_when` names them.
 */
import { dfOf, type TriggerIndex } from './trigger-index.js';
import { appliesStep, gitStepNotes, proseCommands, runsPattern } from './commands.js';
import { Evidence, PATH_WEIGHT, W_COMPOUND, importEvidence, retiredEvidence, spread, tokenEvidence } from './evidence.js';
import { typeEvidence, variableEvidence } from './names.js';
import { dropFollowed } from './followed.js';
import { placeHolds } from './places.js';
import { addedLines, type ToolAction } from './tool-call.js';
import { features, type ActionFeatures } from './features.js';
import { CODE_WORDS, onlyLooks, program } from './looking.js';
import { CONSTRUCT_TOKENS, aboutModules } from './constructs.js';
import { callWork, sharedWork, type CallWork } from './call-work.js';
import { isValueWord, replacedValues } from './values.js';
import { tokenWords } from './terms.js';
import { stemOf } from '../../core/stems.js';

/** Evidence a note needs before it is put in front of the agent (calibrated on the shared tool-call sets). */
export const ACTION_MATCH_THRESHOLD = 1.5;
/** An `applies_when` hit: the author said so, it is enough alone. */
const W_WHEN = 3;
/** A named command run with its subcommand: strong, nearly enough alone. */
const W_PHRASE = 1.6;
/** Words rarer than this in everyday English (0..1, see the word-info source) count as evidence. */
const MIN_STEM_INFO = 0.55;
/** A word of the user's prompt counts this much, and only for a note the call itself already points at. */
const PROMPT_WEIGHT = 0.8;
/** Most notes given for one call: a call is one step, one or two learnings are about it. */
export const MAX_ACTION_NOTES = 2;

export interface ActionMatch {
  id: string;
  score: number;
  /** One match strong enough alone (an `applies_when`, a named command, a rare token). */
  strong: boolean;
  /** Distinct pieces of evidence (the words naming the program and its subcommand are one). */
  pieces: number;
  /** What matched, for traces: `when:npm install`, `command:tmux kill-server`, `token:lock_timeout`, `word:pyenv`. */
  why: string[];
}

export interface MatchOptions {
  /** How much a stem says in everyday English, 0..1 (1 = never used; see sources/query word-info). */
  info: (stem: string) => number;
  /** Words of the conversation (the user's last prompt): counted at PROMPT_WEIGHT, only for notes the call already points at. */
  contextStems?: ReadonlySet<string>;
  threshold?: number;
  max?: number;
  /** Filled with the notes the call reached and already follows (followed.ts), with their evidence: given no reminder. */
  followed?: ActionMatch[];
}

/**
 * `applies_when` commands, always; unless the call only looks: the commands notes name, the steps and
 * git steps they are named for, the work the call does (workEvidence), the values it replaces
 * (valueEvidence), commands named in prose; path globs.
 */
function commandEvidence(
  idx: TriggerIndex,
  action: ToolAction,
  f: ActionFeatures,
  looking: boolean,
  opts: MatchOptions,
  ev: Evidence,
): void {
  // A note reached through two programs of the call (`poetry run pip install` runs poetry and pip) is
  // read once; a SQL statement it runs or writes names one a note quotes as a command does (sql-files.ts).
  const runs = [...f.commands, ...f.statements];
  for (const i of new Set([...new Set(runs.map(program))].flatMap((p) => idx.byProgram.get(p) ?? []))) {
    const t = idx.notes[i]!;
    const when = t.commands.find((cp) => f.commands.some((c) => runsPattern(c, cp)));
    if (when) ev.credit(i, W_WHEN, `when:${when.words.map((w) => w.join('|')).join(' ')}`, true);
    if (looking) continue;
    const phrase = t.phrases.find((cp) => runs.some((c) => runsPattern(c, cp)));
    if (phrase) ev.credit(i, W_PHRASE, `command:${phrase.words.map((w) => w[0]).join(' ')}`, true);
    // The step its "How to apply" names, taken another way (`docker build` for `docker buildx build`).
    const step = phrase ? undefined : f.commands.map((c) => appliesStep(c, t)).find(Boolean);
    if (step) ev.credit(i, W_PHRASE, `applies:${step}`, true);
  }
  // A note named for the git step the call takes (`git commit` and `commit-message-format`).
  const steps = looking ? [] : gitStepNotes(idx.byGitStep, f.commands);
  for (const { i, said } of steps) if (!ev.byNote.get(i)?.strong) ev.credit(i, W_PHRASE, `subject:${said}`, true);
  // A rule named for the kind of work the call does (call-work.ts): `go-error-wrapping` for a Go edit that handles an error.
  const work = callWork(action, f.paths);
  // A call that only looks does one kind of work a rule is about: reading secrets (secret-files.ts).
  workEvidence(idx, looking ? { ...work, kinds: new Set([...work.kinds].filter((k) => k === 'secret')) } : work, ev);
  valueEvidence(idx, action, f, ev);
  // A command named in prose (commands.ts): as strong as one named in a code span.
  const prose = looking ? [] : proseCommands(idx.byWordPair, idx.notes, f.commands, f.compounds.values());
  for (const { i, said } of prose)
    if (!ev.byNote.get(i)?.why.some((w) => w.startsWith('command:'))) ev.credit(i, W_PHRASE, `command:${said}`, true);
  if (f.paths.length === 0) return;
  typeEvidence(idx, f.fileTypes, opts.info, ev);
  const touches = (re: RegExp): boolean => action.paths.some((p) => re.test(p)) || f.paths.some((p) => re.test(p));
  const added = addedLines(action.text, action.before);
  for (const i of idx.withGlobs) {
    const g = idx.notes[i]!.globs.find(touches);
    if (g) ev.credit(i, W_WHEN, `when:${g.source}`, true);
    // A file its "How to apply" names, changed: the note said when it applies, as a named command does.
    const place =
      action.kind === 'edit' ? idx.notes[i]!.placeGlobs.find((p) => touches(p.re) && placeHolds(p, work.kinds, added)) : undefined;
    if (place && !g) ev.credit(i, W_PHRASE, `applies:${place.re.source}`, true);
  }
}

/**
 * A value a note pins, replaced by the edit (values.ts): `2024-06-20` → `2025-03-31.basil`. The value
 * alone is no proof: `1.0.0` is every new package's version and a date any fixture's; the call must
 * also name a word of what the note is about (`stripe` in `stripe.api_version`).
 */
function valueEvidence(idx: TriggerIndex, action: ToolAction, f: ActionFeatures, ev: Evidence): void {
  for (const v of replacedValues(action)) {
    // A word of the value itself (`order` of `orders-v2`) is no other sign of the note's subject.
    const own = new Set(tokenWords(v).map(stemOf));
    const subject = (s: string): boolean => f.stems.has(s) && !isValueWord(s) && !own.has(s);
    const hits = (idx.byValue.get(v) ?? []).filter((i) => [...idx.notes[i]!.stems].some(subject));
    const df = dfOf(hits, idx.live);
    for (const i of hits) ev.credit(i, W_PHRASE * spread(df), `changes:${v}`, df <= 2);
  }
}

/** Credits the rule notes named for a kind of work the call does, in its language (call-work.ts). */
function workEvidence(idx: TriggerIndex, work: CallWork, ev: Evidence): void {
  if (idx.byWork.size === 0) return;
  const seen = new Set<number>();
  for (const kind of work.kinds) {
    for (const i of idx.byWork.get(kind) ?? []) {
      if (seen.has(i) || ev.byNote.get(i)?.strong) continue;
      seen.add(i);
      const shared = sharedWork(work, idx.notes[i]!.work!);
      if (shared.length > 0) ev.credit(i, W_PHRASE, `work:${shared.join('+')}`, true);
    }
  }
}

/**
 * An identifier that joins two words a note uses side by side in what it is about (`ConnectionPool`,
 * `idle_in_transaction_session_timeout` for "connection pool", "idle in transaction") names its subject,
 * whether or not the note writes the identifier itself: a token's worth on top of its words and of the
 * token, by the pair's rarity, never strong alone.
 */
function phraseEvidence(idx: TriggerIndex, f: ActionFeatures, opts: MatchOptions, ev: Evidence): void {
  // A pair counts once per note, however many identifiers join it (`usage_hourly`, `usage_hourly_local`).
  const creditedPairs = new Set<string>();
  for (const [token, { forms, stems, near }] of f.compounds) {
    // A one-word name (`ClickHouse`, `MinIO`) that a note writes itself is its token (wordEvidence), and the
    // words its capitals split it into are the same clue; words an identifier joins (`idle_in_transaction`) say more.
    const oneWord = !/[_\-./:]/.test(token);
    const asToken = (form: string): number[] => (idx.byCompound.get(form) ?? []).filter((i) => !idx.notes[i]!.followTokens.has(form));
    const credited = new Set<number>(oneWord ? forms.flatMap(asToken) : []);
    for (let k = 1; k < stems.length; k += 1) {
      const [a, b] = [stems[k - 1]!, stems[k]!];
      // The project's own name joined to a word (`@plotline/db`) is a package of this project, no phrase of a note's subject.
      // A construct's name ("named import") is made of code words, and is what a note about it says.
      const codeWords = (CODE_WORDS.has(a) || CODE_WORDS.has(b)) && !CONSTRUCT_TOKENS.has(token);
      if (a === b || codeWords || f.projectStems.has(a) || f.projectStems.has(b)) continue;
      const hits = idx.byPair.get(`${a} ${b}`) ?? [];
      for (const i of hits) {
        if (credited.has(i) || creditedPairs.has(`${i} ${a} ${b}`)) continue;
        // A construct counts for a note about JavaScript modules only, and not when the note's own
        // advice writes it (`import _ from 'lodash'`): that is the note being followed.
        const note = idx.notes[i]!;
        if (CONSTRUCT_TOKENS.has(token) && (note.followTokens.has(token) || !aboutModules(note.stems))) continue;
        credited.add(i);
        creditedPairs.add(`${i} ${a} ${b}`);
        const rarity = (opts.info(a) + opts.info(b)) / 2;
        const why = `phrase:${a} ${b}`;
        // The identifier is one clue, matched by its words or as a token (`@plotline/shared`): one piece.
        ev.credit(
          i,
          (near ? PATH_WEIGHT : 1) * W_COMPOUND * rarity * spread(dfOf(hits, idx.live)),
          why,
          false,
          near ? 'where' : `id:${token}`,
        );
      }
    }
  }
}

/** Shared code-like tokens, then rare words (a token's own words are not counted twice), then the prompt's. */
function wordEvidence(idx: TriggerIndex, f: ActionFeatures, opts: MatchOptions, ev: Evidence): void {
  // A variable's name is the note's word, counted as a token: not again as the everyday word.
  const counted = variableEvidence(idx, f.variables, opts.info, ev);
  tokenEvidence(idx, f, ev, counted);
  // The words naming the program and its subcommand are one piece of evidence together: sharing the
  // tool (`gh api graphql`, `kubectl describe pod`) with a note does not say the call is what it warns
  // about. So are the words of where the change is (its path, the lines it quotes): one place.
  const stemCredit = (s: string, weight: number, label: string, only?: ReadonlySet<number>, into: Evidence = ev): void => {
    if (CODE_WORDS.has(s)) return;
    const info = opts.info(s);
    if (info < MIN_STEM_INFO) return;
    const hits = idx.byStem.get(s) ?? [];
    const piece =
      label === 'word' && f.commandStems.has(s) ? 'command-name' : label === 'word' || label === 'prompt' ? `${label}:${s}` : 'where';
    for (const i of hits) {
      if ((only && !only.has(i)) || counted.get(i)?.has(s)) continue;
      into.credit(i, weight * info * info * spread(dfOf(hits, idx.live)), `${label}:${s}`, false, piece);
    }
  };
  // The folders and name of the file are one fact, where the change is: a note gets its best path
  // word, not the sum of them (`.github/workflows/ci.yml` is one CI file, not three clues).
  const viaPath = new Evidence();
  for (const s of f.stems) {
    if (f.nearOnly.get(s) === 'path') stemCredit(s, PATH_WEIGHT, 'path', undefined, viaPath);
    else stemCredit(s, f.nearOnly.has(s) ? PATH_WEIGHT : 1, f.nearOnly.get(s) ?? 'word');
  }
  for (const [i, e] of viaPath.byNote) ev.credit(i, e.best, e.bestWhy, false, 'where');
  if (!opts.contextStems) return;
  const pointed = new Set(ev.byNote.keys());
  for (const s of opts.contextStems) if (!f.stems.has(s)) stemCredit(s, PROMPT_WEIGHT, 'prompt', pointed);
}

/** Note `i`'s evidence as a match. */
const asMatch = (idx: TriggerIndex, i: number, e: { s: number; strong: boolean; pieces: Set<string>; why: string[] }): ActionMatch => ({
  id: idx.notes[i]!.id,
  score: Number(e.s.toFixed(3)),
  strong: e.strong,
  pieces: e.pieces.size,
  why: e.why,
});

/** Whether a match clears the bar for being given: enough evidence, and one strong match or two pieces. */
export function clearsBar(m: Pick<ActionMatch, 'score' | 'strong' | 'pieces'>, threshold = ACTION_MATCH_THRESHOLD): boolean {
  return m.score >= threshold && (m.strong || m.pieces >= 2);
}

/**
 * The notes a tool call is about, best first, at most `max`, each with what matched. Empty for a
 * call that only looks, for a call no note's triggers reach, and for an empty index.
 */
export function matchAction(idx: TriggerIndex, action: ToolAction, cwd: string, opts: MatchOptions): ActionMatch[] {
  if (idx.notes.length === 0) return [];
  const f = features(action, cwd);
  const looking =
    (action.kind === 'run' && onlyLooks(f.commands)) ||
    // Reading a file changes nothing: what a learning warns about happens when the file is written or
    // run (the harness hooks wire only the tools that act; a call that reads gets `applies_when` only).
    action.kind === 'read' ||
    (action.kind === 'other' && f.paths.length === 0);
  const ev = new Evidence();
  commandEvidence(idx, action, f, looking, opts, ev);
  if (!looking) {
    phraseEvidence(idx, f, opts, ev);
    retiredEvidence(idx, f, opts.info, ev);
    importEvidence(idx, action.text, f.paths, opts.info, ev);
    wordEvidence(idx, f, opts, ev);
  }
  const threshold = opts.threshold ?? ACTION_MATCH_THRESHOLD;
  // A note the call already follows needs no reminder (its `applies_when` aside).
  for (const [i, e] of dropFollowed(idx.notes, action, f, ev)) opts.followed?.push(asMatch(idx, i, e));
  return (
    [...ev.byNote.entries()]
      // One shared word is never enough (a file of the same tool, a note naming the same program): a
      // note needs a strong match or two pieces of evidence.
      .filter(([, e]) => e.s >= threshold && (e.strong || e.pieces.size >= 2))
      .sort((a, b) => b[1].s - a[1].s)
      .slice(0, opts.max ?? MAX_ACTION_NOTES)
      .map(([i, e]) => asMatch(idx, i, e))
  );
}
