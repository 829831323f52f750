/**
 * The kinds of work teams write rules about, in a prompt that asks for them and in a note named for
 * them: "write tests for X" and a memory `go-test-style`, "add some debug logging" and
 * `logging-privacy`, "find a library for X" and `new-dependency-policy`. Claude Code memories are
 * mostly such rules ("Go tests are table-driven", "never log payloads"), and a prompt asking for the
 * work rarely repeats a word of the rule beyond the work's own everyday name. Pure.
 *
 * The kinds are the everyday work of a code base, not topics of one project: tests, logging,
 * migrations, metrics, dependencies, CI, lint, benchmarks, deploys, protobuf schemas, mocks and
 * fakes, commands for the user's own shell, tickets in the team's tracker and the team's runbooks,
 * checks before a change is done, credentials (work-kinds.ts). Git steps are apart
 * (git-steps.ts), since "commit" and "push" are requests by themselves.
 */
import { CREDENTIAL_VARIABLE_RE } from './credentials.js';
import { stemOf } from '../../core/stems.js';
import { CLAUSE, asksFor, unswapVerbs } from './requests.js';
import { KINDS } from './work-kinds.js';
import { KIND_REQUESTS } from './kind-requests.js';

/** The test runners a prompt may use as a verb ("rspec it"). */
const TEST_RUNNERS = KINDS.find((k) => k.kind === 'test')!.tools!.join('|');

/** The verbs of a request for work ("write", "add", "set up", "run"). */
const VERBS = ['write', 'add', 'create', 'make', 'build', 'set up', 'wire up', 'wire', 'put', 'update', 'change', 'extend', 'fix'];
const MORE_VERBS = ['remove', 'rip out', 'run', 'install', 'introduce', 'use', 'bump'];
/**
 * At most five words between the verb and what it asks for ("add some debug logging", "bump ingestd to
 * 12 replicas", "add a nullable `reason` column"; a code span counts as a word); no punctuation
 * crossed, and no denial ("make sure not to add logging" asks for none).
 */
const BETWEEN = String.raw`(?:(?!(?:not|never|don't|without)\s)(?:\`[^\`\n]{1,60}\`|[\w'./-]+)\s+){0,5}?`;

/**
 * What joins a second object to a request in the same sentence: anything but a sentence's end, then
 * "and" with at most two determiners or kinds before the object ("and a test", "and some unit tests").
 */
const AND_ALSO = String.raw`[^.?!\n]{1,160}?\band\s+(?:also\s+)?(?:(?:a|an|some|the|new|unit|integration|matching)\s+){0,2}`;
/**
 * What ends a second object, or a job of its own: the clause's end or what it is for ("…, and a
 * test that cancelling stores it", "a job that builds the archive"); not another noun ("and a test
 * account", "and the logging page", "a job description") nor a verb of its own ("and the tests still pass").
 */
const OBJECT_END = String.raw`(?=\s*(?:$|[.,;:!?)])|\s+(?:that|which|for|to|so|per|every|each|covering|with|when|after|once|too)\b)`;

/**
 * What goes out on a day without being deployed: mail, notices and payments the app sends
 * ("the digest emails should go out on Monday"), the lights.
 */
const SENT_OUT = String.raw`\b(?:e-?mails?|mails?|mailings?|notifications?|notices?|invoices?|newsletters?|reminders?|messages?|alerts?|digests?|letters?|texts?|sms|pushes|payouts?|payments?|statements?|lights?|power)`;

/** What makes a job another thing than a queued one: a CI, cron, pipeline or scheduler's job. */
const NOT_QUEUE = String.raw`\b(?:ci|cron|crontab|pipelines?|workflows?|github|gitlab|actions|jenkins|circleci|buildkite|k8s|kubernetes|helm|airflow|dags?|build|nightly|scheduled|batch|print|search)\b`;

/**
 * What makes "passes" a value passed on, not a check passing: an object or a direction after it
 * ("passes the payload to", "passes through"), unless that object is a check ("passes the linter").
 */
