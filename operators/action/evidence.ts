/** The evidence a tool call gathers for each note of a KB (operators/action/match.ts). Pure. */
import { stemOf } from '../../core/stems.js';
import { dfOf, type TriggerIndex } from './trigger-index.js';
import { CODE_WORDS } from './looking.js';
import { optionOfOtherProgram } from './commands.js';
import type { ActionFeatures } from './features.js';

/** Evidence per note: its sum, what matched, and whether one match was strong enough alone. */
export class Evidence {
  readonly byNote = new Map<number, { s: number; why: string[]; strong: boolean; pieces: Set<string>; best: number; bestWhy: string }>();
  /** `piece` names what the credit rests on: credits with the same piece count once towards "more than one". */
  credit(i: number, s: number, why: string, strong = false, piece = why): void {
    const e = this.byNote.get(i) ?? { s: 0, why: [], strong: false, pieces: new Set<string>(), best: 0, bestWhy: '' };
    e.s += s;
    if (s > e.best) [e.best, e.bestWhy] = [s, why];
    e.why.push(why);
    e.strong ||= strong;
    e.pieces.add(piece);
    this.byNote.set(i, e);
  }
}

/** A shared code-like token, before its rarity among notes. */
export const W_COMPOUND = 1.2;
/** A shared code-like token the note names in what it says to do (a key, an API, a flag): what it is about, alone enough when unique. */
const W_FOCUS_COMPOUND = 1.6;
/** A word or token found only where the change is (the call's file path, an edit's unchanged lines) counts this much of one in what the call runs or writes. */
export const PATH_WEIGHT = 0.6;

/**
 * Shared code-like tokens (`proxy_read_timeout`, `--experimental-vm-modules`), into `ev`; the stems of
 * each token a note names go into `counted`, so its words are not counted again as words.
 */
export function tokenEvidence(
  idx: TriggerIndex,
  f: Pick<ActionFeatures, 'compounds' | 'commands'>,
  ev: Evidence,
  counted: Map<number, Set<string>>,
): void {
  // One token of the call counts once per note, by the rarest of its forms that note names.
  // A form counts once per note, however many tokens of the call hold it (`fmt.Errorf("decode …`, `fmt.Errorf("parse …`).
  const creditedForms = new Set<string>();
  for (const [token, { forms, stems, near }] of f.compounds) {
    const best = new Map<number, { form: string; df: number }>();
    for (const form of forms) {
      const hits = idx.byCompound.get(form) ?? [];
      // A form the note recommends is no evidence, another it names is (`process.env` of `process.env.X`);
      // of two as rare, the longer says more (`ldclient.variation` over `ldclient`).
      const rank = (i: number, c: { form: string; df: number }): number =>
        (idx.notes[i]!.followTokens.has(c.form) ? 1e6 : 0) + c.df - Math.min(c.form.length, 999) / 1000;
      const df = dfOf(hits, idx.live);
      for (const i of hits) if (rank(i, best.get(i) ?? { form, df: Infinity }) > rank(i, { form, df })) best.set(i, { form, df });
    }
    for (const [i, { form, df }] of best) {
      const t = idx.notes[i]!;
      // Writing what the note recommends is following it: no evidence, and its words are not counted either.
      const again = creditedForms.has(`${i} ${form}`);
      creditedForms.add(`${i} ${form}`);
      if (!again && (!t.followTokens.has(form) || optionOfOtherProgram(form, f.commands, t))) {
        const weight = t.focusCompounds.has(form) ? W_FOCUS_COMPOUND : W_COMPOUND;
        const why = `${near ? 'near-token' : 'token'}:${form}`;
        // An option the note writes in a command it recommends (`--filter` of pnpm) is part of sharing
        // the tool, one piece with the program's words; one it warns of (`--no-verify`) is a clue.
        const tool = form.startsWith('-') && f.commands.length > 0 && t.recommendedFlags.has(form);
        const piece = near ? 'where' : tool ? 'command-name' : `id:${token}`;
        ev.credit(i, (near ? PATH_WEIGHT : 1) * weight * spread(df), why, !near && df <= 2, piece);
      }
      const seen = counted.get(i) ?? new Set<string>();
      for (const w of stems) seen.add(w);
      counted.set(i, seen);
    }
  }
}

/** Rarity among the notes: a word or token half the KB names tells none of them apart. */
export const spread = (df: number): number => 1 / Math.sqrt(Math.max(1, df));

/** A retired thing a call uses, as strong as a token the note is about (operators/action/match.ts W_FOCUS_COMPOUND). */
const W_RETIRED = 1.6;

/**
 * What a note says is retired ("Heroku is decommissioned"), named in what the call runs or writes
 * (`git push heroku main`, `uses: heroku-deploy`): the call relies on it, the note is about this call.
 * Strong alone when no other note retires it.
 */
