/**
 * The kinds of work a shell command does (call-work.ts): tests, benchmarks, lint, migrations,
 * protobuf generation, adding a package, filing an issue, changing production. Pure.
 */
import { changesSomething, program } from './looking.js';
import { bumpsVersion } from './version-work.js';

/** Runs of a test runner: the program and its first word (`go test`, `cargo nextest`, `npm test`, `just test-go`). */
const TEST_RUNS = new Set([
  'go test',
  'cargo test',
  'cargo nextest',
  'python pytest',
  'npm test',
  'pnpm test',
  'yarn test',
  'bun test',
  'mvn test',
]);
const TEST_PROGRAMS = new Set(['pytest', 'jest', 'vitest', 'rspec']);
/** Task runners whose test tasks start with `test` (`just test-go`, `make test`, `npm run test:unit`). */
const TASK_RUNNERS = new Set(['just', 'make', 'task']);

/** Package managers' commands that add a package (a manifest edit is read as one: manifests.ts). */
const ADDS_PACKAGE = new Set([
  'npm install',
  'pnpm install',
  'yarn install',
  'pnpm add',
  'yarn add',
  'bun add',
  'cargo add',
  'bundle add',
  'gem install',
  'uv add',
  'poetry add',
  'pipenv install',
  'composer require',
  'dotnet add',
  'pip install',
  'go get',
]);

/**
 * Whether a package manager's arguments name a package: a plain word after the subcommand that is
 * not a file (`-r requirements.txt`, `package.json`), the project itself (`pip install .[dev]`) or an
 * option's value. `npm install` alone
 * installs what the lockfile holds; `npm install zod` adds zod.
 */
function namesPackage(args: readonly string[]): boolean {
  const rest = args.slice(args.findIndex((a) => !a.startsWith('-')) + 1);
  const optionValue = /^-(?:r|c|e)$|^--(?:requirement|constraint|editable|filter|prefix|dir)$/;
  return rest.some(
    (a, k) =>
      !a.startsWith('-') &&
      !optionValue.test(rest[k - 1] ?? '') &&
      !/\.(?:txt|toml|lock|json|cfg|in)$|^\.{0,2}\/|^\.{1,2}(?:\[[^\]]*\])?$/.test(a),
  );
}

/** The kinds of work a shell command does (tests, benchmarks, lint, migrations, protobuf generation). */
export function runKinds(words: readonly string[], out: Set<string>): void {
  const p = program(words);
  const args = words.slice(1).map((w) => w.toLowerCase());
  const first = args.find((w) => !w.startsWith('-')) ?? '';
  const run = `${p} ${first}`;
  const script =
    p === 'npm' || p === 'pnpm' || p === 'yarn' ? (first === 'run' ? (args.filter((w) => !w.startsWith('-'))[1] ?? '') : first) : '';
  const task = TASK_RUNNERS.has(p) ? first : script;
  if (args.some((w) => w.startsWith('-bench')) || p === 'hyperfine' || run === 'cargo bench' || task.startsWith('bench'))
    out.add('benchmark');
  else if (TEST_RUNS.has(run) || TEST_PROGRAMS.has(p) || (p === 'python' && args.includes('pytest')) || task.startsWith('test'))
    out.add('test');
  if (/^(?:golangci-lint|eslint|ruff|flake8|pylint|clippy)$/.test(p) || run === 'cargo clippy' || task.startsWith('lint')) out.add('lint');
  if (p === 'goose' || run === 'alembic upgrade' || run === 'alembic revision' || task.includes('migrate')) out.add('migration');
  if (run === 'buf generate' || p === 'protoc') out.add('proto');
  if (ADDS_PACKAGE.has(run) && namesPackage(args)) out.add('dependency');
  if (bumpsVersion(words)) out.add('version');
  // Filing an issue in a tracker (`gh issue create`, `jira issue create`): where the team keeps them is the rule.
  if (TRACKER_PROGRAMS.has(p) && /^issues?$/.test(first) && args.some((w) => w === 'create' || w === 'new')) out.add('ticket');
  // Shipping a release: a `deploy` subcommand (`fly deploy`, `kamal deploy`, `gcloud app deploy`), or
  // rolling a service to new code (`kubectl rollout`/`set image`, `helm upgrade`, `aws ecs update-service`).
  // (`deploy` as the subcommand or the one after it: `kubectl get deploy x` names a resource.)
  const plain = args.filter((w) => !w.startsWith('-'));
  const deploys = plain[0] === 'deploy' || (plain[1] === 'deploy' && !LOOKS_AT.has(plain[0]!));
  if (deploys || ROLLS_OUT.some(([a, b]) => args.includes(a) && args.includes(b))) out.add('deploy');
  // A command against production (`redis-cli -u "$PROD_REDIS_URL" DEL …`, `-X brokers=…prod-eu1…`): the
  // team's runbook is the way to act there. Only a command that changes something: `kubectl get` or
  // `describe` against prod is a diagnosis (no looking command gets work evidence at all, match.ts).
  // A word naming it, not prose that mentions it (`git commit -m "fix prod bug"`), and not version
  // control, which changes the repository, not production (`git push origin prod`).
  if (!VCS.has(p) && words.slice(1).some((w) => !/\s/.test(w) && PROD_RE.test(w)) && changesSomething(words)) out.add('runbook');
}

/** Programs that file issues in a tracker. */
const TRACKER_PROGRAMS = new Set(['gh', 'glab', 'hub', 'jira', 'linear', 'tea']);
/** A word of a command that names production: a `PROD_` variable, a `prod` or `production` host, context or part of a name. */
/** Word pairs of a run that rolls a service to new code. */
const ROLLS_OUT: ReadonlyArray<[string, string]> = [
  ['rollout', 'restart'],
  ['rollout', 'undo'],
  ['set', 'image'],
  ['upgrade', '--install'],
  ['ecs', 'update-service'],
  ['lambda', 'update-function-code'],
];

/** Subcommands that look at a resource named after them (`get deploy`, `describe deploy`). */
const LOOKS_AT = new Set(['get', 'describe', 'logs', 'delete', 'edit', 'list', 'show', 'status']);

/** Version control programs. */
const VCS = new Set(['git', 'hg', 'jj', 'svn']);
const PROD_RE = /(?:^|[^A-Za-z])(?:prod|PROD|production|PRODUCTION)(?:[^A-Za-z]|$)/;
