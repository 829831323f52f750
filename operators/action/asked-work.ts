/**
 * The kinds of work teams write rules about, in a prompt that asks for them and in a note named for
 * them: "write tests for X" and a memory `go-test-style`, "add some debug logging" and
 * `logging-privacy`, "find a library for X" and `new-dependency-policy`. Claude Code memories are
 * mostly such rules ("Go tests are table-driven", "never log payloads"), and a prompt asking for the
 * work rarely repeats a word of the rule beyond the work's own everyday name. Pure.
 *
 * The kinds are the everyday work of a code base, not topics of one project: tests, logging,
 * migrations, metrics, dependencies, CI, lint, benchmarks, deploys, protobuf schemas, mocks and
 * fakes, commands for the user's own shell, tickets in the team's tracker and the team's runbooks. Git steps are apart
 * (git-steps.ts), since "commit" and "push" are requests by themselves.
 */
import { stemOf } from '../../core/stems.js';
import { CLAUSE, asksFor } from './requests.js';

interface WorkKind {
  kind: string;
  /** Words a prompt names the work with, as the object of a request ("add some debug *logging*"). */
  objects: string[];
  /** Words of a note's name that say it is named for the work (`go-test-style`, `logging-privacy`), whole words. */
  named: string[];
  /** Verbs that ask for this work besides the common ones ("find a decent HyperLogLog library"). */
  verbs?: string[];
  /** Words of a name that make its work word another thing (`stored-procedures` is no runbook). */
  notNamed?: string[];
}

/** Words that, after "ticket" or in a name with it, say a product's tickets (a sale), not the team's tracker. */
const TICKET_PRODUCT = [
  'price',
  'prices',
  'pricing',
  'purchases?',
  'sales?',
  'bookings?',
  'refunds?',
  'seats?',
  'inventory',
  'counts?',
  'types?',
  'tiers?',
  'holders?',
];

/**
 * Words that make an index or a column another thing than a database's: a search engine's index
 * ("add an index for products in Elasticsearch"), a grid's or a document's column ("add a column to
 * the orders grid", "to the markdown table in the README", "to the CSV export").
 */
const NOT_SCHEMA = String.raw`\b(?:elasticsearch|opensearch|es|algolia|meilisearch|typesense|solr|lucene|search|vector|pinecone|markdown|md|readme|docs?|grid|datagrid|datatable|csv|spreadsheet|sheet|excel|ui|screen|component)\b`;

/** Test frameworks: a rule named for one is named for writing tests in it. */
const TEST_FRAMEWORKS = [
  'pytest',
  'unittest',
  'jest',
  'vitest',
  'mocha',
  'rspec',
  'minitest',
  'exunit',
  'junit',
  'junit4',
  'junit5',
  'testng',
  'kotest',
  'xunit',
  'nunit',
  'phpunit',
  'testify',
];
/** Linters: a rule named for one is named for linting. */
const LINTERS = [
  'eslint',
  'ruff',
  'flake8',
  'pylint',
  'rubocop',
  'credo',
  'golangci',
  'clippy',
  'ktlint',
  'detekt',
  'stylelint',
  'shellcheck',
  'swiftlint',
];

