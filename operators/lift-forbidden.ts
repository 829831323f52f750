/**
 * A prompt that names what a rule forbids is about that rule: "just unwrap it" and a memory "No
 * unwrap()/expect() in non-test Rust code"; "force-push the branch" and "no rebase/amend/force-push
 * until approved"; "run cargo test on the compactor" and "cargo nextest, not cargo test". The
 * prompt rarely says more of the rule than that one thing, so the lexical estimate, which weighs
 * all its words, finds little; yet a rule that forbids exactly what the prompt names is the one
 * learning that must be in front of the agent. Pure.
 *
 * What a rule forbids is read from what it says it is about (a memory's name, description and How
 * to apply; a learning's title, key insight and How to apply), never its body's story: the words
 * after "no", "never", "don't", "do not", "must not", "avoid", "instead of", "rather than", a
 * contrasting ", not" / "(not" or "prefer X over", up to the end of the clause, and the last words
 * before "is deprecated / banned / not allowed"; each alternative (split at `/`, "or", a list's
 * commas) one thing. The prompt names a thing when it holds the words that say what it is, side by
 * side, and something specific of it (namesThing): "instead of implementing it" forbids no
 * implementing, and "renumber the steps in the runbook" renumbers no protobuf field.
 *
 * Only rules are lifted (a Claude Code memory, a learning of a rule type), and only a rule the
 * prompt's words already reach (a candidate), to ASKED_STEP_SURE: the prompt hook gives it whole.
 */
import type { RelevanceEstimate, WeighedTerm } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import { stemOf, textStemPairs } from '../core/stems.js';
import { textMemo } from '../core/text-memo.js';
import { isRuleNote, rawTokens, tokenWords } from './action/index.js';
import { ASKED_STEP_SURE } from './lift-asked-steps.js';
import { EVERYDAY_CODING_WORDS, SPECIFIC_INFO } from './weigh-terms.js';

