/**
 * The kind of work a tool call does, read from the call itself, and the rules named for it. Pure.
 *
 * Claude Code memories are mostly rules about kinds of work ("Go errors are wrapped with %w, never
 * logged and returned", "no unwrap() in non-test Rust", "never log payloads"), named for the work
 * (`go-error-wrapping`, `rust-error-handling`, `logging-privacy`). The call that does the work rarely
 * shares a rare word with the rule: it writes `if err != nil { log.Error(...); return err }`. What
 * it shares is the work itself, which the call shows plainly: the error handling or log line it
 * adds, the test file it edits or the test runner it starts, the migration folder it writes in.
 *
 * A rule is named for a kind by the whole words of its name (asked-work.ts: the same kinds a prompt
 * asks for). When its name also names a language (`go-…`, `rust-…`), the call must be in that
 * language: a Rust edit is not what a Go rule is about. A rule that leaves tests out ("no unwrap()
 * in non-test Rust code") is not given for a call inside tests.
 */
import { addedLines, type ToolAction } from './tool-call.js';
import { program } from './looking.js';
import { runKinds } from './run-work.js';
import { nameWords, workOf } from './asked-work.js';
import { codeKinds } from './edit-work.js';
import { handlesSecrets } from './secret-files.js';
import { editsOwnVersion } from './version-work.js';

/** The kinds of work of a call, the languages it is in, and whether it is inside tests. */
export interface CallWork {
  /** The call runs a command (not an edit). */
  runs: boolean;
  kinds: Set<string>;
  languages: Set<string>;
  inTests: boolean;
}

/** Languages by file suffix and by the program that runs them (a language's family is one name: `js` for TypeScript too). */
const LANG_BY_SUFFIX: Readonly<Record<string, string>> = {
  go: 'go',
  rs: 'rust',
  py: 'python',
  ts: 'js',
  tsx: 'js',
  js: 'js',
  jsx: 'js',
  mjs: 'js',
  cjs: 'js',
  java: 'java',
  kt: 'kotlin',
  rb: 'ruby',
  swift: 'swift',
  cs: 'csharp',
  php: 'php',
  ex: 'elixir',
  exs: 'elixir',
};
const LANG_BY_PROGRAM: Readonly<Record<string, string>> = {
  go: 'go',
  cargo: 'rust',
  python: 'python',
  pytest: 'python',
  node: 'js',
  npm: 'js',
  pnpm: 'js',
  yarn: 'js',
  bun: 'js',
  jest: 'js',
  vitest: 'js',
  mvn: 'java',
  // Gradle builds Java and Kotlin alike (an Android app is both).
  gradle: 'jvm',
  gradlew: 'jvm',
  rspec: 'ruby',
  bundle: 'ruby',
  rails: 'ruby',
  rake: 'ruby',
  dotnet: 'csharp',
  mix: 'elixir',
};
/** Languages one build compiles together: a Kotlin rule holds for the Java of the same Android app. */
const family = (language: string): string => (language === 'kotlin' || language === 'java' ? 'jvm' : language);

/** Words of a note's name that name a language. */
const LANG_BY_NAME_WORD: Readonly<Record<string, string>> = {
  go: 'go',
  golang: 'go',
  rust: 'rust',
  python: 'python',
  typescript: 'js',
  javascript: 'js',
  ts: 'js',
  js: 'js',
  node: 'js',
  nodejs: 'js',
  java: 'java',
  kotlin: 'kotlin',
  // Platforms and frameworks name their language: an Android rule is about Kotlin and Java code, a
  // Rails rule about Ruby, a Django one about Python.
  android: 'kotlin',
  ios: 'swift',
  django: 'python',
  flask: 'python',
  fastapi: 'python',
  react: 'js',
  nextjs: 'js',
  vue: 'js',
  angular: 'js',
  svelte: 'js',
  spring: 'java',
  ruby: 'ruby',
  rails: 'ruby',
  swift: 'swift',
  csharp: 'csharp',
  dotnet: 'csharp',
  php: 'php',
  elixir: 'elixir',
  // So do its package managers (`poetry-deps` is about Python packages, not an `npm install`),
  // test frameworks, linters and job libraries (`pytest-style` is about Python tests).
  poetry: 'python',
  pip: 'python',
  pipenv: 'python',
  uv: 'python',
  conda: 'python',
  npm: 'js',
  pnpm: 'js',
  yarn: 'js',
  cargo: 'rust',
  bundler: 'ruby',
  gem: 'ruby',
  gems: 'ruby',
  mix: 'elixir',
  composer: 'php',
  gradle: 'jvm',
  maven: 'jvm',
  nuget: 'csharp',
  pytest: 'python',
  unittest: 'python',
  ruff: 'python',
  flake8: 'python',
  pylint: 'python',
  rq: 'python',
  jest: 'js',
  vitest: 'js',
  mocha: 'js',
  eslint: 'js',
  stylelint: 'js',
  bullmq: 'js',
  rspec: 'ruby',
  minitest: 'ruby',
  rubocop: 'ruby',
  exunit: 'elixir',
  credo: 'elixir',
  oban: 'elixir',
  junit: 'java',
  junit4: 'java',
  junit5: 'java',
  testng: 'java',
  kotest: 'kotlin',
  ktlint: 'kotlin',
  detekt: 'kotlin',
  xunit: 'csharp',
  nunit: 'csharp',
  hangfire: 'csharp',
  phpunit: 'php',
  testify: 'go',
  golangci: 'go',
  clippy: 'rust',
  swiftlint: 'swift',
};

