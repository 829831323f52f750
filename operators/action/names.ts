/**
 * Two things a tool call can share with a note besides its words. Pure.
 *
 * - A variable the note names in capitals (`PATH` in "system python wins PATH resolution"), used or
 *   set by the call (`echo "$PATH"`, `export PATH=...`): the note's word, as the name of that
 *   variable, so it counts as a token, not as the everyday word "path".
 * - The type of a file the call writes (`com.acme.sync.plist`), named by the note as files
 *   (`launchd plists run with a minimal env`, `.proto files`): where the note applies, as a file its
 *   "How to apply" names.
 */
import { stemOf } from '../../core/stems.js';
import { isCompound } from './terms.js';
import type { ToolAction } from './tool-call.js';
import type { NoteTriggers } from './triggers.js';
import { CODE_WORDS } from './looking.js';
import { spread, type Evidence } from './evidence.js';
import { dfOf } from './trigger-index.js';

/** A shared variable, before its rarity among notes: a code-like token's worth (match.ts W_COMPOUND). */
const W_VARIABLE = 1.2;
/** A file of the note's type, written: a named place's worth (match.ts W_PHRASE). */
const W_TYPE = 1.6;
/** A capital name in prose is a variable's when, lower-cased, it is a word rarer than this at most (`path`, not `ci`). */
const MIN_NAME_WORD_INFO = 0.9;
/** A file type counts only when its name is this rare in everyday English (0..1). */
const MIN_TYPE_INFO = 0.9;
/** Characters of a note or a call scanned for names. */
const MAX_SCAN = 8000;
/** Names kept per note (a note of a thousand capitals must not make every call match). */
const MAX_NAMES = 200;

/** A word written in capitals (`PATH`, `TZ`), as a variable's name is: two characters at least. */
const CAPITAL_NAME_RE = /(?<![\w$])[A-Z][A-Z0-9_]+(?!\w)/g;
/** A variable a shell line or a written file uses (`$PATH`, `${HOME}`). */
const USED_RE = /\$\{?([A-Z][A-Z0-9_]+)\b/g;
/**
 * A variable set: `NAME=` starting a shell word (`PATH=... python`, `export TZ=UTC`, `-e PORT=80`) or
 * a written line (`.env`, `ENV TZ=UTC`). Inside an argument or a line of code it is no setting (SQL's
 * `WHERE ID=5`).
 */
const SET_WORD_RE = /^([A-Z][A-Z0-9_]+)=/;
const SET_LINE_RE = /^[ \t]*(?:(?:export|ENV|ARG|declare|local|readonly|set|setenv)[ \t]+(?:-\w+[ \t]+)?)?([A-Z][A-Z0-9_]+)=/gm;
/**
 * A file type a note writes as files: `.plist`, `plists`, `SQL files`, `*.tf`. The language or tool a
 * type is named after (`SQL migrations`, `the CSS build`, `PHP opcache`) says nothing about every such
 * file, and neither does a glob inside a folder (`config/*.php`, or `src/` at any depth): that names
 * the folder's files (a place), and in a PHP project every other edit is a `.php` file too. A glob
 * of every folder (`**` then `*.tf`) names the type.
 */
const TYPE_NAME_RE =
  /(?<![\w/])(?<![\w}-]\/\*)(?<![\w}-]\/\*\*\/\*)\.([A-Za-z][A-Za-z0-9]{1,7})\b|\b([A-Za-z][A-Za-z0-9]{1,7})(?:s|\s+files?)\b/g;
/** The type of a file by its name's suffix (`com.x.plist`); a dotfile's name (`.zshrc`) is its name, not a type. */
const FILE_TYPE_RE = /^[^.].*\.([A-Za-z][A-Za-z0-9]{1,7})$/;

/**
 * The names a note writes in capitals, as written: case is what marks them as names. One that reads
 * as code (`NODE_OPTIONS`) is matched as a token already (terms.ts) and is left out here.
 */
export function capitalNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, MAX_SCAN).matchAll(CAPITAL_NAME_RE)) if (!isCompound(m[0]) && out.size < MAX_NAMES) out.add(m[0]);
  return out;
}

/** The stems of the file types a note writes as files (TYPE_NAME_RE). */
export function typeNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, MAX_SCAN).matchAll(TYPE_NAME_RE)) if (out.size < MAX_NAMES) out.add(stemOf((m[1] ?? m[2])!.toLowerCase()));
  return out;
}

