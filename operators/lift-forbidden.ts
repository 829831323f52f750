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
 * before "is deprecated / banned / not allowed"; each alternative (split at `/`, "or", commas) one thing. The prompt names a thing when it holds the words that say what it is
 * (namesThing): not only a word every coding conversation uses ("log", "test", "rebase"), and a word
 * alone when the rule writes it as code (`unwrap()`) and everyday English says it rarely, or when
 * everyday English says it almost never ("protoc", "GPL"): "instead of implementing it" forbids no
 * implementing.
 *
 * Only rules are lifted (a Claude Code memory, a learning of a rule type), and only a rule the
 * prompt's words already reach (a candidate), to ASKED_STEP_SURE: the prompt hook gives it whole.
 */
import type { RelevanceEstimate, WeighedTerm } from '../core/state.js';
import type { Candidate } from '../core/types.js';
import { stemOf } from '../core/stems.js';
import { textMemo } from '../core/text-memo.js';
import { isRuleNote, rawTokens, tokenWords } from './action/index.js';
import { GENERIC_INFO } from './math/index.js';
import { ASKED_STEP_SURE } from './lift-asked-steps.js';
import { EVERYDAY_CODING_WORDS } from './weigh-terms.js';

/** The words that forbid what follows them in a clause. */
const FORBID_RE =
  /(?:\b(?:no|never|don['’]?t|do not|must not|mustn['’]?t|should not|shouldn['’]?t|avoid|instead of|rather than)|[,(]\s*not)\s+/gi;
/** "Prefer X over Y": Y is what is set aside. */
const OVER_RE = /\bprefer(?:s|red)?\s+[^.;:\n]{1,60}?\s+over\s+/gi;
/** "X is deprecated / banned / not allowed": X is the end of the clause before it (BANNED_WORDS words, BANNED_CHARS read back). */
const BANNED_RE = /\s(?:is|are)\s+(?:now\s+)?(?:deprecated|banned|forbidden|not allowed|disallowed|off[- ]limits)\b/gi;
const BANNED_WORDS = 4;
const BANNED_CHARS = 80;
/** Where the clause before "is deprecated" starts: its punctuation (a dot inside a name, `moment.js`, is none). */
const CLAUSE_START_RE = /[;:,()\n]|\.(?!\S)/g;
/** Where a forbidden thing ends: the clause's punctuation, or a word that says where or when it is forbidden. */
const THING_END_RE =
  /\n|[.:](?=\s|$)|[;!?\]—–]|\((?!\))|(?<!\()\)|\s[-–]\s|,\s*(?!or\b)|\s(?:in|on|for|until|unless|outside|except|when|while|because|so|once|after|before|since|without|with|from|into|to)\s/i;
/** Alternatives within one forbidden thing ("rebase/amend/force-push", "GPL, AGPL or SSPL"); a path (`/v1/events`) is one. */
const ALTERNATIVES_RE = /(?<!(?:^|\s)\/\S*)\/|\s+or\s+|\s+and\s+|\s*,\s*/i;
/** Most words of one forbidden thing read, and most things read per rule. */
const MAX_THING_WORDS = 5;
const MAX_THINGS = 24;

/** Written as code: in backticks, called (`unwrap()`), a path or member (`fmt.Sprintf`, `tenant_id`, `a::b`), an option. */
const CODE_RE = /`|\(\)|::|[a-z0-9][._][a-z0-9]|(?:^|\s)--?[a-z]/i;
/** A word alone names a thing when the rule writes it as code and everyday English says it rarely, or says it almost never. */
const CODE_ALONE_INFO = 0.7;
const PROSE_ALONE_INFO = 0.9;

/** One thing a rule forbids: its words' stems, and whether the rule writes it as code. */
export interface ForbiddenThing {
  stems: string[];
  code: boolean;
}

/** The things a text forbids (see the module comment). */
export function forbiddenThings(text: string): ForbiddenThing[] {
  const src = text.slice(0, 4000);
  const clauses: string[] = [];
  // After a cue, to the end of its clause; at most MAX_THINGS clauses (a text of "no no no …" reads no more).
  for (const re of [FORBID_RE, OVER_RE]) {
    for (const m of src.matchAll(re)) {
      if (clauses.length >= MAX_THINGS) break;
      const rest = src.slice(m.index + m[0].length, m.index + m[0].length + 200);
      const end = rest.search(THING_END_RE);
      clauses.push(end < 0 ? rest : rest.slice(0, end));
    }
  }
  // Before "is deprecated": the last words of the clause.
  for (const m of src.matchAll(BANNED_RE)) {
    if (clauses.length >= MAX_THINGS) break;
    const before = src.slice(Math.max(0, m.index - BANNED_CHARS), m.index);
    const start = Math.max(-1, ...[...before.matchAll(CLAUSE_START_RE)].map((c) => c.index));
    clauses.push(
      before
        .slice(start + 1)
        .trim()
        .split(/\s+/)
        .slice(-BANNED_WORDS)
        .join(' '),
    );
  }
  const out: ForbiddenThing[] = [];
  for (const clause of clauses) {
    for (const alt of clause.split(ALTERNATIVES_RE)) {
      const stems = [...new Set(rawTokens(alt).flatMap(tokenWords).map(stemOf))].slice(0, MAX_THING_WORDS);
      if (stems.length > 0) out.push({ stems, code: CODE_RE.test(alt) });
      if (out.length >= MAX_THINGS) return out;
    }
  }
  return out;
}

/**
 * Whether the prompt's weighed terms name a thing. Of a thing of one word, that word, said rarely
 * enough (CODE_ALONE_INFO, PROSE_ALONE_INFO). Of a longer one, two of its words or more, among them
 * every word of it that is not an everyday coding word ("applied" of "edit an applied file": "edit the
 * proto file" names no applied file), or of three such words or more its first (what is done:
 * "carry", "mock") and all but one; and one of them specific (over GENERIC_INFO).
 */
export function namesThing({ stems: thing, code }: ForbiddenThing, terms: ReadonlyMap<string, WeighedTerm>): boolean {
  if (thing.length === 1) {
    const t = terms.get(thing[0]!);
    return Boolean(t) && !t!.everyday && t!.info >= (code ? CODE_ALONE_INFO : PROSE_ALONE_INFO);
  }
  const held = thing.filter((s) => terms.has(s));
  if (held.length < 2) return false;
  const content = thing.filter((s) => !EVERYDAY_CODING_WORDS.has(s));
  const missing = content.filter((s) => !terms.has(s)).length;
  if (content.length >= 3 ? !terms.has(content[0]!) || missing > 1 : missing > 0) return false;
  return held.some((s) => !terms.get(s)!.everyday && terms.get(s)!.info > GENERIC_INFO);
}

/** What a rule says it is about: a memory's name and description, a learning's title and key insight, and How to apply. */
function ruleSummary(note: Candidate['note']): string {
  const fm = note.frontmatter;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return [str(fm['name']).replace(/[-_]+/g, ' '), note.title, str(fm['description']), note.keyInsight, note.howToApply].join('\n');
}

/** Each rule's things, read once per text (core/text-memo.ts): the recall server reads the same rules for every prompt. */
const thingsOf = textMemo<readonly ForbiddenThing[]>(4096, forbiddenThings);

/** Lifts, in place, the rules among the candidates that forbid a thing the prompt names (see the module comment). */
export function liftForbidden(
  relevance: Map<string, RelevanceEstimate>,
  candidates: readonly Candidate[],
  weighed: readonly WeighedTerm[],
): void {
  const terms = new Map(weighed.map((t) => [t.stem, t]));
  for (const c of candidates) {
    const e = relevance.get(c.note.key);
    if (!e || e.p >= ASKED_STEP_SURE || !isRuleNote(c.note)) continue;
    if (!thingsOf(c.note.key, ruleSummary(c.note)).some((thing) => namesThing(thing, terms))) continue;
    relevance.set(c.note.key, { ...e, p: ASKED_STEP_SURE, ranking: Math.max(ASKED_STEP_SURE, e.ranking ?? e.p), source: 'forbidden' });
  }
}
