/**
 * What a note says of each code span it writes: advice to follow (`use X`, `X, never Y`), or a
 * warning, a symptom or a mere mention. Pure. Only a clear recommendation counts as advice; anything
 * else stays a trigger.
 */
import { namedCommands } from './spans.js';

/** Whether a span is a command: a program and at least one word after it (`pnpm turbo run lint`). */
const namesCommand = (span: string): boolean => namedCommands(span).length > 0;

/** Words before a code span that tell the agent to run or write it (`use`, `run`, `with`, `via`, `then`, `Fix:`, `first check`). */
const RECOMMEND_CUE =
  /\b(?:use|uses|using|run|runs|with|via|prefer|always|then|instead|fix|try|check(?!\s+(?:for|that|whether|if|there)\b))\b/i;
/**
 * "Log" as the verb that opens the clause ("Log `order_id`", "Only log `user_id`"); the noun further
 * on tells where something was seen ("the payment log contained `card.number`").
 */
const LOG_CUE = /^\W*(?:only\s+|just\s+)?log\b/i;
/**
 * A requirement the span fulfils, right before it: "public functions get a `@doc` and a `@spec`",
 * "every handler needs a `ctx`", "must include `Refs:`". Writing it is doing what the note asks.
 */
const REQUIRE_CUE =
  /\b(?:gets?|needs?|requires?|(?:must|should|always)\s+(?:have|has|get|gets|include|includes|carry|carries))\s+(?:(?:a|an|the|its|their|one|and|or|both)\s+)*$/i;
/** Words before a span that warn against it (`never`, `not`, `instead of`). */
const NEGATION_CUE =
  /\b(?:never|not|no|don'?t|do not|avoid|without|instead of|rather than|stop|nor|isn'?t|aren'?t|can'?t|cannot|won'?t)\b/i;
/** Words before a span that tell a failure (`failed with`): a symptom is no advice. */
const SYMPTOM_CUE = /\b(?:fail\w*|error\w*|crash\w*|broke\w*|break\w*|symptom\w*)\b/i;
/** Either: the words before a span that keep it from being advice (ledIn reads a whole lead-in line with it). */
const WARN_CUE = new RegExp(`${NEGATION_CUE.source}|${SYMPTOM_CUE.source}`, 'i');

/**
 * A clause that opens with a condition ("For connection errors, …", "If the import fails, …"), after
 * a label if any ("**How to apply:** For local connection errors, …").
 */
const CONDITION_LEAD = /^\W*(?:[A-Za-z][\w ]{0,30}:\W*)?(?:for|if|when|whenever|on|in case|once|should|upon)\b/i;

/**
 * Whether the words before a span in its clause warn against it. A failure word in a condition
 * that opens the clause, before its last comma, is no warning: "For connection errors, first check
 * `docker compose ps`" says when to run the command, while "the deploy failed with `ECONNREFUSED`"
 * and "the deploy failed, with `ECONNREFUSED` in the log" give a symptom. A negation counts
 * anywhere ("Don't, whatever the ticket says, run `X`").
 */
function warns(before: string): boolean {
  const comma = CONDITION_LEAD.test(before) ? before.lastIndexOf(',') : -1;
  return NEGATION_CUE.test(before) || SYMPTOM_CUE.test(before.slice(Math.max(0, comma)));
}
/**
 * Words right after a span that set it against what follows (`X, never Y`, `X instead of Y`, `X (the
 * default), not Y`, `X — not Y`, `X (not Y)`, `X over \`Y\``); not a negation of the span itself further
 * on ("`kubectl apply` is not fine"). "Over" only before another span: "`terraform destroy` over the
 * weekend" is when, not a preference.
 */
const CONTRAST_AFTER =
  /^(?:\s*\([^)]{0,60}\))?\s*(?:[,;:(]|--?|—|–)?\s*(?:(?:and|but|or)\s+)?(?:never|not|instead of|rather than|over(?=\s+`))\b/i;
/**
 * "Instead" right after a span, which it sets against what was before ("Log `user_id` instead",
 * "`vitest` is used instead"); not one further on, which is another thing's ("`jest` was removed
 * and vitest runs instead").
 */
const INSTEAD_AFTER = /^[\s,)]*(?:(?:is|are)\s+(?:used\s+)?)?instead\b/i;
/** What precedes a span that opens a numbered step of a procedure (a line starting `2. `, `3) `). */
const NUMBERED_STEP = /(?:^|\n)[ \t]*\d{1,2}[.)][ \t]*$/;
const GUARD_CUE = /\b(?:only (?:after|if|when|once)|unless|until|before you)\b/i;
/** What precedes a span that opens an item of a bulleted list (a line starting `- `, `* `). */
const LIST_ITEM = /(?:^|\n)[ \t]*[-*+][ \t]+$/;
/** A span that is the first thing after a colon (`Before I say a change is done: \`pnpm …\``): what the clause says to do. */
const AFTER_COLON = /:[ \t]*$/;
/**
 * Labels and lead-ins that put what follows their colon as the wrong way, an incident's cause or a
 * repro, not as what to do: "Wrong: `git push --force origin main`", "Root cause: `terraform
 * destroy`", "Dangerous commands — run with care:".
 */
const NOT_ADVICE_CUE =
  /\b(?:wrong|bad|incorrect|anti-?patterns?|(?:root )?causes?|culprits?|repro\w*|mistakes?|dangerous|destructive|deprecated|legacy|obsolete|pitfalls?|gotchas?|caution|careful|happened|ran)\b/i;

/** A line that opens a list item (`- `, `* `, `2. `). */
const ITEM_LINE = /^[ \t]*(?:[-*+]|\d{1,2}[.)])[ \t]/;
const indentOf = (line: string): number => /^[ \t]*/.exec(line)![0].length;

