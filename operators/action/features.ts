/** A tool call as the action matcher reads it: its commands, files, code-like tokens and word stems. Pure. */
import { stemOf } from '../../core/stems.js';
import { compoundsOf, rawTokens, settingTokens, stemsOf, tokenWords } from './terms.js';
import { commandName } from './commands.js';
import { callVariables, editedTypes } from './names.js';
import { addedLines, projectPath, type ToolAction } from './tool-call.js';
import { constructsWritten } from './constructs.js';
import { MOVES, program } from './looking.js';
import { foldWord } from './patterns.js';
import { FORGE_PROSE_OPTIONS, PROSE_OPTIONS } from './shell-split.js';

export interface ActionFeatures {
  commands: string[][];
  /** The SQL statements it runs or writes as commands (ToolAction.statements), lower-cased: named statements only, not words. */
  statements: string[][];
  paths: string[];
  /** Code-like tokens of the call: each one's forms (`poolclass=nullpool`, `poolclass`, `nullpool`) and word stems. */
  compounds: Map<string, { forms: string[]; stems: string[]; near: boolean }>;
  stems: Set<string>;
  /**
   * Stems only where the change is holds: the call's file path, or the unchanged lines an edit quotes
   * around its change. They count less than what the call runs or writes.
   */
  nearOnly: Map<string, 'path' | 'near'>;
  /** Stems of the words that name what the call runs: its programs and their subcommands (`kubectl describe pod`). */
  commandStems: Set<string>;
  /** Stems of the project's own name (the last folder of its path): no word of what the call does. */
  projectStems: Set<string>;
  /** Environment variables the call uses or sets (`$PATH`, `${HOME}`, `export PATH=...`), as written. */
  variables: Set<string>;
  /** The types of the files an edit writes (`plist` for `com.x.plist`), by their stems. */
  fileTypes: Set<string>;
}

/**
 * Whether word `k` of a command is such a value, of more than one word (`-m "fix: bound batch size"`,
 * `--body="…"`): it says what the change is about in a person's words, not what the call does, so a
 * learning that shares a topic word with it is no more about this commit than about any other.
 */
function proseValue(c: readonly string[], k: number): boolean {
  const w = c[k]!;
  if (!/\s/.test(w.trim())) return false;
  const option = /^(--[a-z-]+)=/.exec(w)?.[1] ?? c[k - 1] ?? '';
  return PROSE_OPTIONS.includes(option) || (FORGE_PROSE_OPTIONS.includes(option) && /^(?:gh|glab)$/.test(program(c)));
}

/**
 * A host name as calls write it (`registry.halyard.internal`, `api.example.com`): a first label, then
 * labels ending in a top-level or in-house domain. Not file names: `.js`, `.sh`, `.md` end none.
 */
const HOST_RE =
  /(?<![\w.-])([a-z0-9][a-z0-9-]*)((?:\.[a-z0-9][a-z0-9-]*)*\.(?:internal|local|lan|corp|intra|intranet|com|net|org|io|dev|cloud|ai|app|co|us|eu|uk|de|fr|nl|info|biz|tech|xyz))(?![\w.-])/gi;

/**
 * Stems written only in the domain part of host names (`halyard`, `intern` of
 * `registry.halyard.internal`): the organisation's domain is in every host it names, so it says
 * which company the call is in, not what it does, like the project's own name. The host's first
 * label (`registry`, `bench-03`) still counts, and the whole name is matched as a token.
 */
function domainOnly(text: string): Set<string> {
  const domains: string[] = [];
  const rest = text.replace(HOST_RE, (_, first: string, domain: string) => {
    domains.push(domain.replace(/\./g, ' '));
    return first;
  });
  if (domains.length === 0) return new Set();
  const elsewhere = stemsOf(rest);
  return new Set([...stemsOf(domains.join(' '))].filter((s) => !elsewhere.has(s)));
}

type Compounds = ActionFeatures['compounds'];

/**
 * What the call writes beyond its tokens: each setting as one token (`origin=*`), and each module
 * construct its added lines write as the two words notes name it by (constructs.ts: `named-import`).
 */
function addWritten(a: ToolAction, compounds: Compounds): void {
  for (const kv of settingTokens(a.text)) if (!compounds.has(kv)) compounds.set(kv, { forms: [kv], stems: [], near: false });
  if (a.kind !== 'edit') return;
  for (const [x, y] of constructsWritten(addedLines(a.text, a.before)))
    compounds.set(`${x}-${y}`, { forms: [`${x}-${y}`], stems: [stemOf(x), stemOf(y)], near: false });
}

export function features(a: ToolAction, cwd: string): ActionFeatures {
  const paths = a.paths.map((p) => projectPath(p, cwd));
  const compounds = new Map<string, { forms: string[]; stems: string[]; near: boolean }>();
  const addForms = (tok: string, near: boolean): void => {
    const forms = compoundsOf(tok);
    const had = forms.length > 0 ? compounds.get(forms[0]!) : undefined;
    if (forms.length > 0 && (!had || (had.near && !near))) compounds.set(forms[0]!, { forms, stems: tokenWords(tok).map(stemOf), near });
  };
  const stems = new Set<string>();
  const commands = a.commands.map((c) => c.map(foldWord));
  for (const c of a.commands) {
    // `cd /home/dev/shop && ...`: the project's own folder says nothing about what the call does.
    if (MOVES.has(program(c))) continue;
    for (const w of c.filter((_, k) => !proseValue(c, k))) {
      addForms(w, false);
      for (const t of rawTokens(w)) for (const s of tokenWords(t)) stems.add(stemOf(s));
    }
  }
  for (const tok of rawTokens(a.text)) addForms(tok, false);
  addWritten(a, compounds);
  for (const s of stemsOf(a.text)) stems.add(s);
  const nearOnly = new Map<string, 'path' | 'near'>();
  for (const p of paths) {
    addForms(p.split('/').pop() ?? '', false);
    // The folders and the file's name, not its type (`.py`, `.yaml` say nothing about the topic).
    for (const s of stemsOf(p.replace(/\.[A-Za-z0-9]{1,6}$/, '').replace(/[/._-]+/g, ' '))) if (!stems.has(s)) nearOnly.set(s, 'path');
  }
  for (const tok of rawTokens(a.context)) addForms(tok, true);
  for (const s of stemsOf(a.context)) if (!stems.has(s) && !nearOnly.has(s)) nearOnly.set(s, 'near');
  for (const s of nearOnly.keys()) stems.add(s);
  // The project's own name (`com.cartwheel.common` in a project at /home/dev/cartwheel) is in every
  // file and command of it: it says where the call is, not what it does. Its last folder only, on
  // Windows too (`C:\Users\dev\shop` is shop, not users).
  const projectStems = stemsOf(
    (
      cwd
        .replace(/[\\/]+$/, '')
        .split(/[\\/]/)
        .pop() ?? ''
    ).replace(/[-_.]+/g, ' '),
  );
  for (const s of [...projectStems, ...domainOnly([...a.commands.flat(), a.text, a.context, ...a.paths].join('\n'))]) {
    stems.delete(s);
    nearOnly.delete(s);
  }
  const commandStems = new Set<string>();
  for (const c of commands) for (const w of commandName(c)) for (const t of tokenWords(w)) commandStems.add(stemOf(t));
  return {
    commands,
    statements: a.statements.map((c) => c.map((w) => w.toLowerCase())),
    paths,
    compounds,
    stems,
    nearOnly,
    commandStems,
    projectStems,
    variables: callVariables(a),
    fileTypes: editedTypes(a, paths),
  };
}