const PASSES_ON = String.raw`(?!\s+(?:the|a|an|it|its|this|that|their|our|through|along|over|down|back)\b(?!\s+(?:lint\w*|tests?|test suite|suite|ci|checks?|build|type ?checks?|typecheck)\b))`;
/**
 * A password or a secret as a feature of the app, not a credential the prompt handles: a user's
 * ("reset their password", "forgot password"), or a part of a screen or flow ("the password field",
 * "the secrets tab", "a password strength meter").
 */
const ACCOUNT_FEATURE_BEFORE = String.raw`(?<!\b(?:forgot|forgotten|reset|resetting|change|changing|wrong|user'?s?'?|their|hash(?:ed|es|ing)?)\s+(?:(?:the|a|their|your|his|her)\s+)?)`;
const ACCOUNT_FEATURE_AFTER = String.raw`(?!\s+(?:fields?|inputs?|box(?:es)?|forms?|pages?|tabs?|screens?|modals?|dialogs?|resets?|strength|meters?|polic(?:y|ies)|rules|validation|validators?|hash(?:es|ing)?|recovery|links?|e-?mails?|requirements|complexity|expiry|toggles?|buttons?|flows?)\b)`;

/**
 * Work said to be needed: "we need an index for it", "we need tests for this", "this needs a
 * migration", "it still needs tests". The object ends the clause or is followed by what it is for
 * (OBJECT_END): "I need a test account", "I need logs from prod" ask for no tests and no logging.
 * Not a need a tool or someone reports ("django says this needs a migration", "I don't think we
 * need a migration"), nor a denied one ("we don't need a migration": notAsked reads the verb's left).
 */
const REPORTED_NEED = String.raw`(?<!\b(?:says?|said|thinks?|think|thought|claims?|warns?|complains?|tells? me|told me|whether|if)\s+(?:that\s+)?)`;
const NEEDS = String.raw`\b${REPORTED_NEED}(?:we|i|they|you|it|this|that)\s+(?:still\s+|also\s+|probably\s+)?(?<verb>needs?)\s+(?:(?:a|an|another|some|new|more|proper)\s+(?:[\w-]+\s+)?)?`;

const ASKED = KINDS.filter((k) => k.objects.length > 0).flatMap((k) => {
  const verbs = [...VERBS, ...MORE_VERBS, ...(k.verbs ?? [])].join('|');
  const objects = k.objects.join('|');
  // Each of the three needs one of the kind's objects, so a prompt with none skips them: V8 compiles a regexp when it first
  // runs (about 0.7 ms each here), and a hook run in its own process compiled all of them for every prompt (about 45 ms).
  const pre = new RegExp(`(?:${objects})\\b`, 'i');
  return [
    { kind: k.kind, pre, re: new RegExp(`${CLAUSE}(?<verb>${verbs})\\s+${BETWEEN}(?:${objects})\\b(?![-'])`, 'dgi') },
    // A second object of the same request, further on in its sentence: "add a nullable `reason`
    // column on bookings, and a test that cancelling stores it" asks for the test too.
    { kind: k.kind, pre, re: new RegExp(`${CLAUSE}(?<verb>${verbs})\\s+${AND_ALSO}(?:${objects})\\b(?![-'])${OBJECT_END}`, 'dgi') },
    // Work said to be needed ("we need an index for it", "this needs a migration", "it still needs
    // tests"): a request as much as "add one"; not "I need it for the webhook test", where the work
    // word is no object of the need.
    { kind: k.kind, pre, re: new RegExp(`${NEEDS}(?:${objects})\\b(?![-'])${OBJECT_END}`, 'dgi') },
  ];
});
/**
 * Some work is asked for by its verb: deploying and scaling ("deploy the fix to staging", "roll it
 * out", "get that rolled out to staging", "scale queryd to 6", "ship it to prod"; not "deploy went out at 14:02", where the word names
 * the event), and logging ("log the batch id when it fails", "dump the payload into the logs"; not
 * "dump the logs of the pod", which reads them).
 */