/**
 * Whether the line that leads into the list holding the end of `head` ends with a colon and says to
 * run or use its items: "Run tests per package:". The lead-in is the nearest line above that is no
 * part of the list: not an item as deep or deeper, nor a wrapped item's further line; in a nested
 * list, the item the list hangs from ("- Never on prod:").
 */
function ledIn(head: string): boolean {
  const lines = head.split('\n');
  const own = indentOf(lines[lines.length - 1]!);
  const lead = lines
    .slice(0, -1)
    .reverse()
    .find((l) => l.trim() !== '' && indentOf(l) <= own && !(ITEM_LINE.test(l) && indentOf(l) === own));
  if (lead === undefined || !/:[ \t]*$/.test(lead)) return false;
  // Its last clause says what to do ("Every package uses Vitest (no Jest left). Run tests per
  // package:"); its whole last sentence whether the items are the wrong way ("Dangerous commands —
  // run with care:").
  const clause = lead.slice(lastClauseStart(lead));
  const sentence = lastSentence(lead);
  return RECOMMEND_CUE.test(clause) && !WARN_CUE.test(clause) && !GUARD_CUE.test(clause) && !NOT_ADVICE_CUE.test(sentence);
}

/** The last sentence of a line: after its last `.`, `!` or `?` followed by a space. */
function lastSentence(line: string): string {
  return line.slice(Math.max(0, ...[...line.matchAll(/[.!?]\s/g)].map((m) => (m.index ?? 0) + m[0].length)));
}

/** A code span and what its clause says of it: advice to follow, a warning against it, or neither (a mention). */
export interface SpanStance {
  span: string;
  recommended: boolean;
  warned: boolean;
}

/**
 * Code spans of a text with what their clause says of them: recommended when the words before the
 * span in its clause (sentence, or the part after a `;` or a dash) tell the agent to use or run it, or
 * the words after it set it against something else (`X, never Y`), and none before it warns against
 * it or guards it with a condition; otherwise not. Only a clear recommendation
 * counts: a span merely mentioned stays a trigger.
 */
