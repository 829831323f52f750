/**
 * The kinds of work teams write rules about (asked-work.ts reads them in prompts and in names): for
 * each, the words a prompt names it with, the words of a rule's name that say it is named for it,
 * and the verbs that ask for it besides the common ones. Data only.
 */

import { REVIEW_KIND } from './review-requests.js';
import { CLOCK_KIND } from './clock-requests.js';

export interface WorkKind {
  kind: string;
  /** Words a prompt names the work with, as the object of a request ("add some debug *logging*"). */
  objects: string[];
  /** Words of a note's name that say it is named for the work (`go-test-style`, `logging-privacy`), whole words. */
  named: string[];
  /** Verbs that ask for this work besides the common ones ("find a decent HyperLogLog library"). */
  verbs?: string[];
  /** Words of a name that make its work word another thing (`stored-procedures` is no runbook). */
  notNamed?: string[];
  /**
   * Tools of the work (test frameworks, linters, job libraries): a memory named for one
   * (`pytest-style`) is named for the work; a learning's title sentence names the tool where a
   * problem happened ("… connection pool exhaustion in pytest"), not a rule about the work.
   */
  tools?: string[];
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
 * the orders grid", "to the markdown table in the README", "to the CSV export", "to the parquet
 * files it writes").
 */
const NOT_SCHEMA = String.raw`\b(?:elasticsearch|opensearch|es|algolia|meilisearch|typesense|solr|lucene|search|vector|pinecone|markdown|md|readme|docs?|grid|datagrid|datatable|csv|spreadsheet|sheet|excel|ui|screen|component|parquet|avro|orc|arrow|feather|ndjson|jsonl)\b`;

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
  'pest',
  'testify',
  'nextest',
];
/** Linters and formatters: a rule named for one is named for linting. */
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
  // Formatters: a rule named for one is named for the code's style.
  'pint',
  'prettier',
  'gofmt',
  'rustfmt',
  'swiftformat',
  'ktfmt',
  'biome',
];

/** Values an app formats for its users: "date formatting" is no code style. */
const SHOWN_VALUE = String.raw`(?:dates?|times?|numbers?|currency|currencies|prices?|money|amounts?|phone|addresses?|names?|output)`;
/** What "the formatting of …" names when it is the code's: the code, a file, the diff. */
const CODE_PLACE = String.raw`(?:(?:the|this|these|that|all|my|our)\s+)?(?:[\w-]+\s+)?(?:code|codebase|files?|sources?|repo|project|diff|changes?|pr|[\w./-]+\.[a-z]{1,5})\b`;