/**
 * A test file by its path: a tests folder, or a test file's name in the common languages' conventions.
 * Only a file in a language: `docs/specs/checkout.md` is a design, `api/specs/openapi.yaml` an API,
 * and `testdata/` holds what tests read, not tests.
 */
const TEST_PATH_RE =
  /(?:^|\/)(?:tests?|__tests__|specs?|testkit)\/|_test\.(?:go|py|exs)$|(?:^|\/)test_[^/]*\.py$|\.(?:test|spec)\.[cm]?[jt]sx?$|Tests?\.(?:java|kt|cs)$|_spec\.rb$/;
/**
 * Test code by what it writes or the lines around it: a Rust test module or attribute, a Go or Python
 * test function, a JS test block (not a regular expression's `.test('…')`).
 */
const TEST_CODE_RE =
  /#\[(?:cfg\(test\)|test|tokio::test)\]|\bmod tests\b|\bfunc Test[A-Z_]\w*\(|\bdef test_\w+\(|(?<![.\w])(?:describe|it|test)\(\s*['"`]/;

/** Places that are a kind of work by themselves. */
const PLACE_KINDS: ReadonlyArray<[RegExp, string]> = [
  [/(?:^|\/)(?:migrations?|migrate|alembic\/versions)\//, 'migration'],
  [/(?:^|\/)\.github\/workflows\/|(?:^|\/)\.gitlab-ci\.ya?ml$|(?:^|\/)Jenkinsfile$|(?:^|\/)\.circleci\//, 'ci'],
  [/\.proto$/, 'proto'],
  [/(?:^|\/)benches\/|_bench(?:mark)?s?(?:_test)?\.\w+$/, 'benchmark'],
];

const suffixOf = (path: string): string => /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';

/** A Gradle dependency line (`implementation("io.coil-kt:coil-svg:2.6.0")`, `api(libs.x)`) or a catalog library (`coil = { module = "…" }`). */
const GRADLE_DEP_RE =
  /\b(?:implementation|api|testImplementation|androidTestImplementation|kapt|ksp|compileOnly|runtimeOnly)\s*\(|\bmodule\s*=\s*"/;

/** The kinds of work a call does, its languages, and whether it is inside tests (see the module comment). */
export function callWork(action: ToolAction, paths: readonly string[]): CallWork {
  const kinds = new Set<string>();
  const languages = new Set<string>();
  let inTests = false;
  if (action.kind === 'run') {
    for (const c of action.commands) {
      runKinds(c, kinds);
      const lang = LANG_BY_PROGRAM[program(c)];
      if (lang) languages.add(lang);
    }
    inTests = kinds.has('test');
  } else if (action.kind === 'edit') {
    const added = addedLines(action.text, action.before);
    // A manifest edit that adds a package is read as the command that adds it (manifests.ts); a
    // Gradle build file's dependency line, or a version catalog's library entry, adds one too.
    for (const c of action.commands) runKinds(c, kinds);
    if (paths.some((p) => /\.gradle(?:\.kts)?$|(?:^|\/)libs\.versions\.toml$/.test(p)) && GRADLE_DEP_RE.test(added))
      kinds.add('dependency');
    // The project's own version replaced in its manifest: the rules on who bumps it and how (version-work.ts).
    if (editsOwnVersion(paths, added, action.before, action.context)) kinds.add('version');
    for (const p of paths) {
      const lang = LANG_BY_SUFFIX[suffixOf(p)];
      if (lang) languages.add(lang);
      for (const [re, kind] of PLACE_KINDS) if (re.test(p)) kinds.add(kind);
    }
    inTests =
      paths.some((p) => TEST_PATH_RE.test(p) && LANG_BY_SUFFIX[suffixOf(p)] !== undefined) ||
      TEST_CODE_RE.test(`${action.context}\n${action.before}\n${added}`);
    if (inTests) kinds.add('test');
    // What the code written does: only for a file in a language (a README that quotes `err != nil` writes no code).
    if (languages.size > 0) for (const k of codeKinds(action, added, languages, inTests)) kinds.add(k);
  }
  // Reading, printing or writing a file of secrets, whatever else the call does (secret-files.ts).
  if (handlesSecrets(paths, action.commands)) kinds.add('secret');
  return { runs: action.kind === 'run', kinds, languages, inTests };
}

/** What a rule's name says of the work it is about: its kinds and the languages it names. */
export interface NamedWork {
  kinds: Set<string>;
  languages: Set<string>;
  /** Its name says it is about running the work ("Rust tests run with nextest"): writing a test is not that. */
  runOnly: boolean;
  /** The rule leaves tests out ("no unwrap() in non-test Rust code", "tests are exempt"). */
  notInTests: boolean;
}

/**
 * A summary that speaks of running tests, and one that speaks of writing them, in any tense ("write
 * tests", "tests you have written", "the tests I added", "tests are table-driven").
 */
const RUNS_TESTS_RE = /\b(?:run|runs|running)\s+(?:the\s+|all\s+|our\s+)?(?:\w+\s+)?tests?\b/i;
const WRITES_TESTS_RE =
  /\b(?:writ(?:e|es|ing|ten)|wrote|add(?:s|ed|ing)?|extend(?:s|ed|ing)?|fix(?:es|ed|ing)?|new)\b[^.;]{0,30}\btests?\b|\btests?\s+(?:are|use|should|must|(?:(?:I|you|we|they)\s+)?(?:wrote|written|added|extended|fixed))\b/i;

/** Words that leave tests out of a rule. */
const NOT_IN_TESTS_RE =
  /\bnon-tests?\b|\boutside (?:of )?(?:the )?(?:tests?|test code)\b|\bexcept (?:in |for )?tests?\b|\b(?:in )?tests? (?:is|are) (?:fine|exempt|allowed|ok)\b/i;

/**
 * A work word that names another thing with the word after it: an error budget or error rate is a
 * service's, a test account, environment or device a place to test in, log retention where logs are
 * kept. A memory named for one (`error-budget-policy`, `staging-test-accounts`) is not about writing
 * error handling, tests or log lines, which a session does dozens of times.
 */
const OTHER_THING_RE =
  /\berrors? (?:budgets?|rates?|pages?|dashboards?|alerts?|alerting|tracking|tracker|reports?|reporting)\b|\btests? (?:env|envs|environments?|servers?|clusters?|accounts?|users?|credentials?|creds|machines?|hosts?|vms?|tenants?|cards?|devices?|phones?|emulators?|data)\b|\blogs? (?:retention|storage|shipping|buckets?|dashboards?|search|viewer|access)\b|\bmetrics? (?:dashboards?|retention|storage)\b/g;

/** The work a rule note is named for, by the whole words of its name (with `tools`, a memory's: workOf); empty kinds for any other name. */
export function namedWork(name: string, text: string, summary = '', tools = false): NamedWork {
  // "on-call" is one word: its "call" is no remote procedure call ("Runbooks and on-call").
  const words = nameWords(
    name
      .toLowerCase()
      .replace(/\bon[-_ ]call\b/g, 'oncall')
      .replace(/[-_]+/g, ' ')
      .replace(OTHER_THING_RE, ' '),
  );
  const languages = new Set([...words].map((w) => LANG_BY_NAME_WORD[w]).filter((l): l is string => Boolean(l)));
  // About running the work: its name says so, or its summary (description, How to apply) speaks of
  // running tests and never of writing them ("Run tests through turbo…", "Every time I run tests").
  const runOnly =
    ['run', 'runs', 'running', 'runner'].some((w) => words.has(w)) || (RUNS_TESTS_RE.test(summary) && !WRITES_TESTS_RE.test(summary));
  return { kinds: workOf(words, tools), languages, runOnly, notInTests: NOT_IN_TESTS_RE.test(text) };
}

/** The kinds of work a call does that a rule is named for: none when the languages disagree or the call is in tests the rule leaves out. */
export function sharedWork(call: CallWork, rule: NamedWork): string[] {
  if (rule.kinds.size === 0 || (rule.runOnly && !call.runs)) return [];
  const called = new Set([...call.languages].map(family));
  if (rule.languages.size > 0 && ![...rule.languages].some((l) => called.has(family(l)))) return [];
  return [...rule.kinds].filter((k) => call.kinds.has(k) && !(rule.notInTests && call.inTests && k !== 'test'));
}