export function spanStances(text: string): SpanStance[] {
  const out: SpanStance[] = [];
  for (const m of text.matchAll(/`([^`\n]{1,200})`/g)) {
    // Note text is data: a clause is read within a window, and only so many spans, so a huge note
    // with thousands of spans costs no more than a few.
    if (out.length >= MAX_SPANS) break;
    const at = m.index ?? 0;
    const head = text.slice(Math.max(0, at - CLAUSE_WINDOW), at);
    // What the clause says before the span, other spans' code left out (`--no-optional` is no warning),
    // and the asides it closed that only describe: "(library modules have no flavors)" says nothing
    // against what follows, "(don't do this):" or "(only after a backup)" does.
    const clean = (words: string): string =>
      words.replace(/`[^`]*`/g, ' ').replace(/\([^()]*\)/g, (aside) => (describes(aside) ? ' ' : aside));
    const rawBefore = head.slice(lastClauseStart(head));
    const before = clean(rawBefore);
    const rest = text.slice(at + m[0].length, at + m[0].length + CLAUSE_WINDOW);
    const end = rest.search(/[.!?](?:\s|$)|;|\n/);
    const own = end >= 0 ? rest.slice(0, end) : rest;
    const after = own.replace(/`[^`]*`/g, ' ');
    // A fresh imperative after a comma ("…, t.Parallel unless using the fixture, run via `just
    // test-go`") says what to do with the span; the negations and guards of the list items before
    // it ("(not assert)", "unless …") are theirs, unless one opens the sentence ("Don't ever, …, run `X`").
    const scoped = clean(imperativeTail(rawBefore));
    const clause = scoped + after;
    // "Log ids (`user_id`), never user objects": what comes before a contrast is what to do.
    // A numbered step that opens with the span (`2. \`pnpm db:generate --name <x>\``) is the procedure to follow.
    // An item of a list whose lead-in line tells the agent to run or use them ("Run tests per
    // package:") is recommended as the lead-in says; so is a command a clause introduces with a
    // colon, warned of by no word before it.
    const led = LIST_ITEM.test(head) && ledIn(head);
    const introduced =
      ((AFTER_COLON.test(head) && !NOT_ADVICE_CUE.test(before)) || (DISPLAY_LINE.test(head) && introducedBy(head))) && namesCommand(m[1]!);
    // "Failed checks → `gh run view <id> --log-failed`; rerun → `gh run rerun <id> --failed`": a
    // situation in a few words, an arrow, and the command for it; the situation is when, no warning.
    // Not under a negation or a label that warns ("Don't: flaky hook →", "Broken: push →", "Wrong:
    // conflict →"; a failure as the situation is when, "Failed checks →"), and the span ends its clause ("… → `git reset --hard` lost work twice" tells what happened).
    const step =
      ARROW_STEP.test(head) &&
      situationWords(before) <= MAX_SITUATION_WORDS &&
      !NEGATION_CUE.test(before) &&
      !WARN_CUE.test(before.slice(0, Math.max(0, before.lastIndexOf(':')))) &&
      !NOT_ADVICE_CUE.test(lastSentence(head)) &&
      after.trim().split(/\s+/).filter(Boolean).length <= 2 &&
      namesCommand(m[1]!);
    const cue =
      step ||
      RECOMMEND_CUE.test(before) ||
      LOG_CUE.test(before) ||
      REQUIRE_CUE.test(before) ||
      CONTRAST_AFTER.test(own) ||
      INSTEAD_AFTER.test(after) ||
      NUMBERED_STEP.test(head) ||
      led ||
      introduced;
    const warned = !step && warns(scoped);
    out.push({ span: m[1]!, recommended: cue && !warned && !GUARD_CUE.test(clause), warned });
  }
  return out;
}

/**
 * Whether an aside in parentheses only describes something: no warning, guard or label of a wrong
 * way in it. "No" before a noun is a description ("have no flavors"), not a warning.
 */
function describes(aside: string): boolean {
  const words = aside.replace(/\bno\s+(?=[a-z])/gi, ' ');
  return !WARN_CUE.test(words) && !GUARD_CUE.test(words) && !NOT_ADVICE_CUE.test(words) && !/\b(?:only|recommended)\b/i.test(words);
}

/** What precedes a span that stands on a line of its own, after a blank line (a command set out under its lead-in). */
const DISPLAY_LINE = /\n[ \t]*\n[ \t]*$/;

/**
 * Whether the nearest line above the end of `head` that holds text leads into what follows with a
 * colon and says nothing against it: "Lint Ruby like this, from `api/`:" or "After changing a query's
 * SQL:" set out the command to run on the next lines; "The deploy failed with:", "Never run:" or
 * "Wrong:" set out a symptom or the wrong way.
 */
