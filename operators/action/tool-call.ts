/**
 * A harness's tool call read as an action: the shell commands it runs, the files it touches and the
 * text it writes. Pure. Claude Code and Codex send `tool_name` and `tool_input` (Bash `command`; Edit
 * `file_path`, `old_string`, `new_string`; Write `file_path`, `content`; MultiEdit `edits`; Read
 * `file_path`; Codex's `apply_patch` a patch in `command`); Copilot sends `toolName` and `toolArgs`
 * (an object or its JSON text).
 */

import { commandParts, literalHeredocs, nestedScripts } from './shell-split.js';
import { manifestCommands } from './manifests.js';
import { runsProgramAt } from './runners.js';
import { clientStatements, sqlCommands, sqlFileCommands } from './sql-files.js';

export type ActionKind = 'run' | 'edit' | 'read' | 'other';

export interface ToolAction {
  /** The tool's name as the harness gave it. */
  tool: string;
  kind: ActionKind;
  /**
   * Each simple command of a shell line as words, wrappers (sudo, env, npx, time, VAR=) left out;
   * for an edit of a shell script, the commands of the lines it writes (the script will run them).
   */
  commands: string[][];
  /**
   * The SQL statements it runs or writes, each as the words of a command (sql-files.ts): those a
   * database client is given (`psql -c '…'`), those an edit writes into a `.sql` file.
   */
  statements: string[][];
  /** Files the call reads or writes (as given; paths in a patch included). */
  paths: string[];
  /** What the call writes: the lines an edit adds or drops, a file's content, a patch's added lines. */
  text: string;
  /** What an edit replaces (the old lines it drops). */
  before: string;
  /** The unchanged lines an edit quotes around its change: where it is, not what it does. */
  context: string;
  /** The shell line as given (capped), for the scrubbed record of the call. */
  raw: string;
}

/** Characters of written text read (a 1 MB file write must not cost the hook its deadline). */
export const MAX_ACTION_TEXT = 8000;
/** Characters of a shell line read. */
const MAX_COMMAND = 4000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function objectOf(v: unknown): Record<string, unknown> {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v === 'string' && v.trim().startsWith('{')) {
    try {
      return objectOf(JSON.parse(v) as unknown);
    } catch {
      return {};
    }
  }
  return {};
}

/** Words a command runs under without being the command (`sudo npm i` runs npm). */
const WRAPPERS = new Set(['sudo', 'env', 'time', 'nohup', 'exec', 'command', 'nice', 'xargs', 'npx', 'bunx', 'pnpx', 'doas']);

/** Options of the wrappers above that take a value (`sudo -u app`, `nice -n 5`, `env -u VAR`). */
const WRAPPER_VALUE_FLAGS = new Set(['-u', '-g', '-n', '-C', '-h', '-p', '-D']);

/**
 * A shell running a script it is given (`bash -lc 'npm install zod'`, `sh -c "make test"`): the script.
 * Codex's shell tool runs its commands so, and names the call by the joined argv: the script is what
 * runs. A single quote inside it is written `'"'"'` (as a POSIX quoting tool joins it). Any other line
 * as it is.
 */