const KINDS: WorkKind[] = [
  // Not "specs": "update the OpenAPI spec" is no test.
  // A rule named for a test framework (`pytest-style`, `exunit-conventions`) is named for writing tests.
  {
    kind: 'test',
    objects: ['tests?', 'testing', 'unit tests?', 'integration tests?', 'test cases?'],
    named: ['test', 'tests', 'testing', ...TEST_FRAMEWORKS],
  },
  { kind: 'log', objects: ['logs?', 'logging', 'log lines?', 'log statements?'], named: ['log', 'logs', 'logging', 'logger'] },
  // A schema change is migration work ("add an index on courier_id", "add a rating column to deliveries");
  // not a search engine's index nor a column of a grid, a markdown table or a CSV (NOT_SCHEMA).
  {
    kind: 'migration',
    objects: ['migrations?', `(?<!${NOT_SCHEMA}[\\s-])(?:indexe?s?|indices|columns?)(?![^.?!\\n]{0,80}?${NOT_SCHEMA})`],
    named: ['migration', 'migrations'],
  },
  // Handling errors: a rule named for it (`go-error-wrapping`) is given for a call that writes error
  // handling (call-work.ts). No prompt asks for it by name alone: "add error handling here" is too
  // often a passing request to lift a rule whole.
  { kind: 'error', objects: [], named: ['error', 'errors'] },
  { kind: 'metric', objects: ['metrics?', 'counters?', 'histograms?', 'gauges?'], named: ['metric', 'metrics'] },
  {
    kind: 'dependency',
    // Not "dependency injection", a design pattern, not a package.
    objects: ['dependency(?!\\s+injection)', 'dependencies', 'deps?', 'librar(?:y|ies)', 'crates?', 'third-party packages?'],
    named: ['dependency', 'dependencies', 'deps', 'dep', 'library', 'libraries', 'crate', 'crates'],
    verbs: ['find', 'pick', 'pull in', 'bring in', 'is there an?', 'any good', 'recommend', 'suggest'],
  },
  // "pipeline" and "workflow" alone are as often a data pipeline or an approval workflow.
  { kind: 'ci', objects: ['ci', 'github actions?', '(?:ci|build|github) (?:pipelines?|workflows?)'], named: ['ci'] },
  { kind: 'lint', objects: ['lint', 'linters?', 'linting'], named: ['lint', 'linter', 'linters', 'linting', ...LINTERS] },
  // Checking a change before calling it done ("make sure it's all green", "run the checks"): a rule
  // named for it (`run-mix-precommit`, `verify-before-done`) says which checks.
  {
    kind: 'verify',
    objects: ['checks', 'pre-?commit(?: checks| hooks?)?'],
    named: ['precommit', 'verify', 'verification', 'checks', 'done'],
  },
  // Credentials the prompt handles ("I have the account SID and auth token"): rules about where they
  // go apply to the whole plan. Found by word anywhere (ASKED_BY_VERB); "token" alone is too often
  // another thing (an invite's expiry token, a lexer's).
  { kind: 'secret', objects: [], named: ['secret', 'secrets', 'credential', 'credentials', 'creds', 'password', 'passwords'] },
  { kind: 'benchmark', objects: ['benchmarks?', 'bench(?:es)?', 'perf numbers'], named: ['benchmark', 'benchmarks', 'bench'] },
  // A schema of the protobuf API ("rip it out of the proto", "add a field to event.proto").
  {
    kind: 'proto',
    objects: ['protos?', 'protobufs?', 'proto (?:files?|schemas?|fields?|messages?|definitions?)', '[\\w-]+\\.proto'],
    named: ['proto', 'protos', 'protobuf', 'buf'],
    verbs: ['rip', 'regenerate', 'renumber'],
  },
  // Mocks, fakes and stubs: found by word anywhere (ASKED_BY_VERB), named by these words.
  { kind: 'mock', objects: [], named: ['mock', 'mocks', 'mocking', 'fake', 'fakes', 'stub', 'stubs'] },
  // A command for the user's own terminal ("give me a one-liner I can paste"): a memory of their shell.
  {
    kind: 'shell',
    objects: ['one-liners?', 'shell (?:commands?|snippets?|loops?)', 'commands? (?:i|we) can (?:paste|run)'],
    named: ['shell', 'terminal'],
    verbs: ['give me', 'show me', 'send me'],
  },
  // Tickets in the team's tracker ("make a ticket for the flaky test"). Not "issue": "fix the issue" is a problem, not a ticket.
  {
    kind: 'ticket',
    // Not a ticketing product's tickets ("fix the ticket price rounding", "add a ticket purchase endpoint").
    objects: [`tickets?(?!\\s+(?:${TICKET_PRODUCT.join('|')})\\b)`, 'bug reports?', '(?:jira|linear|github|gh) (?:issues?|tickets?)'],
    named: ['tracker', 'ticket', 'tickets', 'ticketing', 'jira'],
    verbs: ['file', 'open', 'raise'],
    notNamed: TICKET_PRODUCT,
  },
  // The team's written procedure for an incident or an operation ("what's the procedure?", "follow the runbook").
  {
    kind: 'runbook',
    // Not a database's stored procedure nor a remote procedure call (`procedure-call-timeouts`).
    objects: ['runbooks?', 'playbooks?', '(?<!stored\\s)procedures?'],
    named: ['runbook', 'runbooks', 'playbook', 'playbooks', 'procedure', 'procedures'],
    verbs: ["what's", 'whats', 'what is', 'follow', 'find', 'check'],
    notNamed: ['stored', 'sql', 'plsql', 'call', 'calls', 'rpc'],
  },
  // Background jobs ("add a sidekiq job that pushes the ETA"): rules about their arguments and retries.
  {
    kind: 'job',
    objects: ['(?:background|sidekiq|async|celery|oban) (?:jobs?|tasks?|workers?)', '(?:to|into|in) the background'],
    named: ['job', 'jobs', 'sidekiq', 'celery', 'resque', 'oban', 'bullmq', 'hangfire', 'rq'],
    verbs: ['move', 'offload', 'defer'],
  },
  // User-visible text in an app's UI: rules about string resources and translations. Found in calls only.
  { kind: 'ui-text', objects: [], named: ['strings', 'i18n', 'l10n', 'localization', 'localisation', 'translations', 'lokalise'] },
  // Not "read replicas": a database's, not a deploy's.
  {
    kind: 'deploy',
    objects: ['deploys?', 'deployments?', 'rollouts?', '(?<!read\\s)replicas'],
    named: ['deploy', 'deploys', 'deployment', 'deployments', 'deploying'],
  },
];