export const KINDS: WorkKind[] = [
  // Not "specs": "update the OpenAPI spec" is no test.
  // A rule named for a test framework (`pytest-style`, `exunit-conventions`) is named for writing tests.
  {
    kind: 'test',
    objects: ['tests?', 'testing', 'unit tests?', 'integration tests?', 'test cases?'],
    named: ['test', 'tests', 'testing'],
    tools: TEST_FRAMEWORKS,
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
    // Package managers: a memory named for one ("Use pnpm, never npm or yarn") says how packages are added.
    tools: ['npm', 'pnpm', 'yarn', 'bun', 'pip', 'pipenv', 'poetry', 'uv', 'composer', 'bundler'],
  },
  // An app's or package's own version ("set the app version to 1.11.0", "bump the version"): rules
  // about who bumps it and where (`no-manual-version-bumps`); not an API's or a runtime's version.
  {
    kind: 'version',
    objects: ['(?:app |package |build |marketing )?versions?(?: numbers?| codes?| names?)?(?=\\s+(?:to|for|in|on)\\b|\\s*$|[.,!?])'],
    named: ['version', 'versions', 'versioning'],
    verbs: ['set', 'raise', 'increment'],
    notNamed: ['api', 'apis', 'schema', 'protocol', 'node', 'python', 'ruby', 'java', 'go', 'sdk'],
  },
  // "pipeline" and "workflow" alone are as often a data pipeline or an approval workflow.
  { kind: 'ci', objects: ['ci', 'github actions?', '(?:ci|build|github) (?:pipelines?|workflows?)'], named: ['ci'] },
  // The code's style is lint work ("fix the code style", "fix the formatting"); not the formatting
  // of what the app shows ("fix the formatting of the date in the invoice email", "price formatting").
  {
    kind: 'lint',
    objects: [
      'lint',
      'linters?',
      'linting',
      'code ?style',
      `(?<!${SHOWN_VALUE}\\s)formatting(?!\\s+(?:of|for|on|in)\\s+(?!${CODE_PLACE}))`,
    ],
    named: ['lint', 'linter', 'linters', 'linting'],
    tools: LINTERS,
  },
  // Checking a change before calling it done ("make sure it's all green", "run the checks"): a rule
  // named for it (`run-mix-precommit`, `verify-before-done`) says which checks.
  {
    kind: 'verify',
    objects: ['checks', 'pre-?commit(?: checks| hooks?)?'],
    named: ['precommit', 'verify', 'verification', 'checks', 'done'],
    // What else is verified or checked: an email address, a webhook's signature, a pod's health.
    notNamed: ['health', 'healthchecks?', 'e-?mails?', 'signatures?', 'webhooks?', 'phone', 'sms', 'otp', 'identity', 'kyc', 'accounts?'],
  },
  // Credentials the prompt handles ("I have the account SID and auth token"): rules about where they
  // go apply to the whole plan. Found by word anywhere (ASKED_BY_VERB); "token" alone is too often
  // another thing (an invite's expiry token, a lexer's).
  // Not the app's own passwords as a feature (`password-hashing`, `password-reset-emails`): a rule
  // about them is no rule for reading a dotenv file.
  {
    kind: 'secret',
    objects: [],
    named: ['secret', 'secrets', 'credential', 'credentials', 'creds', 'password', 'passwords'],
    notNamed: ['hash', 'hashes', 'hashed', 'hashing', 'resets?', 'forgot', 'forgotten', 'strength', 'complexity', 'recovery'],
  },
  { kind: 'benchmark', objects: ['benchmarks?', 'bench(?:es)?', 'perf numbers'], named: ['benchmark', 'benchmarks', 'bench'] },
  // A consumer or producer of a message broker's topic ("add a consumer for the tenant-config topic"):
  // rules about which client and how offsets are committed (`kafka-client-franz-go`,
  // `kafka-idempotent-consumers`). Not a "consumer" of an API or a library, which no broker names.
  {
    kind: 'messaging',
    objects: [
      '(?:kafka |redpanda |topic |queue |event )?(?:consumers?|producers?)(?=[^.?!,;\\n]{0,80}?\\b(?:topics?|kafka|redpanda|queues?|partitions?|brokers?|offsets?)\\b)',
    ],
    named: ['kafka', 'redpanda', 'consumer', 'consumers', 'producer', 'producers'],
  },
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
    named: ['job', 'jobs', 'sidekiq', 'celery', 'resque'],
    tools: ['oban', 'bullmq', 'hangfire', 'rq'],
    verbs: ['move', 'offload', 'defer'],
  },
  // Feature flags: rules about where a flag is declared, who owns it and where it is toggled. Asked
  // for by what flags do more than by name (flag-requests.ts); not a command's option (`cli-flags`).
  {
    kind: 'flag',
    objects: [
      'feature[ -](?:flags?|toggles?|switch(?:es)?)',
      '(?:launchdarkly|flipper|unleash|flagsmith|growthbook|statsig|configcat) (?:flags?|toggles?)',
    ],
    named: ['flag', 'flags', 'toggles'],
    tools: ['flipper', 'launchdarkly', 'unleash', 'flagsmith', 'growthbook', 'statsig', 'configcat'],
    // Not a build's or a compiler's flags, a UI's toggles, a column of flags or a flagged account.
    notNamed: [
      'cli',
      'commands?',
      'compilers?',
      'compile',
      'build',
      'rustc',
      'gcc',
      'clang',
      'cargo',
      'docker',
      'linker',
      'cflags',
      'ldflags',
      'args',
      'arguments',
      'options',
      'emoji',
      'country',
      'dark',
      'mode',
      'ui',
      'columns?',
      'bitmask',
      'red',
      'fraud',
      'suspicious',
      'spam',
    ],
  },
  REVIEW_KIND,
  CLOCK_KIND,
  // User-visible text in an app's UI: rules about string resources and translations. Found in calls only.
  { kind: 'ui-text', objects: [], named: ['strings', 'i18n', 'l10n', 'localization', 'localisation', 'translations', 'lokalise'] },
  // Not "read replicas": a database's, not a deploy's.
  {
    kind: 'deploy',
    // A count of pods or instances ("bump it to 6 pods") is a deploy's.
    objects: ['deploys?', 'deployments?', 'rollouts?', '(?<!read\\s)replicas', '\\d+\\s+(?:pods|instances)'],
    // A release's rules (`release-procedure`) and a freeze (`close-freeze`, `merge-freeze`) are about
    // getting a change out; a release's notes and changelog are writing.
    named: ['deploy', 'deploys', 'deployment', 'deployments', 'deploying', 'release', 'releases', 'freeze', 'freezes'],
    // Nor `pip freeze`, `Object.freeze`, a lock or a semaphore released.
    notNamed: ['notes?', 'changelogs?', 'pip', 'object', 'locks?', 'mutex(?:es)?', 'semaphores?'],
  },
];