/** The words that forbid what follows them in a clause. */
const FORBID_RE =
  /(?:\b(?:no|never|don['’]?t|do not|must not|mustn['’]?t|should not|shouldn['’]?t|avoid|instead of|rather than)|[,(]\s*not)\s+/gi;
/** The cues that forbid doing something: the word after them is what is done. */
const DOING_CUE_RE = /\b(?:never|don['’]?t|do not|must not|mustn['’]?t|should not|shouldn['’]?t|avoid)\b/i;
/** "Prefer X over Y": Y is what is set aside. */
const OVER_RE = /\bprefer(?:s|red)?\s+[^.;:\n]{1,60}?\s+over\s+/gi;
/** "X is deprecated / banned / not allowed": X is the end of the clause before it (BANNED_WORDS words, BANNED_CHARS read back). */
const BANNED_RE = /\s(?:is|are)\s+(?:now\s+)?(?:deprecated|banned|forbidden|not allowed|disallowed|off[- ]limits)\b/gi;
const BANNED_WORDS = 4;
const BANNED_CHARS = 80;
/** Where the clause before "is deprecated" starts: its punctuation (a dot inside a name, `moment.js`, is none). */
const CLAUSE_START_RE = /[;:,()\n]|\.(?!\S)/g;
/**
 * Where a forbidden thing ends: the clause's punctuation, or a word that says where or when it is
 * forbidden. A comma ends it unless a list follows ("renumber, reuse or retype"): see clauseOf.
 */
const THING_END_RE =
  /\n|[.:](?=\s|$)|[;!?\]—–]|\((?!\))|(?<!\()\)|\s[-–]\s|\s(?:in|on|for|until|unless|outside|except|when|while|because|so|once|after|before|since|without|with|from|into|to|against)\s/i;
/**
 * Where it is forbidden, when that is an environment or a branch ("never kubectl apply against
 * prod"), and the other places listed with it ("to main or to a PR under review"): the prompt must
 * name one of them too.
 */
const SCOPE_RE =
  /^\s+(?:against|in|on|to|into)\s+(?:the\s+)?(prod|production|staging|main|master|live)\b((?:\s*,?\s+(?:or|and)\s+(?:(?:against|in|on|to|into)\s+)?(?:the\s+|a\s+|an\s+)?[\w-]+)*)/i;
/** The places listed after the first in SCOPE_RE's second group, one word each. */
const MORE_PLACES_RE = /\s(?:or|and)\s+(?:(?:against|in|on|to|into)\s+)?(?:the\s+|a\s+|an\s+)?([\w-]+)/gi;
/** Alternatives within one forbidden thing ("rebase/amend/force-push", "GPL, AGPL or SSPL"); a path (`/v1/events`) is one. */
const ALTERNATIVES_RE = /(?<!(?:^|\s)\/\S*)\/|\s+or\s+|\s+and\s+|\s*,\s*/i;
/** Most words of one forbidden thing read, and most things read per rule. */
const MAX_THING_WORDS = 5;
const MAX_THINGS = 24;

/** Written as code: in backticks, called (`unwrap()`), a path or member (`fmt.Sprintf`, `tenant_id`, `a::b`), an option. */
const CODE_RE = /`|\(\)|::|[a-z0-9][._][a-z0-9]|(?:^|\s)--?[a-z]/i;
/** A word alone names a thing when the rule writes it as code and everyday English says it rarely. */
const CODE_ALONE_INFO = 0.7;

/** One thing a rule forbids: its words' stems, whether the rule writes it as code, the rest of its clause, where it is forbidden. */
export interface ForbiddenThing {
  stems: string[];
  code: boolean;
  /** The other words of the clause it is one alternative of ("existing protobuf fields" of "renumber, reuse or retype …"). */
  context: string[];
  /** The environments or branches it is forbidden in (`prod`; `main`, `pr`), any of which the prompt must name; none for everywhere. */
  scope: string[];
  /**
   * What is done, after a cue that forbids doing ("never log event payloads, API keys or IPs": log,
   * for each of the three): the prompt must say it, everyday word or not. Null after "no", "instead of", ", not".
   */
  verb: string | null;
}

/** A thing's words as stems. */
const stemsIn = (text: string): string[] => [...new Set(rawTokens(text).flatMap(tokenWords).map(stemOf))];

/** The clause a cue starts: to THING_END_RE, and past a comma only when a list goes on to "or" / "and" ("GPL, AGPL or SSPL"). */
function clauseOf(rest: string): { clause: string; after: string } {
  const end = rest.search(THING_END_RE);
  let clause = end < 0 ? rest : rest.slice(0, end);
  const comma = clause.indexOf(',');
  if (comma >= 0 && !/\s(?:or|and)\s/i.test(clause.slice(clause.lastIndexOf(',')))) clause = clause.slice(0, comma);
  return { clause, after: rest.slice(clause.length) };
}

/** The things a text forbids (see the module comment). */
export function forbiddenThings(text: string): ForbiddenThing[] {
  const src = text.slice(0, 4000);
  const clauses: { clause: string; scope: string[]; doing: boolean }[] = [];
  // After a cue, to the end of its clause; at most MAX_THINGS clauses (a text of "no no no …" reads no more).
  for (const re of [FORBID_RE, OVER_RE]) {
    for (const m of src.matchAll(re)) {
      if (clauses.length >= MAX_THINGS) break;
      const { clause, after } = clauseOf(src.slice(m.index + m[0].length, m.index + m[0].length + 200));
      const place = SCOPE_RE.exec(after);
      const places = place ? [place[1]!, ...[...(place[2] ?? '').matchAll(MORE_PLACES_RE)].map((p) => p[1]!)] : [];
      clauses.push({ clause, scope: places.map((w) => stemOf(w.toLowerCase())), doing: DOING_CUE_RE.test(m[0]) });
    }
  }
  // Before "is deprecated": the last words of the clause.
  for (const m of src.matchAll(BANNED_RE)) {
    if (clauses.length >= MAX_THINGS) break;
    const before = src.slice(Math.max(0, m.index - BANNED_CHARS), m.index);
    const start = Math.max(-1, ...[...before.matchAll(CLAUSE_START_RE)].map((c) => c.index));
    const words = before
      .slice(start + 1)
      .trim()
      .split(/\s+/);
    clauses.push({ clause: words.slice(-BANNED_WORDS).join(' '), scope: [], doing: false });
  }
  const out: ForbiddenThing[] = [];
  for (const { clause, scope, doing } of clauses) {
    const all = stemsIn(clause);
    const alts = clause.split(ALTERNATIVES_RE).map((alt) => ({ alt, stems: stemsIn(alt).slice(0, MAX_THING_WORDS) }));
    // After a cue that forbids doing, the first word is what is done; when the first alternative
    // says it with its object ("log event payloads, API keys or IPs"), it is done to every one.
    const verb = doing ? (alts[0]?.stems[0] ?? null) : null;
    const shared = verb !== null && (alts[0]?.stems.length ?? 0) >= 2;
    for (const { alt, stems: own } of alts) {
      const stems = shared && own.length > 0 && own[0] !== verb ? [verb, ...own].slice(0, MAX_THING_WORDS) : own;
      // A hyphenated compound ("force-push", "log-and-return") is one named thing, as code is.
      const code = CODE_RE.test(alt) || /\w-\w/.test(alt);
      const says = verb !== null && stems[0] === verb ? verb : null;
      if (stems.length > 0) out.push({ stems, code, context: all.filter((st) => !stems.includes(st)), scope, verb: says });
      if (out.length >= MAX_THINGS) return out;
    }
  }
  return out;
}

/**
 * Whether the prompt names a thing: its weighed terms, and its adjacent word pairs (`pairs`,
 * textStemPairs). One of the places it is forbidden in, if any, named too ("against prod": `kubectl
 * apply` to a local cluster is not it), and what is done, if the rule says ("never log … API keys":
 * a regex for API keys logs nothing). Then:
 * - a word alone, written as code and rare in everyday English (CODE_ALONE_INFO: `unwrap()`); or a
 *   specific word of prose with another word of its clause ("renumber" of "renumber, reuse or retype
 *   existing protobuf fields" with "protobuf"): "renumber the steps in the runbook" renumbers no field;
 * - of more words, two or more side by side in the prompt (an adjacent pair: "run the migrations
 *   inline" is no "run inline"), among them every word that is not an everyday coding word ("applied"
 *   of "edit an applied file"), or of three such words or more its first ("carry", "mock") and all but
 *   one; and one of them specific, unless the rule writes the thing as code or one hyphenated word
 *   ("force-push"): "make an extra copy" names no "extra copies" a rule forbids.
 */
export function namesThing(
  { stems: thing, code, context, scope, verb }: ForbiddenThing,
  terms: ReadonlyMap<string, WeighedTerm>,
  pairs: ReadonlySet<string>,
): boolean {
  if ((scope.length > 0 && !scope.some((st) => terms.has(st))) || (verb !== null && !terms.has(verb))) return false;
  const specific = (st: string): boolean => {
    const t = terms.get(st);
    return Boolean(t) && !t!.everyday && t!.info >= SPECIFIC_INFO;
  };
  if (thing.length === 1) {
    const t = terms.get(thing[0]!);
    if (!t || t.everyday) return false;
    return code ? t.info >= CODE_ALONE_INFO : specific(thing[0]!) && context.some(specific);
  }
  const held = thing.filter((st) => terms.has(st));
  if (held.length < 2) return false;
  const content = thing.filter((st) => !EVERYDAY_CODING_WORDS.has(st));
  const missing = content.filter((st) => !terms.has(st)).length;
  if (content.length >= 3 ? !terms.has(content[0]!) || missing > 1 : missing > 0) return false;
  const adjacent = thing.slice(1).some((b, k) => {
    const a = thing[k]!;
    return pairs.has(a < b ? `${a} ${b}` : `${b} ${a}`);
  });
  return adjacent && (code || held.some(specific));
}

/** What a rule says it is about: a memory's name and description, a learning's title and key insight, and How to apply. */
function ruleSummary(note: Candidate['note']): string {
  const fm = note.frontmatter;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return [str(fm['name']).replace(/[-_]+/g, ' '), note.title, str(fm['description']), note.keyInsight, note.howToApply].join('\n');
}

/** Each rule's things, read once per text (core/text-memo.ts): the recall server reads the same rules for every prompt. */
const thingsOf = textMemo<readonly ForbiddenThing[]>(forbiddenThings);

/** Lifts, in place, the rules among the candidates that forbid a thing the prompt names (see the module comment). */
export function liftForbidden(
  relevance: Map<string, RelevanceEstimate>,
  candidates: readonly Candidate[],
  weighed: readonly WeighedTerm[],
  query: string,
): void {
  const terms = new Map(weighed.map((t) => [t.stem, t]));
  let pairs: ReadonlySet<string> | null = null;
  for (const c of candidates) {
    const e = relevance.get(c.note.key);
    if (!e || e.p >= ASKED_STEP_SURE || !isRuleNote(c.note)) continue;
    pairs ??= textStemPairs(query, 4000);
    const named = (thing: ForbiddenThing): boolean => namesThing(thing, terms, pairs!);
    if (!thingsOf(c.note.key, ruleSummary(c.note)).some(named)) continue;
    relevance.set(c.note.key, { ...e, p: ASKED_STEP_SURE, ranking: Math.max(ASKED_STEP_SURE, e.ranking ?? e.p), source: 'forbidden' });
  }
}
