/**
 * A tool call that changes a project's own version: an edit of the version in its manifest
 * (`"version": "1.10.3"` → `"1.11.0"` in package.json or tauri.conf.json, `version = …` in
 * Cargo.toml or pyproject.toml, `versionName` in a Gradle build, `MARKETING_VERSION` in an Xcode
 * project), or a command that bumps it (`npm version minor`, `cargo set-version`, `poetry version
 * patch`, `bump2version`). Teams write rules about who bumps it and how (a release tool does it, all
 * manifests together); the call rarely shares a word with such a rule but `version`. Pure.
 */
import { program } from './runners.js';

/**
 * The files that hold a project's own version: JS and Tauri manifests, Cargo, Python, Dart, Helm,
 * Elixir, .NET, Gradle and Xcode projects, an extension's manifest, a release tool's manifest. Not a
 * lockfile, which holds every dependency's version.
 */
const MANIFEST_RE =
  /(?:^|\/)(?:package\.json|tauri(?:\.[\w-]+)?\.conf\.json|app\.json|manifest\.json|composer\.json|\.release-please-manifest\.json|Cargo\.toml|pyproject\.toml|setup\.cfg|setup\.py|pubspec\.yaml|Chart\.yaml|mix\.exs|[\w.-]+\.csproj|Directory\.Build\.props|build\.gradle(?:\.kts)?|project\.pbxproj|version\.rb|__version__\.py|_version\.py|[\w.-]+\.gemspec)$/;

/**
 * A line that sets the version, key and value (the value captured), at the start of a line (a
 * dependency's version sits inside its own entry: `serde = { version = "1" }`, `"react": "^18.2.0"`).
 * One line at a time, no multi-line flag: a text of carriage returns is no quadratic search.
 */
const VERSION_LINE_RE =
  /^[ \t]*(?:"version"\s*:\s*"|version\s*=\s*["']?|(?:version|appVersion)\s*:\s*["']?|version(?:Name|Code)\s*(?:=\s*)?["']?|(?:MARKETING_VERSION|CURRENT_PROJECT_VERSION)\s*=\s*|<(?:Version|VersionPrefix|AssemblyVersion|FileVersion)>|(?:__version__|VERSION)\s*=\s*["']|\w+\.version\s*=\s*["'])(v?\d[\w.+-]*)/;

/** A vendored copy of another project (its manifest holds that project's version). */
const VENDORED_RE = /(?:^|\/)(?:node_modules|vendor|third_party|\.venv|site-packages)\//;

/** What puts a version line inside a dependency's entry: a dependencies table, a chart's dependency, a package reference. */
const DEPENDENCY_RE = /^[ \t]*\[[\w.-]*dependencies[\w.-]*\]|^[ \t]*-[ \t]+name:|<PackageReference\b|"dependencies"\s*:/m;

/**
 * Whether an edit replaces the version line of a manifest with another: the line it drops and the one
 * it writes both set the version. Writing a new manifest is no bump; nor is an edit that only moves
 * the line.
 */
export function editsOwnVersion(paths: readonly string[], added: string, removed: string, context = ''): boolean {
  if (!paths.some((p) => MANIFEST_RE.test(p) && !VENDORED_RE.test(p))) return false;
  // A dependency's own table or entry around the line (`[dependencies.serde]`, a chart's `- name:`, a
  // `<PackageReference>`): the version is the dependency's.
  if (DEPENDENCY_RE.test(`${context}\n${removed}\n${added}`)) return false;
  const values = (text: string): string[] => text.split(/\r?\n/).flatMap((l) => VERSION_LINE_RE.exec(l)?.slice(1, 2) ?? []);
  const [now, was] = [values(added), values(removed)];
  return now.length > 0 && was.length > 0 && now.some((v) => !was.includes(v));
}

/** Subcommands that bump a project's version, by program (`npm version minor`, `poetry version patch`). */
const BUMPS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(['version']),
  pnpm: new Set(['version']),
  yarn: new Set(['version']),
  poetry: new Set(['version']),
  hatch: new Set(['version']),
  cargo: new Set(['set-version']),
  agvtool: new Set(['new-version', 'new-marketing-version', 'next-version', 'bump']),
};
/** Programs that only bump versions. */
const BUMPERS = new Set(['bump2version', 'bumpversion', 'bumpver', 'bump-my-version']);

/**
 * Whether a command bumps the project's version: a bumping subcommand with what to bump to (`npm
 * version` alone prints the versions, `poetry version` alone shows it), or a bumping program.
 */
export function bumpsVersion(words: readonly string[]): boolean {
  const p = program(words);
  if (BUMPERS.has(p)) return true;
  // A redirection (`2>&1`, `> v.txt`) is the shell's, not what to bump to.
  const plain = words.slice(1).filter((w, k, all) => !w.startsWith('-') && !/^\d*[<>&]/.test(w) && !/^\d*[<>]+&?$/.test(all[k - 1] ?? ''));
  const sub = (plain[0] ?? '').toLowerCase();
  if (!BUMPS[p]?.has(sub)) return false;
  return p === 'cargo' || p === 'agvtool' || plain.length > 1 || words.some((w) => /^--(?:new-version|major|minor|patch)/.test(w));
}
