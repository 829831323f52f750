/**
 * The places a note applies to, as globs: the files, folders and file types its "How to apply" names
 * in code spans, and the folders a Claude Code memory's rule names. Pure.
 */
import type { Note } from '../../core/note/index.js';
import { globRegExp, placeGlob } from './patterns.js';
import { stemsOf } from './terms.js';
import { noteName } from './git-steps.js';
import { codeSpans } from './spans.js';
import { nameWords, workOf } from './asked-work.js';

/** A place a note applies to; with `kinds`, only for calls doing that work there ("any test under `apps/api/src/**`"). */
export interface Place {
  re: RegExp;
  kinds?: ReadonlySet<string>;
  /**
   * The code the rule says is done (or not) there, when its sentence names any: "Nothing under
   * `lib/web/` aliases `App.Repo`" holds for an edit there that writes `Repo`, not for a heading's
   * wording or a CSS class changed in the same folder.
   */
  needs?: readonly RegExp[];
}

/**
 * Whether a place's rule holds for an edit there: the edit does the work the place is scoped to (its
 * `kinds`, of call-work.ts), and writes what the rule is about (its `needs`) in the lines it adds.
 */
export function placeHolds(p: Place, workKinds: ReadonlySet<string>, added: string): boolean {
  return (!p.kinds || [...p.kinds].some((k) => workKinds.has(k))) && (!p.needs || p.needs.some((re) => re.test(added)));
}

/** A place as read, before its glob is compiled. */
interface PlaceSpec {
  glob: string;
  kinds?: ReadonlySet<string> | undefined;
  needs?: RegExp[];
}

/** Where sentences end in a note's text. */
const SENTENCE_END = /(?<=[.!?])\s+|\n/g;

/** The sentence of `text` holding the character at `at`. */
function sentenceAt(text: string, at: number): string {
  let start = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    if ((m.index ?? 0) >= at) return text.slice(start, m.index);
    start = (m.index ?? 0) + m[0].length;
  }
  return text.slice(start);
}

/**
 * Code a rule says is written somewhere: a qualified name or a call (`Wickham.Repo`, `Ecto.Query`,
 * `db.session()`). Not a name alone (`FINANCE_WH`, `finance_*`), which a list of places holds as
 * one more place ("nothing touching `dags/finance/` or the `FINANCE_WH` Terraform").
 */
const WRITTEN_CODE_RE = /^(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\))$/;

/**
 * What an edit must write for a place's rule to hold: the code the sentence naming the place names
 * after it ("Nothing under `lib/web/` aliases `App.Repo`"), whole and by its last part (`Repo`).
 */
function placeNeeds(sentence: string, place: string): RegExp[] {
  const out: RegExp[] = [];
  const after = sentence.slice(sentence.indexOf(`\`${place}\``) + place.length + 2);
  for (const raw of codeSpans(after, 20)) {
    const span = raw.trim().replace(/\(\)$/, '');
    if (!WRITTEN_CODE_RE.test(raw.trim())) continue;
    const last = span.split('.').pop()!;
    for (const form of new Set([span, ...(last.length >= 4 ? [last] : [])]))
      out.push(new RegExp(`(?<![\\w.])${form.replace(/[.$]/g, '\\$&')}(?![\\w])`));
  }
  return out;
}

/** Places kept per note (as many as `applies_when` entries). */
const MAX_PLACES = 20;
/** Characters of a memory's rule read for the places it names (a memory is a few lines; a huge one is not all rule). */
const MAX_RULE_CHARS = 4000;