function shellScript(line: string): string {
  const m = /^\s*(?:\S*\/)?(?:ba|z|da|k)?sh\s+-[A-Za-z]*c[A-Za-z]*\s+(?:'((?:[^']|'"'"')*)'|"((?:[^"\\]|\\.)*)"|([^\s'"]+))\s*$/.exec(line);
  if (!m) return line;
  if (m[1] !== undefined) return m[1].replace(/'"'"'/g, "'");
  return m[2] !== undefined ? m[2].replace(/\\(["\\$`])/g, '$1') : m[3]!;
}

/**
 * An argv (`["bash", "-lc", "git commit -m \"x\""]`, as Codex may send a command) as the shell line
 * that runs it: a word with spaces, quotes or shell characters in single quotes, so the script a
 * shell is given stays one word (shellScript then reads it).
 */
function argvLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'"'"'`)}'`)).join(' ');
}

/**
 * A shell line split into simple commands (at `&&`, `||`, `;`, `|`, newlines and `$(`, outside
 * quotes: shell-split.ts), each as words with quotes removed; leading `VAR=value` assignments and wrappers are dropped, the
 * assignment kept as a word of its own (a setting like NODE_OPTIONS=... is part of the action).
 */
export function shellCommands(line: string, depth = 0): string[][] {
  const out: string[][] = [];
  for (const part of commandParts(literalHeredocs(shellScript(line.slice(0, MAX_COMMAND))))) {
    // A word may be quoted in part (`--format="value(name)"`): its quotes go, its text stays.
    const words = [...part.matchAll(/(?:"[^"]*"|'[^']*'|[^\s"'])+/g)]
      .map((m) => m[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'))
      .filter(Boolean);
    const lead: string[] = [];
    let i = 0;
    while (i < words.length && (WRAPPERS.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || /^-/.test(words[i]!))) {
      // A wrapper's own options (`sudo -u x`, `nice -n 5`) come before the command; an assignment is kept.
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) lead.push(words[i]!);
      i += WRAPPER_VALUE_FLAGS.has(words[i]!) ? 2 : 1;
    }
    // A wrapper with no command after it is the command (`env`, `sudo env` print the environment).
    const last = words.map((w) => WRAPPERS.has(w)).lastIndexOf(true);
    const rest = expandAliases(i >= words.length && lead.length === 0 && last >= 0 ? words.slice(last) : words.slice(i));
    if (rest.length > 0 || lead.length > 0) out.push([...rest, ...lead]);
    // What it runs elsewhere (`ssh host '…'`, `sh -c '…'`) is a command too, nested twice at most.
    if (depth < 2) for (const script of nestedScripts(rest)) out.push(...shellCommands(script, depth + 1));
    // What a package manager's runner runs is a command too (RUNS_PROGRAM).
    const inner = runsProgramAt(rest);
    if (inner > 0) out.push(expandAliases(rest.slice(inner)));
  }
  return out;
}

/** Short forms of subcommands, written out: `npm i zod` runs what a note calls `npm install`. */
const SUBCOMMAND_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  npm: {
    i: 'install',
    in: 'install',
    ins: 'install',
    add: 'install',
    isntall: 'install',
    rm: 'uninstall',
    un: 'uninstall',
    r: 'uninstall',
  },
  pnpm: { i: 'install', rm: 'remove', un: 'remove' },
  yarn: { rm: 'remove' },
  bun: { i: 'install', a: 'add', rm: 'remove' },
  pip: {},
  git: { co: 'checkout', ci: 'commit', br: 'branch', st: 'status' },
};

/** A program's version suffix (`python3.12`, `pip3`, `sqlite3`, `gcc-12` with its dash) after a name of three letters or more. */
const VERSION_SUFFIX = /^((?:.*\/)?[A-Za-z][A-Za-z_-]*?[A-Za-z]{2})[-_]?\d+(?:\.\d+)*$/;

/**
 * A program's name without its version (`python3.12` → `python`, `/usr/bin/pip3` → `/usr/bin/pip`,
 * `sqlite3` → `sqlite`): a learning about `python -m venv` or "SQLite" is about every version's
 * binary. Calls and notes are read through the same function, so both sides agree.
 */
export function versionless(program: string): string {
  return program.replace(VERSION_SUFFIX, '$1');
}

/** A command's words with its program's version dropped and its subcommand written out (`npm i` → `npm install`). */
export function expandAliases(given: readonly string[]): string[] {
  const words = given.length > 0 ? [versionless(given[0]!), ...given.slice(1)] : [];
  const program = (words[0] ?? '').split('/').pop() ?? '';
  const table = SUBCOMMAND_ALIASES[program];
  if (!table) return [...words];
  const at = words.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  if (at < 0) return [...words];
  const full = table[words[at]!];
  return full ? [...words.slice(0, at), full, ...words.slice(at + 1)] : [...words];
}

/** Paths, changed lines and quoted context of a Codex `apply_patch` body (`*** Update File: p`, `+line`, `-line`, ` line`). */
function patchParts(patch: string): { paths: string[]; text: string; before: string; context: string } {
  const paths: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  const kept: string[] = [];
  for (const l of patch.slice(0, MAX_ACTION_TEXT * 2).split('\n')) {
    const m = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(l) ?? /^\*\*\* Move to: (.+)$/.exec(l);
    if (m) paths.push(m[1]!.trim());
    else if (l.startsWith('+') && !l.startsWith('+++')) added.push(l.slice(1));
    else if (l.startsWith('-') && !l.startsWith('---')) removed.push(l.slice(1));
    else if (l.startsWith(' ')) kept.push(l.slice(1));
  }
  const c = changedLines([...removed, ...kept].join('\n'), [...added, ...kept].join('\n'));
  return { paths, text: c.text, before: c.before, context: c.context };
}

/**
 * What an edit changes and where: the lines it adds or drops (a renamed key or a removed flag is as
 * much the change as a new line), and the unchanged lines it quotes around them so the harness can
 * find the spot. Those say where the change is, not what it does: adding a consumer group beside one
 * a learning says is frozen does not touch the frozen one.
 */
export function changedLines(oldText: string, newText: string): { text: string; before: string; context: string } {
  const key = (l: string): string => l.trim();
  const olds = new Set(oldText.split('\n').map(key));
  const news = new Set(newText.split('\n').map(key));
  const added = newText.split('\n').filter((l) => key(l) && !olds.has(key(l)));
  const removed = oldText.split('\n').filter((l) => key(l) && !news.has(key(l)));
  const kept = newText.split('\n').filter((l) => key(l) && olds.has(key(l)));
  return { text: [...added, ...removed].join('\n'), before: removed.join('\n'), context: kept.join('\n') };
}

/** A shell script by its name (`deploy.sh`) or its first line (`#!/usr/bin/env zsh`). */
const SCRIPT_NAME = /\.(?:sh|bash|zsh|ksh)$/i;
const SHEBANG = /^#!\s*\S*(?:\/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b/;

/**
 * The commands an edit writes into a shell script: what the script will run, so a learning about a
 * command applies to writing it there as to running it. Comment lines are left out.
 */
export function scriptCommands(path: string, written: string, lines: string): string[][] {
  if (!SCRIPT_NAME.test(path) && !SHEBANG.test(written.trimStart())) return [];
  const code = lines
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n');
  return shellCommands(code);
}

/** The lines an edit adds: what it changes, less what it drops. */
export function addedLines(text: string, before: string): string {
  const dropped = new Set(before.split('\n'));
  return text
    .split('\n')
    .filter((l) => !dropped.has(l))
    .join('\n')
    .slice(0, MAX_ACTION_TEXT);
}

const READ_TOOLS = new Set(['read', 'view', 'notebookread', 'glob', 'grep', 'ls', 'webfetch', 'websearch', 'read_file', 'list_dir']);
const RUN_TOOLS = new Set(['bash', 'shell', 'exec_command', 'local_shell', 'container.exec', 'run_in_terminal', 'powershell']);
const EDIT_TOOLS = new Set(['edit', 'write', 'multiedit', 'notebookedit', 'create', 'str_replace', 'apply_patch', 'insert', 'edit_file']);

/** The action of a hook payload, or null when it names no tool. */
export function readToolCall(input: Record<string, unknown>): ToolAction | null {
  const tool = str(input['tool_name']) || str(input['toolName']);
  if (!tool) return null;
  const args = objectOf(input['tool_input'] ?? input['toolArgs'] ?? input['tool_args']);
  const t = tool.toLowerCase();
  const path = str(args['file_path']) || str(args['path']) || str(args['notebook_path']) || str(args['filePath']);
  const command = Array.isArray(args['command']) ? argvLine(args['command'].map(str)) : str(args['command']) || str(args['cmd']);
  const action: ToolAction = {
    tool,
    kind: 'other',
    commands: [],
    statements: [],
    paths: path ? [path] : [],
    text: '',
    before: '',
    context: '',
    raw: command.slice(0, MAX_COMMAND),
  };
  if (t === 'apply_patch' || command.includes('*** Begin Patch')) {
    const p = patchParts(command || str(args['input']) || str(args['patch']));
    return { ...action, kind: 'edit', paths: [...action.paths, ...p.paths], text: p.text, before: p.before, context: p.context };
  }
  if (RUN_TOOLS.has(t) || (command && !EDIT_TOOLS.has(t) && !READ_TOOLS.has(t))) {
    const commands = shellCommands(command);
    return { ...action, kind: 'run', commands, statements: commands.flatMap(clientStatements).flatMap(sqlCommands) };
  }
  if (EDIT_TOOLS.has(t)) {
    const edits = Array.isArray(args['edits']) ? (args['edits'] as unknown[]).map(objectOf) : [args];
    const changes = edits.map((e) =>
      changedLines(
        str(e['old_string']) || str(e['old_str']),
        str(e['new_string']) || str(e['content']) || str(e['new_str']) || str(e['file_text']),
      ),
    );
    const text = changes.map((c) => c.text).join('\n');
    const written = str(edits[0]?.['new_string']) || str(edits[0]?.['content']) || str(edits[0]?.['file_text']);
    const before = changes.map((c) => c.before).join('\n');
    const context = changes.map((c) => c.context).join('\n');
    return {
      ...action,
      kind: 'edit',
      commands: [...scriptCommands(path, written, addedLines(text, before)), ...manifestCommands(path, addedLines(text, before))],
      statements: sqlFileCommands(path, addedLines(text, before)),
      text: text.slice(0, MAX_ACTION_TEXT),
      before: before.slice(0, MAX_ACTION_TEXT),
      context: context.slice(0, MAX_ACTION_TEXT),
    };
  }
  if (READ_TOOLS.has(t)) return { ...action, kind: 'read' };
  return action;
}

/** The call in one line for logs and traces (before scrubbing): the command, or the tool and its paths. */
export function actionSummary(a: ToolAction, maxChars = 300): string {
  const body = a.kind === 'run' ? a.raw : a.paths.join(' ');
  return `${a.tool}: ${body}`.slice(0, maxChars);
}

/**
 * A path with the home-folder project prefix taken off (`/home/dev/shop/src/a.ts` → `src/a.ts`, and
 * so for `/Users/...` and a path under `cwd`): the project's own name is where it lives, not what
 * the call is about.
 */
export function projectPath(p: string, cwd: string): string {
  const c = cwd.replace(/\/+$/, '');
  if (c && p.startsWith(`${c}/`)) return p.slice(c.length + 1);
  const m = /^\/(?:home|Users)\/[^/]+\/[^/]+\/(.+)$/.exec(p);
  return m ? m[1]! : p.replace(/^\/+/, '');
}
