/**
 * Calls that only look, and words that say nothing about a topic. Pure.
 *
 * A tool call that lists, prints, searches or reports (`ls`, `git status`, `cat x | wc -l`, `npm
 * outdated`, `terraform plan`, reading a README) changes nothing a learning warns about, so the
 * action hook gives nothing for it (unless a note's `applies_when` names it).
 */
import { stemOf } from '../../core/stems.js';
import { program, runsProgramAt } from './runners.js';
import { bumpsVersion } from './version-work.js';

const words = (s: string): ReadonlySet<string> => new Set(s.trim().split(/\s+/));

/** Programs whose runs only look. */
const LOOKING = words(`ls ll cat head tail less more wc pwd echo printf cd find fd rg grep ag tree stat file du df true sort
  uniq cut awk date whoami clear exit bat diff realpath`);

/** Programs that only change the folder the next command runs in: their words name a place, not a topic. */
export const MOVES = words('cd pushd popd');

/** Subcommands of everyday tools that only look. */
const LOOKING_SUB: Readonly<Record<string, ReadonlySet<string>>> = {
  git: words('status log diff show branch remote blame rev-parse describe shortlog ls-files grep'),
};

/**
 * Subcommands that, in most tools, only report (`git worktree list`, `alembic current`, `npm
 * outdated`, `fly status`, `terraform plan`, `buf lint`, `pnpm why`): a learning about what the tool changes is
 * not about them. Diagnosis commands (`kubectl describe`, `get`) are not here: a learning often
 * answers what they are run to find.
 */
const REPORTING = words(`list ls status show current outdated plan lint check diff log logs tail view info version --version -v
  help --help whoami history heads validate fmt format audit doctor why search explain`);

/**
 * Reporting words that never name what a command acts on, so they report wherever they end a tool's
 * subcommands, after a word that changes something too: `prisma migrate status`, `sqlx migrate info`,
 * `rails db:migrate:status`. (`terraform apply plan` applies a plan file; no file is called `status`.)
 */
const STATUS = words('status info list current history');

/**
 * Subcommands that change something: a reporting word after one of them is what it acts on (`terraform
 * apply plan` applies a saved plan file, `pip install check` installs a package), not a report.
 */
const ACTING = words(`apply install add delete remove uninstall push deploy upgrade create destroy drop reset rm set update
  import init migrate publish release rollback scale patch replace edit commit merge rebase tag kill stop restart start exec`);

/** Verbs of data stores and brokers that change something, besides ACTING (`redis-cli DEL`, `rpk topic alter-config`). */
const CHANGING = words('del alter truncate flushall flushdb expire rename purge evict drain cordon');

/** Whether a command names a verb that changes something (`docker restart`, `DEL key`, `alter-config`), in any word after its program. */
export function changesSomething(command: readonly string[]): boolean {
  return command.slice(1).some((w) =>
    w
      .toLowerCase()
      .split('-')
      .some((part) => ACTING.has(part) || CHANGING.has(part)),
  );
}

// The program a command runs lives with the runners (version-work.ts reads it too, and this module reads that one).
export { program } from './runners.js';

/** Whether every command of a shell line only looks (`ls`, `git status --short`, `cat x | wc -l`, `npm outdated`). */
export function onlyLooks(commands: readonly string[][]): boolean {
  if (commands.length === 0) return true;
  return commands.every((c) => {
    // `pnpm --filter @app/worker exec wrangler tail` looks when what it runs does (read as a command of its own too).
    const inner = runsProgramAt(c);
    if (inner > 0) return onlyLooks([c.slice(inner)]);
    const p = program(c);
    if (LOOKING.has(p)) return true;
    const args = c.slice(1).filter((w) => !w.startsWith('-') || w === '--version' || w === '--help');
    if (LOOKING_SUB[p]?.has((args[0] ?? '').toLowerCase()) === true) return true;
    // `git worktree list`, `npm outdated`: the first or second word after the program reports; the
    // second only after a word that changes nothing (`terraform apply plan` applies a plan file).
    const [first = '', second = ''] = args.map((w) => w.toLowerCase());
    // `npm version minor` bumps the version: `version` reports only without what to bump to.
    if (bumpsVersion(c)) return false;
    if (REPORTING.has(first) || (!ACTING.has(first) && REPORTING.has(second))) return true;
    // `git tag --list 'v2026.*'`, a bare `git tag`: the tags listed, none made, none deleted (`git tag -d`
    // of a list `$(git tag -l …)` or `xargs` gives it).
    if (p === 'git' && first === 'tag') return c.length === 2 || (c.some((w) => w === '-l' || w === '--list') && !c.some(deletesTag));
    return STATUS.has(lastSubcommand(args));
  });
}

/** An option of `git tag` that deletes or moves a tag (`-d`, `--delete`, `-f`, `--force`, `-df`). */
const deletesTag = (w: string): boolean => /^(?:--delete|--force|-[a-zA-Z]*[df][a-zA-Z]*)$/.test(w);

/**
 * The last of a command's subcommands: the plain words that open its arguments (at most three), and
 * of a task written with colons (`db:migrate:status`) its last part; '' when it is a plain word
 * after one that is no group of subcommands that acts (ACTING).
 */
function lastSubcommand(args: readonly string[]): string {
  let last = '';
  let task = false;
  let group = '';
  for (const w of args.slice(0, 3)) {
    if (!/^[a-z][a-z0-9:-]*$/i.test(w)) break;
    [group, last, task] = [last, w.toLowerCase().split(':').pop() ?? '', w.includes(':')];
  }
  // A task's part, or a subcommand under a group that acts (`migrate status`), not a name the command
  // acts on (`git push origin current`, `kubectl delete configmap status`).
  return task || ACTING.has(group) ? last : '';
}

/**
 * Words every piece of code or config is full of (keywords, file types, ubiquitous names), as stems.
 * They are rare in everyday English, so the English word counts would take them for topic words:
 * sharing `const`, `api` or `yaml` with a learning says nothing about it.
 */
export const CODE_WORDS: ReadonlySet<string> = new Set(
  [
    ...words(`const let var export import from return async await function def class self this new true false null none
  undefined if else elif for while try except catch finally throw raise string str int number bool boolean object list dict
  map set type interface public private static void print console log value key name id ids data result res req err error
  errors app apps api url uri http https json yaml yml toml py ts js tsx jsx mjs cjs md txt src lib test tests spec util utils
  index main server client config conf env dev prod run get add use opt arg args param params option options default
  version v1 v2 v3 module modules echo sh bash usr bin home tmp var etc local file files dir package func fn struct impl
  pub mut fmt`),
  ].map(stemOf),
);
