/**
 * The recall command's options, declared once: yargs builds help and errors from this table, and
 * the start-up fast path parses the same table with yargs-parser (yargs's own parser) so a plain
 * `recall QUERY …` never loads yargs (measured: ~55 ms of start-up). Values are validated here, for
 * both paths, into a typed RecallCommand; a bad value is a UsageError with a one-line message.
 */
import parser from 'yargs-parser';
import { UsageError } from '../core/errors.js';
import { setting } from '../core/settings/index.js';
import type { OutputFormat, RecallCommand } from '../pipeline/run.js';
import type { RecallMode } from '../pipeline/recall/index.js';
import type { ConfidenceFloor } from '../operators/filters.js';
import { COMMAND_WORDS, NOT_A_QUERY_FLAGS } from './command-words.js';

type OptionSpec = { type: 'string' | 'number' | 'boolean'; default?: string | number | boolean; describe: string };

export const SCOPE_OPTIONS = {
  kb: { type: 'string', describe: 'KB to read: a reflect KB (documents/) or any folder of markdown; repeat to search several together' },
  global: { type: 'boolean', default: false, describe: 'read the pooled KB (~/.learnings), not a project shard' },
  'all-branches': { type: 'boolean', default: false, describe: 'skip the branch shard level' },
} as const satisfies Record<string, OptionSpec>;

export const RECALL_OPTIONS = {
  ...SCOPE_OPTIONS,
  limit: { type: 'number', describe: 'results to return (default REFLECT_RECALL_LIMIT or 10)' },
  confidence: { type: 'string', default: 'ANY', describe: 'minimum tier: HIGH, MEDIUM, LOW or ANY' },
  mode: { type: 'string', default: 'naive', describe: 'naive | local (graph neighbourhood) | global' },
  format: { type: 'string', default: 'markdown', describe: 'markdown | json | fleet-context' },
  field: { type: 'string', describe: 'render one frontmatter field per hit (rule, fix, root_cause, problem, …)' },
  tags: { type: 'string', describe: 'comma-separated tags for the tag boost' },
  'domain-hint': { type: 'string', describe: 'boost notes of this domain' },
  'min-overlap': { type: 'number', describe: 'OOD gate: minimum query-term coverage of the best hit (0..1, 0 = off)' },
  floor: {
    type: 'number',
    describe: 'relevance floor: results must be at least this likely to be about the query (0..1, 0 = off; default RECALL_FLOOR or 0.5)',
  },
  weak: { type: 'boolean', default: true, describe: 'list learnings under the floor as weak matches (--no-weak hides them)' },
  'max-tokens': { type: 'number', default: 0, describe: 'token budget for the result (0 = off)' },
  'max-chars': { type: 'number', describe: 'character budget of the markdown block (default REFLECT_RECALL_MAX_CHARS or 2000)' },
  cache: { type: 'boolean', default: true, describe: 'use the recall cache (--no-cache skips it)' },
  'cache-ttl': { type: 'number', describe: 'cache validity in seconds (default 3600)' },
  'include-quarantined': { type: 'boolean', describe: 'keep quarantined fleet notes (default: only for fleet-context)' },
  mmr: { type: 'boolean', default: true, describe: 'MMR diversity when embeddings exist (--no-mmr: plain top-k)' },
  'mmr-lambda': { type: 'number', describe: 'MMR relevance/diversity trade-off (0..1, default 0.7)' },
  'session-id': { type: 'string', describe: 'session id for the gap log and follow-up diagnostic' },
  'gap-log': { type: 'boolean', default: true, describe: 'log empty results as knowledge gaps (--no-gap-log)' },
  followup: { type: 'boolean', default: true, describe: 'record the follow-up diagnostic (--no-followup)' },
  verbose: { type: 'boolean', default: false, describe: 'print the KB read, skipped notes, warnings and degradations on stderr' },
  json: { type: 'boolean', default: false, describe: 'same as --format json' },
} as const satisfies Record<string, OptionSpec>;

export { COMMAND_WORDS };