/** The verbs of a request for work ("write", "add", "set up", "run"). */
const VERBS = ['write', 'add', 'create', 'make', 'build', 'set up', 'wire up', 'wire', 'put', 'update', 'change', 'extend', 'fix'];
const MORE_VERBS = ['remove', 'rip out', 'run', 'install', 'introduce', 'use', 'bump'];
/**
 * At most five words between the verb and what it asks for ("add some debug logging", "bump ingestd to
 * 12 replicas"); no punctuation crossed, and no denial ("make sure not to add logging" asks for none).
 */
const BETWEEN = String.raw`(?:(?!(?:not|never|don't|without)\s)[\w'./-]+\s+){0,5}?`;

const ASKED = KINDS.filter((k) => k.objects.length > 0).map((k) => ({
  kind: k.kind,
  re: new RegExp(
    `${CLAUSE}(?<verb>${[...VERBS, ...MORE_VERBS, ...(k.verbs ?? [])].join('|')})\\s+${BETWEEN}(?:${k.objects.join('|')})\\b(?![-'])`,
    'dgi',
  ),
}));
/**
 * Some work is asked for by its verb: deploying and scaling ("deploy the fix to staging", "roll it
 * out", "scale queryd to 6", "ship it to prod"; not "deploy went out at 14:02", where the word names
 * the event), and logging ("log the batch id when it fails", "dump the payload into the logs"; not
 * "dump the logs of the pod", which reads them).
 */
const ASKED_BY_VERB = [
  {
    kind: 'deploy',
    re: new RegExp(
      `${CLAUSE}(?<verb>deploy\\s+(?:it|this|that|these|them|the|a|an|my|our|[\\w.-]+\\s+to)\\b|roll\\s+(?:it|this|that|them)\\s+out\\b|roll\\s+out\\s+(?:the|a|it|this|that)\\b|scale\\s+(?:up\\s+|down\\s+)?[\\w.-]+\\s+(?:to|up|down)\\b|ship\\s+(?:it|this|that|the\\s+[\\w.-]+)\\s+to\\s+(?:prod|production|staging)\\b)`,
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
  // A change checked before it is called done: "make sure this is all green", "check everything passes", "make it green".
  {
    kind: 'verify',
    re: new RegExp(`${CLAUSE}(?<verb>make sure|check|verify|ensure)\\s+(?:that\\s+)?${BETWEEN}(?:green|passes|pass)\\b`, 'dgi'),
  },
  {
    kind: 'verify',
    re: new RegExp(`${CLAUSE}(?<verb>make|get)\\s+(?:it|this|that|everything|ci|the build)\\s+(?:all\\s+)?green\\b`, 'dgi'),
  },
  {
    kind: 'secret',
    re: /\b(?<verb>api[ -]?keys?|auth tokens?|access tokens?|secret keys?|client secrets?|credentials|passwords?|secrets)\b(?![-'])/dgi,
  },
  // Getting a change to production, asked or asked about anywhere ("what are the steps to get it to
  // prod?", "so we'd ship it to prod on Dec 1, right?").
  {
    kind: 'deploy',
    re: /\b(?<verb>ship|get|push|release|promote|roll)\s+(?:it|this|that|them|the\s+[\w.-]+)\s+(?:out\s+)?(?:to|into)\s+(?:prod|production)\b/dgi,
  },
];

const NAMED = KINDS.map((k) => ({
  kind: k.kind,
  words: new Set(k.named),
  stems: new Set(k.named.map(stemOf)),
  notNamed: (k.notNamed ?? []).map((w) => new RegExp(`^${w}$`)),
}));

/**
 * The kinds of work a prompt asks for (the first 2,000 characters read); not one it denies or
 * reports as failing ("no need to add logging", "why does CI fail to run tests").
 */
export function askedWork(prompt: string): Set<string> {
  const text = prompt.slice(0, 2000);
  return new Set([...ASKED, ...ASKED_BY_VERB].filter((a) => asksFor(a.re, text)).map((a) => a.kind));
}

/**
 * Learning types that state a rule (a practice to follow or avoid), not a problem met once: a
 * bug-fix titled "Flaky vitest tests from fake timers" is named for a problem with tests, and "write
 * a unit test for this function" is not about it.
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
 * no dependency, `catalog` no log.
 */
export function workOf(words: ReadonlySet<string>): Set<string> {
  return new Set(
    NAMED.filter((n) => [...n.words].some((w) => words.has(w)) && ![...words].some((w) => n.notNamed.some((re) => re.test(w)))).map(
      (n) => n.kind,
    ),
  );
}

/** The stems of a kind of work's name words (`test` for tests), for counting how often a note says it. */
export function workStems(kind: string): ReadonlySet<string> {
  return NAMED.find((n) => n.kind === kind)?.stems ?? new Set();
}
