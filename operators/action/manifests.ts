/**
 * An edit that adds a dependency to a package manifest by hand is the same step as the command that
 * adds it: a `indicatif = "0.17"` line in `Cargo.toml` is `cargo add indicatif`, a `"zod": "^3"`
 * line in `package.json` is `npm install zod`. A note about adding dependencies names the commands
 * ("don't `cargo add` without asking", "use pnpm, never npm"), so the edit is read as those commands
 * too (operators/action/match.ts matches them like a run's). Pure.
 */

/** Dependencies read from one edit: a manifest rewritten whole must not turn into a thousand commands. */
const MAX_DEPENDENCIES = 20;

/** A package name as manifests write it (`serde`, `@scope/pkg`, `github.com/twmb/franz-go`). */
const NAME = String.raw`(@?[A-Za-z0-9][\w.\-/@]{0,100})`;

/** A version or source a dependency line gives as a string (`"0.17"`, `"^3.24.1"`, `"workspace:*"`). */
const VERSION = String.raw`(?:"[~^<>=*\d]|"(?:workspace|npm|file|link|git\+|github|latest|next)[:\w])`;
/**
 * Or as a TOML inline table of a dependency's own keys (`{ version = "1" }`, `{ path = "../x" }`): a
 * table of other keys is a setting (`pedantic = { level = "warn" }` under `[lints.clippy]`). A
 * package.json dependency is always a string: an object there is a section (`"scripts": {`).
 */
const TABLE = String.raw`\{\s*(?:version|git|path|workspace|registry|branch|tag|rev|package|features|optional|default-features|url|markers|extras|python|develop)\s*=`;

interface Manifest {
  /** File names (the path's last part) this reading applies to. */
  file: RegExp;
  /** One added line → the dependency it adds, or null. */
  dependency: (line: string) => string | null;
  /** The commands that add a dependency in this ecosystem, without the package. */
  adds: string[][];
}

/** Keys of a manifest's own fields, never a dependency's name (`"version": "1.2.0"`). */
const OWN_KEYS = new Set([
  'name',
  'version',
  'edition',
  'rust-version',
  'description',
  'license',
  'node',
  'npm',
  'pnpm',
  'yarn',
  'main',
  'module',
  'types',
  'packagemanager',
  'python',
  'requires-python',
  'resolver',
  'workspace',
  'path',
]);

const keyed =
  (re: RegExp) =>
  (line: string): string | null => {
    const m = re.exec(line);
    // A key that ends in "version" is a setting (`minversion`, `python_version` of `[tool.mypy]`).
    return m && !OWN_KEYS.has(m[1]!.toLowerCase()) && !/version$/i.test(m[1]!) ? m[1]! : null;
  };

const MANIFESTS: Manifest[] = [
  {
    file: /^Cargo\.toml$/,
    dependency: keyed(new RegExp(String.raw`^\s*([A-Za-z0-9_-]{1,64})\s*=\s*(?:${VERSION}|${TABLE})`)),
    adds: [['cargo', 'add']],
  },
  {
    // `require github.com/x/y v1.2.3`, or the module alone on its line inside `require ( ... )`; a
    // line of a `replace` block (`x v1 => y v2`) or of an `exclude` block adds nothing.
    file: /^go\.mod$/,
    dependency: (line) =>
      line.includes('=>') ? null : (/^\s*(?:require\s+)?([a-z0-9][\w.-]*\.[a-z]{2,}\/[\w.\-/]+)\s+v\d/.exec(line)?.[1] ?? null),
    adds: [['go', 'get']],
  },
  {
    file: /^package\.json$/,
    dependency: keyed(new RegExp(String.raw`^\s*"${NAME}"\s*:\s*${VERSION}`)),
    adds: [
      ['npm', 'install'],
      ['pnpm', 'add'],
      ['yarn', 'add'],
    ],
  },
  {
    // `requests==2.31`, `numpy>=1.26`, `rich` alone on its line. Each run of spaces belongs to one
    // optional part: three `\s*` side by side backtrack cubically on a hostile line of spaces.
    file: /^requirements[\w.-]*\.(?:txt|in)$/,
    dependency: (line) => /^\s*([A-Za-z0-9][\w.-]{0,80})(?:\s*\[[\w,\s-]*\])?(?:\s*[=<>~!]=?[^#]*)?(?:\s*#.*)?\s*$/.exec(line)?.[1] ?? null,
    adds: [['pip', 'install']],
  },
  {
    // PEP 621 (`"httpx>=0.27",` in a list) and Poetry (`httpx = "^0.27"`). A list item needs its
    // version: a bare word in a list is as often a tool's setting (`"tests",` of pytest's
    // `testpaths`, `"E",` of ruff's `select`).
    file: /^pyproject\.toml$/,
    dependency: (line) =>
      /^\s*"([A-Za-z0-9][\w.-]{0,80})(?:\s*\[[\w,\s-]*\])?\s*[=<>~!]=?[^"]*"\s*(?:,\s*)?$/.exec(line)?.[1] ??
      keyed(new RegExp(String.raw`^\s*([A-Za-z0-9][\w.-]{0,80})\s*=\s*(?:${VERSION}|${TABLE})`))(line),
    adds: [
      ['pip', 'install'],
      ['poetry', 'add'],
      ['uv', 'add'],
    ],
  },
  {
    file: /^Gemfile$/,
    dependency: (line) => /^\s*gem\s+["']([\w.-]{1,80})["']/.exec(line)?.[1] ?? null,
    adds: [['bundle', 'add']],
  },
];

/**
 * The commands an edit of a package manifest stands for: each dependency its added lines add, with
 * each command of the manifest's ecosystem that adds one. Empty for any other file.
 */
export function manifestCommands(path: string, added: string): string[][] {
  const file = path.split(/[\\/]/).pop() ?? '';
  const manifest = MANIFESTS.find((m) => m.file.test(file));
  if (!manifest) return [];
  const deps = [
    ...new Set(
      added
        .split('\n')
        .map((l) => manifest.dependency(l))
        .filter((d): d is string => d !== null),
    ),
  ].slice(0, MAX_DEPENDENCIES);
  return deps.flatMap((d) => manifest.adds.map((cmd) => [...cmd, d]));
}