/**
 * The option table as yargs declares it. Number options are declared without a type (a value is
 * still required): yargs would turn `--limit abc` into NaN before we could name what was typed, so
 * the number check happens in toRecallCommand, on the text as given.
 */
export function yargsOptions<T extends Record<string, OptionSpec>>(table: T): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(table).map(([k, o]) => [
      k,
      o.type === 'number' ? { describe: o.describe, requiresArg: true, ...(o.default !== undefined ? { default: o.default } : {}) } : o,
    ]),
  );
}

const CONFIDENCE = ['HIGH', 'MEDIUM', 'LOW', 'ANY'] as const;
const MODES = ['naive', 'local', 'global'] as const;
const FORMATS = ['markdown', 'json', 'fleet-context'] as const;

/** The last value of an option given several times (`--limit 3 --limit 5` → 5), as command lines usually treat it. */
export function lastValue(v: unknown): unknown {
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export function requireNumber(name: string, raw: unknown, opts: { min?: number; max?: number; integer?: boolean }): number | undefined {
  const v = lastValue(raw);
  if (v === undefined) return undefined;
  if (typeof v === 'boolean' || (typeof v === 'string' && v.trim() === '')) throw new UsageError(`--${name} needs a value`);
  const n = typeof v === 'number' ? v : Number(v);
  const bad =
    !Number.isFinite(n) ||
    (opts.integer === true && !Number.isInteger(n)) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max);
  if (bad) {
    const range =
      opts.min !== undefined && opts.max !== undefined
        ? ` between ${opts.min} and ${opts.max}`
        : opts.min !== undefined
          ? ` of at least ${opts.min}`
          : '';
    throw new UsageError(`--${name} must be ${opts.integer ? 'an integer' : 'a number'}${range} (got ${JSON.stringify(String(v))})`);
  }
  return n;
}

function choice<T extends string>(name: string, raw: unknown, values: readonly T[], normalise: (s: string) => string): T {
  const v = lastValue(raw);
  const s = normalise(String(v));
  if (!(values as readonly string[]).includes(s))
    throw new UsageError(`--${name} must be one of ${values.join(', ')} (got ${JSON.stringify(String(v))})`);
  return s as T;
}

function optionalString(raw: unknown): string | null {
  const v = lastValue(raw);
  return v === undefined || v === null || v === '' ? null : String(v);
}

/** A `--confidence` value: HIGH, MEDIUM, LOW or ANY in any case. Throws UsageError. */
export function confidenceOf(raw: unknown): ConfidenceFloor {
  return choice<ConfidenceFloor>('confidence', raw, CONFIDENCE, (s) => s.toUpperCase());
}

/** A `--tags` value: comma-separated, trimmed, lower-cased, empty ones dropped. */
export function tagsOf(raw: unknown): string[] {
  return String(raw ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Every `--kb` given, in order (an option given several times arrives as a list). A `--kb` with no
 * folder after it (`recall redis --kb`, `--kb=`) is a usage error: reading the default scope instead
 * would answer from a KB the user did not ask for.
 */
export function kbList(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const kbs = list.map((k) => String(k));
  if (kbs.some((k) => k.trim() === '' || k === 'true')) throw new UsageError('--kb needs a folder (--kb DIR)');
  return kbs;
}

/** A string option given with nothing after it (`--field` at the end of the line) is a usage error, not an unset option. */
function requireValues(a: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const v = a[name];
    if (v === undefined) continue;
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => x === '' || x === true || x === null)) throw new UsageError(`--${name} needs a value`);
  }
}