function introducedBy(head: string): boolean {
  const lead = head
    .split('\n')
    .reverse()
    .find((l) => l.trim() !== '');
  if (lead === undefined || !/:[*_ \t]*$/.test(lead)) return false;
  const sentence = lastSentence(lead);
  const words = sentence.replace(/`[^`]*`/g, ' ');
  const leads = RECOMMEND_CUE.test(words) || INTRO_CUE.test(words);
  return leads && !WARN_CUE.test(words) && !GUARD_CUE.test(words) && !NOT_ADVICE_CUE.test(words);
}

/**
 * A lead-in that sets out what to do, besides RECOMMEND_CUE: a way ("like this", "as follows"), the
 * right way as against NOT_ADVICE_CUE's wrong one ("Correct:", "Preferred:"), or the step a moment
 * calls for ("After changing a query:", "To reset it:"). Not a line that only tells what happened
 * ("This wipes every table:", "What took staging down:").
 */
const INTRO_CUE =
  /\b(?:like (?:this|so)|as follows|this way|steps?|correct|right|good|preferred|recommended|do this)\b|^\W*(?:after|before|when|whenever|once|if|for|to)\b/i;

/**
 * The lines of each fenced code block of a text with what its lead-in says of them: recommended when
 * the line above the block leads into it with a colon and says nothing against it ("After changing a
 * query's SQL:" then the commands to run), else a mention (a log, an example of the wrong way).
 */
export function blockStances(text: string): SpanStance[] {
  const out: SpanStance[] = [];
  for (const m of text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    const recommended = introducedBy(text.slice(Math.max(0, (m.index ?? 0) - CLAUSE_WINDOW), m.index));
    for (const line of m[1]!.split('\n')) {
      if (out.length >= MAX_SPANS) return out;
      if (line.trim() !== '') out.push({ span: line, recommended, warned: false });
    }
  }
  return out;
}

/** Characters read on each side of a code span for the clause it sits in, and spans read per text. */
const CLAUSE_WINDOW = 400;
const MAX_SPANS = 200;

/** An arrow right before a span: what the words before it lead to. */
const ARROW_STEP = /(?:→|->|=>)[ \t]*$/;
/** Most words of a situation an arrow maps to a command ("Failed checks →", "rerun →"); more is a story ("… fixture → random `NoSuchKey`"). */
const MAX_SITUATION_WORDS = 4;

/** Words of the situation before an arrow: after the clause's label or last colon, the arrow left out. */
function situationWords(before: string): number {
  const lead = before.replace(/(?:→|->|=>)\s*$/, '');
  return lead
    .slice(lead.lastIndexOf(':') + 1)
    .split(/\s+/)
    .filter((w) => /[A-Za-z0-9]/.test(w)).length;
}

/** A part of a clause that opens by telling the agent to run or use something ("run via", "and use", "then try"). */
const FRESH_IMPERATIVE = /^\s*(?:(?:and|then|so|but)\s+)?(?:use|run|prefer|try|call)\b/i;
/**
 * A part that opens with a negation or a guard ("Don't ever, for any reason, run `X`", "Under no
 * circumstances, …", "Only after a snapshot, run `X`"): it governs the whole sentence, what follows too.
 */
const OPENS_NEGATED =
  /^\W*(?:(?:please|and|but|so)\s+)?(?:never|not|no|don['’]?t|do not|stop|avoid|under no|in no|at no|only (?:after|if|when|once)|unless|until|before you)\b/i;

/**
 * The words before a span that speak of it: the last comma-separated part when it opens with a fresh
 * imperative and no earlier part opens with a negation or a guard, else all of them. "Go tests use testify/require
 * (not assert), t.Parallel unless using the fixture, run via `just test-go`": the negation and the
 * guard are the earlier items'.
 */
function imperativeTail(before: string): string {
  const parts = before.split(',');
  if (parts.length < 2) return before;
  const last = parts[parts.length - 1]!;
  // A negation that names its own object in code ("Avoid `npm install` in CI, use `npm ci`") is that object's.
  const governs = (p: string): boolean => OPENS_NEGATED.test(p.replace(/`[^`]*`/g, ' ')) && !/`[^`]+`/.test(p);
  return FRESH_IMPERATIVE.test(last) && !parts.slice(0, -1).some(governs) ? last : before;
}

/** Where the clause holding the end of `head` starts. */
function lastClauseStart(head: string): number {
  let start = 0;
  for (const m of head.matchAll(/[.!?]\s|;|\n| — | - /g)) start = (m.index ?? 0) + m[0].length;
  return start;
}