const ASKED_BY_VERB = [
  {
    kind: 'deploy',
    re: new RegExp(
      `${CLAUSE}(?<verb>deploy\\s+(?:it|this|that|these|them|the|a|an|my|our|[\\w.-]+\\s+to)\\b|roll\\s+(?:it|this|that|them)\\s+out\\b|(?:get|have)\\s+(?:it|this|that|them)\\s+rolled\\s+out\\b|roll\\s+out\\s+(?:the|a|it|this|that)\\b|scale\\s+(?:up\\s+|down\\s+)?[\\w.-]+\\s+(?:to|up|down)\\b|ship\\s+(?:it|this|that|the\\s+[\\w.-]+)\\s+to\\s+(?:prod|production|staging)\\b)`,
      'dgi',
    ),
  },
  // Not logging a user in or out ("log the user out when the token expires"), nor logging a bug in the tracker.
  {
    kind: 'log',
    re: new RegExp(
      `${CLAUSE}(?<verb>log)\\s+(?:the|a|an|every|each|its|their|which|what|when|how)\\b(?!(?:\\s+[\\w-]+){0,2}\\s+(?:out|off)\\b|(?:\\s+[\\w-]+)?\\s+users?\\s+(?:back\\s+)?in\\b|(?:\\s+new)?\\s+(?:bug|ticket|issue)s?\\b)`,
      'dgi',
    ),
  },
  { kind: 'log', re: new RegExp(`${CLAUSE}(?<verb>dump)\\s+${BETWEEN}(?:into|to|in)\\s+(?:the\\s+)?logs?\\b`, 'dgi') },
  // A package pulled in by name ("pull in resilience4j for the retries", "let's bring in coil 3"); not
  // changes pulled in from a branch ("pull in the latest main").
  {
    kind: 'dependency',
    re: new RegExp(
      `${CLAUSE}(?<verb>pull|bring)\\s+in\\s+(?!(?:the|their|our|my|your|those|these|all|any|some|latest|changes?|commits?|updates?|upstream|main|master|develop|origin|remote|fixes)\\b)[\\w@][\\w@./-]*`,
      'dgi',
    ),
  },
  // A package added to an app by its name ("add date-fns to the desktop app", "add zod to the api
  // package"); not a feature ("add validation to the api", "add rate-limiting to the app").
  {
    kind: 'dependency',
    re: new RegExp(
      `${CLAUSE}(?<verb>add|install)\\s+(?!(?:a|an|the|some|more|tests?|logging|logs?|auth\\w*|validation|caching|cache|retries|pagination|support|types?|docs?|comments?|errors?|metrics|tracing|i18n|translations?|styles?|it|this|that|them)\\b)\`?@?[a-z0-9][\\w.@/-]*(?<!ing)\`?\\s+(?:to|in|into)\\s+(?:the\\s+|our\\s+|my\\s+)?(?:[\\w@./-]+\\s+)?(?:app|apps|package|packages|project|workspace|frontend|backend|service|api|web|desktop|mobile|monorepo|repo|deps|dependencies)\\b`,
      'dgi',
    ),
  },
  // A column asked for by a type only a database has ("add a nullable settled_at timestamptz to
  // payouts"); not "text", "date" or "boolean", which a form, a page or a prop has too.
  {
    kind: 'migration',
    re: new RegExp(
      `${CLAUSE}(?<verb>add)\\s+(?:an?\\s+)?(?:(?:nullable|non-?null|not[- ]null|optional|required|new)\\s+)?[\\w\`]+\\s+(?:timestamptz|timestamp|datetime|varchar|bigint|smallint|jsonb|uuid)\\b(?:\\s+column)?\\s+(?:to|on|in)\\b`,
      'dgi',
    ),
  },
  // A job of its own ("write a job that builds each clinic's archive"): a queued job, not a CI, cron or
  // pipeline job ("add a CI job", "a nightly job in the workflow").
  {
    kind: 'job',
    re: new RegExp(
      `${CLAUSE}(?<verb>write|add|create|make)\\s+(?:a|an|another|one)\\s+(?:new\\s+)?(?!${NOT_QUEUE}\\s)(?:[\\w-]+\\s+)?jobs?\\b${OBJECT_END}(?![^.?!\\n]{0,60}?${NOT_QUEUE})`,
      'dgi',
    ),
  },
  // Printing something to see what happens is debug logging ("print the request headers so I can figure out why");
  // not a dump or a print for use ("dump the database so I can restore it", "print the invoice so I can hand it over").
  {
    kind: 'log',
    re: new RegExp(
      `${CLAUSE}(?<verb>print|dump)\\s+(?:out\\s+)?(?:[\\w'./-]+\\s+){1,8}?so\\s+(?:i|we)\\s+can\\s+(?:see|figure|debug|check|tell|understand|inspect|trace|track|find|spot|verify|watch|follow)\\b`,
      'dgi',
    ),
  },
  // Mocks and fakes, wherever the prompt brings them up ("so the tests can use a fake"): rules about
  // them ("never mock the database") apply to the whole plan, not only to a request for one.
  // Not a design's mock-up ("a mocked up screen") nor a language's type stubs.
  {
    kind: 'mock',
    re: /(?<!\btype\s)\b(?<verb>mocks?|mocking|mocked|fakes?|faking|faked|stubs?|stubbing|stubbed)\b(?![-']|\s+up\b)/dgi,
  },
  // A bug or issue for the tracker ("file a bug: double tapping…", "open an issue for it"); not "fix the bug".
  {
    kind: 'ticket',
    re: new RegExp(`${CLAUSE}(?<verb>file|open|raise|create|log|report)\\s+(?:a|an)\\s+(?:new\\s+)?(?:bug|issue)\\b`, 'dgi'),
  },
  // Tests asked for by what they do ("cover the unassign logic with tests"), or as a next step ("now tests for that").
  { kind: 'test', re: new RegExp(`${CLAUSE}(?<verb>cover)\\s+${BETWEEN}with\\s+(?:[\\w-]+\\s+)?tests?\\b`, 'dgi') },
  {
    kind: 'test',
    re: new RegExp(`${CLAUSE}(?<verb>tests?)\\s+for\\s+(?:that|this|it|them)(?:\\s+(?:too|as well|also))?[\\s.!?]*$`, 'dgi'),
  },
  // A test runner's name as the verb, asked as a next step ("ok, now rspec it", "then pytest this").
  {
    kind: 'test',
    re: new RegExp(
      `${CLAUSE}(?<verb>${TEST_RUNNERS})\\s+(?:it|this|that|them|everything)(?:\\s+(?:too|again|as well|also|please))?(?=[\\s.!?]*$|[\\s,]+(?:and|then|please)\\b)`,
      'dgi',
    ),
  },
  // A change checked before it is called done: "make sure this is all green", "check everything passes", "make it green".
  // Not a value passed on ("before it passes the payload to the handler", "the flag passes through").
  {
    kind: 'verify',
    re: new RegExp(
      `${CLAUSE}(?<verb>make sure|check|verify|ensure)\\s+(?:that\\s+)?${BETWEEN}(?:green|pass(?:es)?\\b${PASSES_ON})\\b`,
      'dgi',
    ),
  },
  {
    kind: 'verify',
    re: new RegExp(`${CLAUSE}(?<verb>make|get)\\s+(?:it|this|that|everything|ci|the build)\\s+(?:all\\s+)?green\\b`, 'dgi'),
  },
  {
    kind: 'secret',
    re: new RegExp(
      `\\b${ACCOUNT_FEATURE_BEFORE}(?<verb>api[ -]?keys?|auth tokens?|access tokens?|secret keys?|client secrets?|credentials|passwords?|secrets)\\b(?![-'])${ACCOUNT_FEATURE_AFTER}`,
      'dgi',
    ),
  },
  // A credential by the name of the variable that holds it (credentials.ts): `STRIPE_WEBHOOK_SECRET`, `$DB_PASSWORD`, `API_KEY`.
  { kind: 'secret', re: CREDENTIAL_VARIABLE_RE },
  // Getting a change to production, asked or asked about anywhere ("what are the steps to get it to
  // prod?", "so we'd ship it to prod on Dec 1, right?", "get it onto prod asap", "can it go live on the 17th?",
  // "can the refactor go out on the 30th?", "it should go out with 5.0").
  {
    kind: 'deploy',
    re: new RegExp(
      String.raw`\b(?<verb>(?:ship|get|push|release|promote|roll)\s+(?:it|this|that|them|the\s+[\w.-]+)\s+(?:out\s+)?(?:to|into|onto|on)\s+(?:prod|production)|(?:go|goes|going)\s+live|(?<!${SENT_OUT}\s+)(?:can|could|should|will|would)\s+(?:(?!${SENT_OUT}\s)[\w./()-]+\s+){0,4}?go\s+out\s+(?:on|with|in|before|by|after|this|next|today|tomorrow)\b)\b`,
      'dgi',
    ),
  },
];

const NAMED = KINDS.map((k) => ({
  kind: k.kind,
  words: new Set(k.named),
  tools: new Set(k.tools ?? []),
  stems: new Set(k.named.map(stemOf)),
  notNamed: (k.notNamed ?? []).map((w) => new RegExp(`^${w}$`)),
}));

/** Every pattern of asked work, with the cheap test of a word it needs where it has one. */
const ALL_ASKED: { kind: string; re: RegExp; pre?: RegExp }[] = [...ASKED, ...ASKED_BY_VERB, ...KIND_REQUESTS];

/**
 * The kinds of work a prompt asks for (the first 2,000 characters read); not one it denies or
 * reports as failing ("no need to add logging", "why does CI fail to run tests").
 */
export function askedWork(prompt: string): Set<string> {
  const text = unswapVerbs(prompt.slice(0, 2000));
  return new Set(ALL_ASKED.filter((a) => (a.pre?.test(text) ?? true) && asksFor(a.re, text)).map((a) => a.kind));
}

/**
 * Learning types that state a rule (a practice to follow or avoid), not a problem met once: a bug-fix titled "Flaky vitest tests
 * from fake timers" is named for a problem with tests, and "write a unit test for this function" is not about it.
 */
const RULE_TYPES = new Set(['pattern', 'anti-pattern', 'decision', 'convention', 'preference', 'rule', 'policy']);

/** Whether a note states a rule: every Claude Code memory (rules and facts to apply), or a learning of a rule type. */
export function isRuleNote(note: { memoryType?: string; learningType: string }): boolean {
  return Boolean(note.memoryType) || RULE_TYPES.has(note.learningType);
}

/** The whole words of a name, lower-cased (`go-test-style` → go, test, style; "Rust tests" → rust, tests). */
export function nameWords(name: string): Set<string> {
  return new Set(
    name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );
}

/**
 * The kinds of work a note is named for, by the whole words of its name (or title): `depends_on` is
 * no dependency, `catalog` no log. With `tools`, also by a tool of the work (`pytest-style`): for a
 * memory's name, not for a learning's title sentence (see WorkKind.tools).
 */
export function workOf(words: ReadonlySet<string>, tools = false): Set<string> {
  const names = (n: (typeof NAMED)[number]): boolean => [...words].some((w) => n.words.has(w) || (tools && n.tools.has(w)));
  return new Set(NAMED.filter((n) => names(n) && ![...words].some((w) => n.notNamed.some((re) => re.test(w)))).map((n) => n.kind));
}

/**
 * The words that name the kinds of work a prompt asks for ("pull in resilience4j" → dependency,
 * dependencies, library, ...): searched along with the prompt, at the weight of a related word, so
 * a rule that names the work only in its own words (a memory's How to apply: "Adding, upgrading or
 * removing any dependency") is among the candidates the asked-step lift reads.
 */
export function askedWorkWords(prompt: string): string[] {
  const kinds = askedWork(prompt);
  // Mocks and credentials count wherever the prompt brings them up ("fake timers"): a mention, not
  // a request for work, and more candidates shift how far the prompt's own matches stand out.
  for (const k of MENTIONED) kinds.delete(k);
  return kinds.size ? KINDS.filter((k) => kinds.has(k.kind)).flatMap((k) => k.named) : [];
}

/** Kinds of work read from a mere mention (ASKED_BY_VERB: mock, secret). */
const MENTIONED = ['mock', 'secret'];

/** The stems of a kind of work's name words (`test` for tests), for counting how often a note says it. */
export function workStems(kind: string): ReadonlySet<string> {
  return NAMED.find((n) => n.kind === kind)?.stems ?? new Set();
}

/** The stems of the tools a kind of work is done with (`rspec`, `pytest` for tests). */
export function workTools(kind: string): ReadonlySet<string> {
  return new Set([...(NAMED.find((n) => n.kind === kind)?.tools ?? [])].map(stemOf));
}