/** Validate parsed arguments (kebab-case keys) into a RecallCommand. Throws UsageError. */
export function toRecallCommand(a: Record<string, unknown>): RecallCommand {
  const positional = (a['query'] ?? a['_'] ?? []) as unknown[];
  requireValues(a, BY_TYPE('string'));
  const query = positional.map(String).join(' ').trim();
  if (!query) throw new UsageError('empty query');
  const num = (name: string, opts: { min?: number; max?: number; integer?: boolean }): number | undefined =>
    requireNumber(name, a[name], opts);
  // The same range as REFLECT_RECALL_LIMIT (the settings table): `--limit 99999` is a typo, not a request.
  const limit = num('limit', { min: 1, max: setting('REFLECT_RECALL_LIMIT').max, integer: true });
  const minOverlap = num('min-overlap', { min: 0, max: 1 });
  const floor = num('floor', { min: 0, max: 1 });
  const maxChars = num('max-chars', { min: 0, integer: true });
  const cacheTtl = num('cache-ttl', { min: 0 });
  const mmrLambda = num('mmr-lambda', { min: 0, max: 1 });
  return {
    query,
    ...(limit !== undefined ? { limit } : {}),
    mode: choice<RecallMode>('mode', a['mode'] ?? 'naive', MODES, (s) => s.toLowerCase()),
    confidence: confidenceOf(a['confidence'] ?? 'ANY'),
    format: a['json'] === true ? 'json' : choice<OutputFormat>('format', a['format'] ?? 'markdown', FORMATS, (s) => s.toLowerCase()),
    field: optionalString(a['field']),
    tags: tagsOf(a['tags']),
    domainHint: optionalString(a['domain-hint']) ?? '',
    ...(minOverlap !== undefined ? { minOverlap } : {}),
    ...(floor !== undefined ? { floor } : {}),
    showWeak: a['weak'] !== false,
    maxTokens: num('max-tokens', { min: 0, integer: true }) ?? 0,
    ...(maxChars !== undefined ? { maxChars } : {}),
    cache: a['cache'] !== false,
    ...(cacheTtl !== undefined ? { cacheTtl } : {}),
    ...(typeof a['include-quarantined'] === 'boolean' ? { includeQuarantined: a['include-quarantined'] } : {}),
    mmr: a['mmr'] !== false,
    ...(mmrLambda !== undefined ? { mmrLambda } : {}),
    global: a['global'] === true,
    allBranches: a['all-branches'] === true,
    kb: kbList(a['kb'])[0] ?? null,
    ...(kbList(a['kb']).length > 1 ? { kbs: kbList(a['kb']) } : {}),
    sessionId: optionalString(a['session-id']),
    gapLog: a['gap-log'] !== false,
    followup: a['followup'] !== false,
    verbose: a['verbose'] === true,
  };
}

const BY_TYPE = (type: OptionSpec['type']): string[] =>
  Object.entries(RECALL_OPTIONS as Record<string, OptionSpec>)
    .filter(([, o]) => o.type === type)
    .map(([k]) => k);

/**
 * Parse a plain recall invocation without yargs. Returns null whenever yargs should handle the
 * argv instead (a subcommand, help, an unknown option), so help texts and yargs's own errors stay
 * yargs's. Value errors throw the same UsageError either path would.
 */
export function fastParse(argv: readonly string[]): RecallCommand | null {
  if (
    argv.length === 0 ||
    (COMMAND_WORDS as readonly string[]).includes(argv[0]!) ||
    argv.some((a) => (NOT_A_QUERY_FLAGS as readonly string[]).includes(a))
  )
    return null;
  const parsed = parser(argv as string[], {
    boolean: BY_TYPE('boolean'),
    // Numbers are parsed as text so that a bad value is reported as typed (see yargsOptions).
    string: [...BY_TYPE('string'), ...BY_TYPE('number')],
    configuration: { 'camel-case-expansion': false, 'boolean-negation': true, 'parse-positional-numbers': false },
  });
  const known = new Set(['_', '--', ...Object.keys(RECALL_OPTIONS)]);
  if (Object.keys(parsed).some((k) => !known.has(k))) return null;
  // `recall --kb DIR show ID` is the show command with an option first, as most command lines allow,
  // not a search for "show ID" (`recall --kb DIR -- show` still searches the word).
  const first = parsed._[0];
  if (typeof first === 'string' && (COMMAND_WORDS as readonly string[]).includes(first) && !argv.includes('--')) return null;
  return toRecallCommand(parsed);
}
