/**
 * What a note says is fine, or leaves out of its rule, read from its text. Pure. A rule memory often
 * states its exception ("Read-only kubectl (get, describe, logs, port-forward) is fine", "no direct
 * `time.Now()` outside `main.go`"); a call that only runs such a command, or only edits such a
 * place, is not what the note warns about (triggers.ts turns these into patterns and globs).
 */
import { versionless } from './tool-call.js';
import { commandPattern, globRegExp, placeGlob, type CommandPattern } from './patterns.js';
import { runsPattern } from './commands.js';
import { MOVES, program } from './looking.js';
import { stemOf } from '../../core/stems.js';

/** A sentence's "… is fine": what comes before it is allowed. */
const FINE_RE = /\b(?:is|are)\s+(?:fine|ok|okay|allowed|safe|exempt|harmless)\b/i;
/** "… is fine to run `X`": X is allowed. */
const FINE_TO_RE = /\b(?:is|are)\s+(?:fine|ok|okay|allowed|safe)\s+to\s+(?:run|use|call)\s+`([^`\n]{1,120})`/gi;
/**
 * What makes "is fine" no exemption recall can take: a condition after it ("is fine until the
 * migration lands", "fine locally", "fine only in kind"), which a tool call cannot be checked against.
 */
const CONDITION_RE =
  /^[\s,]*(?:in|on|for|inside|within|during|before|after|against|with|from|locally|here\s+only)\b|\b(?:only|until|unless|if|when|whenever|while|as\s+long\s+as|provided|except)\b/i;
/**
 * A word that turns what follows it, up to the clause's end, into no exemption: a negation ("`kubectl
 * apply` is not fine, `kubectl get` is fine", "Neither `X` nor `Y` is fine") or a belief ("never assume
 * `git push --force` is fine").
 */
const DENIAL_RE = /\b(?:not|never|no|nor|neither|none|nothing|without|avoid|assum\w*|think|thought|believ\w*|seem\w*|claim\w*)\b|n't\b/gi;
/** A prohibition before "outside `X`": "No direct `time.Now()` outside `main.go`" (not "keep changes outside `gen/`"). */
const PROHIBITION_RE = /\b(?:no|not|never|nothing|none|avoid|forbid\w*|ban\w*|disallow\w*)\b|n't\b/gi;
/** Between the prohibition and "outside": what says X is where the rule holds ("never edit `gen/`, only files outside `gen/`"). */
const STAY_RE = /\b(?:keep|stay|only|instead|but|rather)\b/i;
/** "outside `X`", "except in `X`", "other than `X`": the rule does not hold in X. */
const BEYOND_RE =
  /\b(?:outside(?:\s+of)?|except(?:\s+(?:in|for))?|other\s+than|apart\s+from|excluding|not\s+counting)\s+`([^`\n]{1,120})`/gi;
/** A program and the subcommands a parenthesis lists after it: `kubectl (get, describe, logs)`, the program in a code span or not. */
const PROGRAM_LIST_RE = /(?:\b|`)([a-z][a-z0-9._-]{1,30})`?\s*\(([^()\n]{1,200})\)/gi;
/** A sentence that opens with a label saying what the rule leaves out ("Exempt: …", "Exceptions: …"). */
const EXEMPT_LABEL_RE = /^[\s*_>-]*(?:exempt(?:ed|ions?)?|exceptions?|not covered)[*_]*\s*:/i;

/**
 * A span a label exempts, as a place: a class by its name (`FxRate`) is its file in any language
 * (`FxRate.java`, `FxRate.kt`); a path or folder (`reporting/`) is itself. (A method, `Money.x()`,
 * is no place: placeGlob gives it none.)
 */
const labelledPlace = (span: string): string => (/^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$/.test(span.trim()) ? `${span.trim()}.*` : span);

/** Exceptions kept per note. */
const MAX_EXEMPT = 20;

export interface ExemptionTexts {
  /** Commands said to be fine: a code span's text, or a program with each of its listed subcommands. */
  commands: string[];
  /** Places the rule leaves out, as the note writes them in code spans (`main.go`, `cmd/`). */
  places: string[];
}

/** Code spans blanked, so that words inside them (`--no-verify`) read as no prose. */
const prose = (text: string): string => text.replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));

/** The part of a sentence's subject no negation or belief reaches: after the clause that holds the last one. */
function undenied(subject: string): string {
  const plain = prose(subject);
  const last = [...plain.matchAll(DENIAL_RE)].pop();
  if (!last) return subject;
  const end = plain.slice(last.index).search(/[,;:\u2014]/);
  return end < 0 ? '' : subject.slice(last.index + end + 1);
}

/** Whether the clause that ends a subject is denied ("Never assume it is fine to run `X`"). */
const denied = (subject: string): boolean => undenied(`${subject}.`) === '';

/** The commands a note says are fine and the places its rule leaves out, as written. */
export function exemptionTexts(text: string): ExemptionTexts {
  const commands: string[] = [];
  const places: string[] = [];
  const body = text.slice(0, 8000);
  for (const sentence of body.split(/(?<=[.!?;])\s+|\n/)) {
    for (const m of sentence.matchAll(BEYOND_RE)) {
      // Capped: each place reads the sentence before it again.
      if (places.length >= MAX_EXEMPT) break;
      const before = prose(sentence.slice(0, m.index));
      const ban = [...before.matchAll(PROHIBITION_RE)].pop();
      if (ban && !STAY_RE.test(before.slice(ban.index))) places.push(m[1]!);
    }
    // "Exempt: `FxRate` holds a `BigDecimal` …": the places and the classes the label names.
    if (EXEMPT_LABEL_RE.test(sentence)) for (const m of sentence.matchAll(/`([^`\n]{1,120})`/g)) places.push(labelledPlace(m[1]!));
    const fine = FINE_RE.exec(sentence);
    if (!fine) continue;
    if (CONDITION_RE.test(prose(sentence.slice(fine.index + fine[0].length)))) continue;
    const subject = undenied(sentence.slice(0, fine.index));
    for (const m of subject.matchAll(/`([^`\n]{1,120})`/g)) commands.push(m[1]!);
    for (const m of subject.matchAll(PROGRAM_LIST_RE)) {
      const subs = m[2]!.split(/\s*(?:,|\/|\bor\b|\band\b)\s*/).map((s) => s.trim().toLowerCase());
      for (const s of subs) if (/^[a-z][a-z0-9-]*$/.test(s)) commands.push(`${versionless(m[1]!.toLowerCase())} ${s}`);
    }
    for (const m of sentence.matchAll(FINE_TO_RE)) {
      if (commands.length >= MAX_EXEMPT) break;
      const after = prose(sentence.slice(m.index + m[0].length));
      if (!denied(sentence.slice(0, m.index)) && !CONDITION_RE.test(after)) commands.push(m[1]!);
    }
  }
  return { commands: commands.slice(0, MAX_EXEMPT), places: places.slice(0, MAX_EXEMPT) };
}

/** The commands a note says are fine (a program and a subcommand at least) and the places its rule leaves out. */
export function exemptions(text: string): { exemptCommands: CommandPattern[]; exemptPlaces: RegExp[] } {
  const said = exemptionTexts(text);
  const exemptCommands = said.commands.map(commandPattern).filter((p): p is CommandPattern => p !== null && p.words.length >= 2);
  // A place of wildcards only (`*`, `**`, `./`) is every file: a rule that leaves out everything is misread.
  const places = said.places.flatMap(placeGlob).filter((g) => /[A-Za-z0-9_-]/.test(g));
  return { exemptCommands, exemptPlaces: places.map(globRegExp) };
}

/**
 * Whether command `c` runs pattern `p` with `p`'s subcommand as its own: the first word after the
 * program that is no flag nor a flag's value (`kubectl -n argo get`). `terraform apply plan` applies
 * a saved plan; it does not run `terraform plan`.
 */
function runsAsSubcommand(c: readonly string[], p: CommandPattern): boolean {
  if (!runsPattern(c, p)) return false;
  for (let i = 1; i < c.length; i += 1) {
    const w = c[i]!;
    if (p.words[1]!.includes(w.toLowerCase())) return true;
    const prev = c[i - 1]!;
    if (!w.startsWith('-') && !(i > 1 && prev.startsWith('-') && !prev.includes('='))) return false;
  }
  return false;
}

/** The words of a call's flags (`--force-with-lease`: force, with, lease), by their stems, three letters at least. */
const flagStems = (c: readonly string[], p: CommandPattern): string[] =>
  c
    .slice(1)
    .filter((w) => w.startsWith('--') && !p.words.some((alts) => alts.includes(w.toLowerCase())))
    .flatMap((w) => w.slice(2).split('=')[0]!.toLowerCase().split(/[-_.]/))
    .filter((w) => w.length >= 3)
    .map(stemOf);

/**
 * Whether a call stays within what a note exempts: a run whose every command (a `cd` aside) is one
 * it says is fine, as its subcommand, and none also another command the note names ("`terraform
 * plan` is fine, never `terraform apply`"; "`git push` is fine, never `git push --force`": a forced
 * push is not the plain one) or with a flag the note's focus names ("`git push` is fine" in a note
 * titled "Never force-push": `git push --force`); or an edit whose every file is in a place its
 * rule leaves out.
 */
export function exempted(
  t: {
    exemptCommands: readonly CommandPattern[];
    exemptPlaces: readonly RegExp[];
    phrases: readonly CommandPattern[];
    stems: ReadonlySet<string>;
  },
  kind: string,
  commands: readonly string[][],
  paths: readonly string[],
): boolean {
  if (kind === 'run' && t.exemptCommands.length > 0) {
    // A phrase that is the exempt command, or the start of it, says nothing more than it.
    const more = (q: CommandPattern, p: CommandPattern): boolean =>
      q.words.length > p.words.length || q.words.some((alts, k) => !alts.every((a) => p.words[k]!.includes(a)));
    const fine = (c: readonly string[]): boolean =>
      t.exemptCommands.some(
        (p) =>
          runsAsSubcommand(c, p) && !t.phrases.some((q) => more(q, p) && runsPattern(c, q)) && !flagStems(c, p).some((s) => t.stems.has(s)),
      );
    const acting = commands.filter((c) => !MOVES.has(program(c)));
    return acting.length > 0 && acting.every(fine);
  }
  if (kind === 'edit' && t.exemptPlaces.length > 0) return paths.length > 0 && paths.every((p) => t.exemptPlaces.some((re) => re.test(p)));
  return false;
}