export function retiredEvidence(
  { notes, byStem, live }: Pick<TriggerIndex, 'notes' | 'byStem' | 'live'>,
  call: { stems: Iterable<string>; nearOnly: ReadonlyMap<string, unknown> },
  info: (stem: string) => number,
  ev: Evidence,
): void {
  for (const s of call.stems) {
    // Where the change is (its path, the lines it quotes) does not use the retired thing.
    if (call.nearOnly.has(s)) continue;
    const hits = (byStem.get(s) ?? []).filter((i) => notes[i]!.retired.has(s));
    // The same word as the note's word for it: one piece of evidence, however it is counted.
    const df = dfOf(hits, live);
    for (const i of hits) ev.credit(i, W_RETIRED * spread(df), `retired:${s}`, df <= 2, `word:${s}`);
    // What a contrast sets aside counts by how much its word says ("not the timeout" more than "not the call").
    // A language's keyword (`package`, `func`) is in every file of it, whatever a contrast sets aside.
    if (CODE_WORDS.has(s)) continue;
    const aside = (byStem.get(s) ?? []).filter((i) => notes[i]!.setAside.has(s) && !notes[i]!.retired.has(s));
    const w = info(s) * info(s) * spread(dfOf(aside, live));
    for (const i of aside) ev.credit(i, W_RETIRED * w, `set-aside:${s}`, false, `word:${s}`);
  }
}

/** A package an import names: `from "lodash"`, `import "x"`, `require('x')`, `from alembic import op`, `import jwt`. */
const IMPORT_RE =
  /(?:\bfrom\s+["']|\bimport\s+["']|\brequire\(\s*["'])(@?[A-Za-z][\w.-]{0,80})|^[ \t]*(?:from|import)[ \t]+([A-Za-z_]\w{0,80})/gm;

/**
 * Go: an import path alone on its line (as inside `import ( ... )`, where an edit that adds one
 * import writes only that line) or after `import`, with or without an alias. Only in a `.go` file.
 */
const GO_IMPORT_RE = /^[ \t]*(?:import[ \t]+)?(?:[A-Za-z_.]\w*[ \t]+)?"([a-z][\w.-]*(?:\/[\w.-]+)*)"[ \t]*\)?[ \t]*$/gm;
/** Rust: the crate a `use` or `extern crate` names (`use serde::Deserialize;`). Only in a `.rs` file. */
const RUST_USE_RE = /^[ \t]*(?:pub(?:\([\w ]+\))?[ \t]+)?(?:use|extern[ \t]+crate)[ \t]+([a-z_][a-z0-9_]*)/gm;
/** Parts of a Go import path that name no package: the module host, and layout and version folders. */
const GO_LAYOUT = /^(?:pkg|internal|cmd|v\d+)$|\./;

/**
 * The packages the lines a call writes import: their first name in JavaScript and Python
 * (`lodash/fp` is `lodash`); each named part of a Go import path after its host
 * (`github.com/stretchr/testify/assert`: `stretchr`, `testify`, `assert`); a Rust `use`'s crate.
 */
export function importedPackages(text: string, paths: readonly string[] = []): string[] {
  const out = new Set<string>();
  const code = text.slice(0, 8000);
  for (const m of code.matchAll(IMPORT_RE)) out.add((m[1] ?? m[2] ?? '').toLowerCase());
  if (paths.some((p) => p.endsWith('.go'))) {
    for (const m of code.matchAll(GO_IMPORT_RE))
      for (const part of m[1]!.split('/').slice(m[1]!.includes('/') ? 1 : 0)) if (!GO_LAYOUT.test(part)) out.add(part.toLowerCase());
  }
  if (paths.some((p) => p.endsWith('.rs'))) for (const m of code.matchAll(RUST_USE_RE)) out.add(m[1]!);
  return [...out].filter((p) => p.length >= 4 && !p.startsWith('.'));
}

/**
 * A language's or platform's own namespace (`import kotlin.math.*`, `import java.time.Instant`,
 * `use std::fmt`, `import android.os.Bundle`): every file of the language imports it, so it says
 * the code is Kotlin, not what the code does.
 */
const LANGUAGE_NAMESPACES = new Set(['kotlin', 'java', 'javax', 'scala', 'swift', 'foundation', 'android']);

/** A package import, before its rarity: a named command's worth (operators/action/match.ts W_PHRASE). */
const W_IMPORT = 1.6;

/**
 * A package the call imports (`import { groupBy } from "lodash"`, `from alembic import op`) that a
 * note names in what it is about: a package is a tool the code now uses, as a program is for a run.
 * It counts by the rarity of its name and is the same piece of evidence as that word: never enough
 * alone (a test file importing `pytest` is not about every pytest learning).
 */
export function importEvidence(
  { notes, byStem, live }: Pick<TriggerIndex, 'notes' | 'byStem' | 'live'>,
  text: string,
  paths: readonly string[],
  info: (stem: string) => number,
  ev: Evidence,
): void {
  for (const p of importedPackages(text, paths)) {
    const s = stemOf(p);
    if (CODE_WORDS.has(s) || LANGUAGE_NAMESPACES.has(p)) continue;
    const hits = (byStem.get(s) ?? []).filter((i) => notes[i]!.stems.has(s));
    const w = W_IMPORT * info(s) * info(s) * spread(dfOf(hits, live));
    for (const i of hits) ev.credit(i, w, `import:${p}`, false, `word:${s}`);
  }
}