/** A name written as a variable: `$NAME`, `${NAME}`, `NAME=`. */
const AS_VARIABLE_RE = /\$\{?([A-Z][A-Z0-9_]+)\b|(?<![\w$])([A-Z][A-Z0-9_]+)=/g;

/**
 * The names a note's focus gives: the variables it writes in capitals, those of them it writes as
 * code (in one of its code `spans`, or as `$NAME` or `NAME=`), and the file types it writes as files.
 */
export function focusNames(
  focus: string,
  spans: readonly string[],
): { variables: Set<string>; codeVariables: Set<string>; fileTypes: Set<string> } {
  const codeVariables = capitalNames(spans.join('\n'));
  for (const m of focus.slice(0, MAX_SCAN).matchAll(AS_VARIABLE_RE)) if (codeVariables.size < MAX_NAMES) codeVariables.add((m[1] ?? m[2])!);
  // A `$NAME` in prose is a variable's name too, though CAPITAL_NAME_RE passes over it.
  const variables = capitalNames(focus);
  for (const v of codeVariables) if (!isCompound(v) && variables.size < MAX_NAMES) variables.add(v);
  return { variables, codeVariables, fileTypes: typeNames(focus) };
}

/** The variables a call uses or sets in what it runs or writes (not in the lines an edit only quotes). */
export function callVariables(a: ToolAction): Set<string> {
  const names: string[] = [];
  for (const t of [a.raw, a.text]) for (const m of t.slice(0, MAX_SCAN).matchAll(USED_RE)) names.push(m[1]!);
  for (const c of a.commands) for (const w of c) names.push(SET_WORD_RE.exec(w)?.[1] ?? '');
  for (const m of a.text.slice(0, MAX_SCAN).matchAll(SET_LINE_RE)) names.push(m[1]!);
  return new Set(names.filter((n) => n && !isCompound(n)));
}

/** The stems of the types of the files an edit writes (a read or a run writes none). */
export function editedTypes(a: ToolAction, paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  if (a.kind !== 'edit') return out;
  for (const p of paths) {
    const type = FILE_TYPE_RE.exec(p.split('/').pop() ?? '')?.[1];
    if (type) out.add(stemOf(type.toLowerCase()));
  }
  return out;
}

/**
 * Credit for each note that names a variable the call uses; strong alone when at most two notes
 * name it. A name the note writes only in prose counts when it is an everyday word in capitals
 * (`PATH`, `HOME`): an abbreviation (`CI`, `API`, `ID`) in prose is no variable's name, and a note
 * about "CI runners" is not about every `CI=true npm test`. Returns the stems so counted per note,
 * which the everyday-word evidence then passes over.
 */
export function variableEvidence(
  {
    byVariable,
    notes,
    live,
  }: { byVariable: ReadonlyMap<string, readonly number[]>; notes: readonly Pick<NoteTriggers, 'codeVariables'>[]; live: number },
  variables: ReadonlySet<string>,
  info: (stem: string) => number,
  ev: Evidence,
): Map<number, Set<string>> {
  const counted = new Map<number, Set<string>>();
  for (const v of variables) {
    const s = stemOf(v.toLowerCase());
    const word = info(s) < MIN_NAME_WORD_INFO;
    const hits = (byVariable.get(v) ?? []).filter((i) => word || notes[i]!.codeVariables.has(v));
    for (const i of hits) {
      ev.credit(i, W_VARIABLE * spread(dfOf(hits, live)), `variable:$${v}`, dfOf(hits, live) <= 2, `word:${s}`);
      const seen = counted.get(i) ?? new Set<string>();
      seen.add(s);
      counted.set(i, seen);
    }
  }
  return counted;
}

/**
 * Credit for each note whose focus names the type of a file the call writes, as files. Only a type that is a
 * rare word counts (`.yaml`, `.service`, `.lock` say nothing about a topic); it is where the change
 * is (one piece with the file's path) and strong alone only when at most two notes name it.
 */
export function typeEvidence(
  { byType, live }: { byType: ReadonlyMap<string, readonly number[]>; live: number },
  types: ReadonlySet<string>,
  info: (stem: string) => number,
  ev: Evidence,
): void {
  for (const t of types) {
    if (CODE_WORDS.has(t) || info(t) < MIN_TYPE_INFO) continue;
    const hits = byType.get(t) ?? [];
    const df = dfOf(hits, live);
    for (const i of hits) ev.credit(i, W_TYPE * spread(df), `type:.${t}`, df <= 2, 'where');
  }
}