/** Where a memory's rule ends: its `**Why:**` or `**How to apply:**`, bold or a plain line's start (`Why: …`). */
const RULE_END_RE = /\*\*(?:Why|How to apply):?\*\*|^[ \t>#*_]*(?:Why|How to apply)[*_]*:/im;

/**
 * The rule a Claude Code memory states: its body before the `**Why:**` and `**How to apply:**` lines.
 * Claude Code writes a memory as the rule first, then why, then when it applies; a place the rule
 * names ("Migrations in `migrations/clickhouse/` have run in prod: never edit them") is where it
 * applies, as much as one its "How to apply" names. '' for any other note: a learning's body tells
 * what happened, and the files it names there are where it happened once, not where it applies.
 */
export function ruleText(note: Pick<Note, 'memoryType' | 'body'>): string {
  if (!note.memoryType) return '';
  const cut = note.body.search(RULE_END_RE);
  return (cut >= 0 ? note.body.slice(0, cut) : note.body).slice(0, MAX_RULE_CHARS);
}

/**
 * What, right before a place, says the rule holds for any change there: "any edit under", "anything
 * in", "every file in", "edits to", "no changes in", unless the words before it name a kind of work
 * (placeWork).
 */
const ANY_CHANGE_RE =
  /(?:\b(?:any|every|all)\s+(?:[\w-]+\s+){0,2}?(?:edits?|changes?|files?|code|modifications?|work)\s+|\b(?:anything|everything)\s+|\bedits?\s+|\bchanges?\s+)(?:under|in|inside|within|to)\s*$/i;

/** What, right before a place, names the work the rule holds for there: "any test under", "every migration in", "any new migration or schema change in". */
const ANY_WORK_RE = /\b(?:any|every|all)\s+((?:[\w-]+\s+){1,5}?)(?:under|in|inside|within)\s*$/i;
/** The word that says which change, right before a place: "schema change in", not "no edits under". */
const WORK_CHANGE_RE = /\b([\w-]+)\s+(?:edits?|changes?)\s+(?:under|in|inside|within|to)\s*$/i;

/**
 * The kinds of work the words right before a place scope the rule to there ("any test under", "any
 * new migration or schema change in", "schema change in"), or undefined where they say any change
 * ("any edit under", "no edits under", "hand edits in"): an empty set where they say neither.
 */
function placeWork(before: string): Set<string> | undefined {
  const work = workOf(nameWords(ANY_WORK_RE.exec(before)?.[1] ?? WORK_CHANGE_RE.exec(before)?.[1] ?? ''));
  return ANY_CHANGE_RE.test(before) && work.size === 0 ? undefined : work;
}

/**
 * The places a "How to apply" names in code spans (`.proto`, `internal/kafka`, `writer/v2.rs`). A top
 * folder alone (`api/`, `android/`, `src/`, and a monorepo's component `apps/api`) counts only after
 * words that say any change there ("after any edit under `proto/`", "anything under `apps/api`"):
 * "when writing error handling in `api/`" scopes a kind of work to half the repository, and every edit
 * there is not that work. A folder where the checkout sits (`/home/dev/plotline`) is no place.
 */
function howToApplyPlaces(howToApply: string): PlaceSpec[] {
  const out: PlaceSpec[] = [];
  for (const m of howToApply.matchAll(/`([^`\n]{1,200})`/g)) {
    const span = m[1]!;
    // `./apps/api` is the folder `apps/api`, as written from the checkout.
    const folder = span
      .trim()
      .replace(/^(?:\.\/)+/, '')
      .replace(/\/+$/, '');
    if (machineFolder(folder)) continue;
    // A top folder (`api/`), or one component of a monorepo, its layout folders aside (`apps/api`,
    // `apps/api/src`). Layout folders alone (`src/`, `internal/`, `packages/shared`) hold more than one;
    // a package under a folder that holds no components (`internal/kafka`, `pkg/auth`) is no component.
    // A folder's every file (`apps/api/src/**`) is the folder.
    const core = folder.replace(/(?:\/\*{1,2})+$/, '');
    const top = !/[*.]/.test(core) && wholeComponent(core) && span.includes('/');
    const before = howToApply.slice(Math.max(0, (m.index ?? 0) - 60), m.index);
    // "any test under `apps/api/src/**`": the place, for that work only.
    const kinds = top ? placeWork(before) : undefined;
    if (kinds?.size === 0) continue;
    const needs = placeNeeds(sentenceAt(howToApply, m.index ?? 0), span);
    out.push(...placeGlob(span).map((glob) => ({ glob, kinds, ...(needs.length > 0 ? { needs } : {}) })));
  }
  return out;
}

/**
 * Whether a folder is where something sits on one machine, not a folder of the repository: an
 * absolute, home or drive path (`/home/dev/plotline`, `~/plotline`, `C:/Users/dev/plotline`) is where
 * the checkout sits, which holds every file of it. A file so named (`/etc/nginx/nginx.conf`) is that one file.
 */
function machineFolder(path: string): boolean {
  return /^(?:[/~\\]|[A-Za-z]:[/\\])/.test(path) && !/\.[A-Za-z0-9]{1,8}$/.test(path.split(/[/\\]/).pop() ?? '');
}

/**
 * Whether a folder is a whole top folder or one whole component of a monorepo, its layout folders
 * aside (`api`, `apps/api`, `apps/api/src`); not `internal/kafka`, a package under a folder that
 * holds no components.
 */
function wholeComponent(folder: string): boolean {
  const parts = folder.split('/').filter(Boolean);
  const inComponent = COMPONENT_FOLDERS.has((parts[0] ?? '').toLowerCase());
  return (inComponent ? parts.filter((p) => !LAYOUT_FOLDERS.has(p.toLowerCase())) : parts).length <= 1;
}

/** Layout folders that hold a monorepo's components, one each (`apps/api`, `packages/ui`). */
const COMPONENT_FOLDERS = new Set(['apps', 'packages', 'services', 'libs']);

/** Folder names that say where code lives, not what it is about. */
const LAYOUT_FOLDERS = new Set([
  'src',
  'lib',
  'libs',
  'internal',
  'pkg',
  'cmd',
  'app',
  'apps',
  'packages',
  'services',
  'core',
  'common',
  'shared',
]);

/**
 * The glob of a folder a memory's rule names, two levels deep at least (`migrations/clickhouse/`,
 * `internal/ingest/v1`), when a folder name in it is a word of the memory's subject (its name and
 * description: "clickhouse-migration-rules", "/v1/events is deprecated"). A top folder (`compactor/`),
 * or a monorepo's component (`apps/api` for "api-error-handling"), is a whole component, where most of the work happens whatever the rule is about; a file
 * (`compactor/Dockerfile`) named in the rule is where something happened once more often than where
 * the rule applies; and a folder that says only where to run something ("`uv add` inside
 * `apps/api`" in a dependency policy) is not what the rule is about.
 */
function ruleFolder(span: string, subject: ReadonlySet<string>): string[] {
  const s = span.trim().replace(/\/+$/, '');
  if (machineFolder(s)) return [];
  const parts = s.split('/').filter(Boolean);
  if (/\.[A-Za-z0-9]{1,8}$/.test(s) || /[*?]/.test(s) || parts.length < 2 || wholeComponent(s)) return [];
  const named = parts.some(
    (p) => !LAYOUT_FOLDERS.has(p.toLowerCase()) && [...stemsOf(p.replace(/[-_.]+/g, ' '))].some((st) => subject.has(st)),
  );
  return named ? placeGlob(`${s}/`) : [];
}

/** A word that is a URL or a host name (`https://x.io/a`, `(brindle.atlassian.net)`, `redpanda-0.prod.internal`; not `docker-compose.dev.yml`). */
const HOST_RE = /:\/\/|^[("'<[]*[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|app|cloud|internal|local|co)\b(?![.\w])/i;

/** The globs of the places a note's "How to apply" names, and the folders a memory's rule names. */
export function placesOf(note: Pick<Note, 'howToApply' | 'memoryType' | 'body' | 'title' | 'frontmatter'>): Place[] {
  const rule = ruleText(note);
  const description = note.frontmatter['description'];
  // A host or URL in the description (`brindle.atlassian.net`) names a service, not the subject: the
  // org name in it would make a repository slug the rule mentions (`brindle/tollgate`) a place.
  const said = (typeof description === 'string' ? description : '')
    .slice(0, MAX_RULE_CHARS)
    .split(/\s+/)
    .filter((w) => !HOST_RE.test(w))
    .join(' ');
  const subject = rule ? stemsOf(`${noteName(note)}\n${said}`.replace(/[-_/]+/g, ' ')) : new Set<string>();
  const places: PlaceSpec[] = [...howToApplyPlaces(note.howToApply)];
  for (const sentence of rule.split(SENTENCE_END))
    for (const span of codeSpans(sentence, 20)) {
      const needs = placeNeeds(sentence, span);
      places.push(...ruleFolder(span, subject).map((glob) => ({ glob, ...(needs.length > 0 ? { needs } : {}) })));
    }
  const seen = new Set<string>();
  return places
    .filter((p) => !seen.has(p.glob) && seen.add(p.glob))
    .slice(0, MAX_PLACES)
    .map((p) => ({ re: globRegExp(p.glob), ...(p.kinds ? { kinds: p.kinds } : {}), ...(p.needs ? { needs: p.needs } : {}) }));
}
