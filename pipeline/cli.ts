/**
 * The `recall` command line. yargs parses and validates; library functions do the work; one
 * top-level handler maps errors to exit codes (2 = usage, 0 = everything else, as in the reference:
 * recall never fails the caller for a runtime problem). stdout carries only the requested output.
 */
import yargs, { type Argv } from 'yargs';
import { UsageError, errorMessage } from './errors.js';
import { runIndex, runRecall, type OutputFormat, type RecallCommand } from './run.js';
import type { RecallMode } from './recall.js';
import type { ConfidenceFloor } from '../operators/filter-confidence.js';

export interface CliIo {
  argv: string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTty: boolean;
}

const CONFIDENCE = ['HIGH', 'MEDIUM', 'LOW', 'ANY'] as const;
const MODES = ['naive', 'local', 'global'] as const;
const FORMATS = ['markdown', 'json', 'fleet-context'] as const;

function scopeOptions(y: Argv): Argv<{ kb: string | undefined; global: boolean; 'all-branches': boolean }> {
  return y
    .option('kb', { type: 'string', describe: 'KB root to read (overrides scope resolution)' })
    .option('global', { type: 'boolean', default: false, describe: 'read the pooled KB (~/.learnings), not a project shard' })
    .option('all-branches', { type: 'boolean', default: false, describe: 'skip the branch shard level' });
}

function requireNumber(name: string, v: unknown, opts: { min?: number; max?: number; integer?: boolean }): number | undefined {
  if (v === undefined) return undefined;
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

function choice<T extends string>(name: string, v: unknown, values: readonly T[], normalise: (s: string) => string = (s) => s): T {
  const s = normalise(String(v));
  if (!(values as readonly string[]).includes(s)) throw new UsageError(`--${name} must be one of ${values.join(', ')} (got ${JSON.stringify(String(v))})`);
  return s as T;
}

function parseTags(v: unknown): string[] {
  if (v === undefined) return [];
  return String(v)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
}

export async function main(io: CliIo): Promise<number> {
  let exitCode = 0;
  const parser = yargs(io.argv)
    .scriptName('recall')
    .usage('$0 [query..] [options]\n\nRetrieve the prior learnings most relevant to a query from a markdown KB.')
    .parserConfiguration({ 'camel-case-expansion': true, 'boolean-negation': true })
    .strict()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    })
    .command(
      'index',
      'Rebuild the index of a KB (re-read every note); shows progress on a terminal',
      (y) => scopeOptions(y),
      (a) => {
        let lastDraw = 0;
        const progress = io.isTty
          ? (done: number, total: number) => {
              const t = Date.now();
              if (done !== total && t - lastDraw < 100) return;
              lastDraw = t;
              io.stderr(`\rindexing ${done}/${total} files${done === total ? '\n' : ''}`);
            }
          : undefined;
        const { report, scope, file } = runIndex(
          { kb: a.kb ?? null, global: a.global, allBranches: a.allBranches as boolean },
          { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`), ...(progress ? { progress } : {}) },
        );
        io.stdout(
          `indexed ${scope.root}: ${report.total - report.problems.length} usable of ${report.total} files ` +
            `(${report.added} added, ${report.updated} re-read, ${report.removed} removed) in ${(report.ms / 1000).toFixed(2)} s\n` +
            `index: ${file}\n`,
        );
        for (const p of report.problems) io.stderr(`recall: skipped ${p.rel}: ${p.message}\n`);
      },
    )
    .command(
      '$0 [query..]',
      'Recall learnings for a query',
      (y) =>
        scopeOptions(y)
          .positional('query', { type: 'string', array: true, describe: 'what the agent is about to do' })
          .option('limit', { type: 'number', describe: 'results to return (default REFLECT_RECALL_LIMIT or 10)' })
          .option('confidence', { type: 'string', default: 'ANY', describe: 'minimum tier: HIGH, MEDIUM, LOW or ANY' })
          .option('mode', { type: 'string', default: 'naive', describe: 'naive | local (graph neighbourhood) | global' })
          .option('format', { type: 'string', default: 'markdown', describe: 'markdown | json | fleet-context' })
          .option('field', { type: 'string', describe: 'render one frontmatter field per hit (rule, fix, root_cause, problem, …)' })
          .option('tags', { type: 'string', describe: 'comma-separated tags for the tag boost' })
          .option('domain-hint', { type: 'string', describe: 'boost notes of this domain' })
          .option('min-overlap', { type: 'number', describe: 'OOD gate: minimum query-term coverage of the best hit (0..1, 0 = off)' })
          .option('max-tokens', { type: 'number', default: 0, describe: 'token budget for the result (0 = off)' })
          .option('max-chars', { type: 'number', describe: 'character budget of the markdown block (default REFLECT_RECALL_MAX_CHARS or 2000)' })
          .option('cache', { type: 'boolean', default: true, describe: 'use the recall cache (--no-cache skips it)' })
          .option('cache-ttl', { type: 'number', describe: 'cache validity in seconds (default 3600)' })
          .option('include-quarantined', { type: 'boolean', describe: 'keep quarantined fleet notes (default: only for fleet-context)' })
          .option('mmr', { type: 'boolean', default: true, describe: 'MMR diversity when embeddings exist (--no-mmr: plain top-k)' })
          .option('mmr-lambda', { type: 'number', describe: 'MMR relevance/diversity trade-off (0..1, default 0.7)' })
          .option('session-id', { type: 'string', describe: 'session id for the gap log and follow-up diagnostic' })
          .option('gap-log', { type: 'boolean', default: true, describe: 'log empty results as knowledge gaps (--no-gap-log)' })
          .option('followup', { type: 'boolean', default: true, describe: 'record the follow-up diagnostic (--no-followup)' })
          .option('verbose', { type: 'boolean', default: false, describe: 'print skipped notes, warnings and degradations on stderr' }),
      async (a) => {
        const query = ((a.query as string[] | undefined) ?? []).join(' ').trim();
        if (!query) throw new UsageError('empty query');
        const cmd: RecallCommand = {
          query,
          ...(a.limit !== undefined ? { limit: requireNumber('limit', a.limit, { min: 1, integer: true })! } : {}),
          mode: choice<RecallMode>('mode', a.mode, MODES, (s) => s.toLowerCase()),
          confidence: choice<ConfidenceFloor>('confidence', a.confidence, CONFIDENCE, (s) => s.toUpperCase()),
          format: choice<OutputFormat>('format', a.format, FORMATS, (s) => s.toLowerCase()),
          field: a.field ? String(a.field) : null,
          tags: parseTags(a.tags),
          domainHint: a.domainHint ? String(a.domainHint) : '',
          ...(a.minOverlap !== undefined ? { minOverlap: requireNumber('min-overlap', a.minOverlap, { min: 0, max: 1 })! } : {}),
          maxTokens: requireNumber('max-tokens', a.maxTokens, { min: 0, integer: true }) ?? 0,
          ...(a.maxChars !== undefined ? { maxChars: requireNumber('max-chars', a.maxChars, { min: 0, integer: true })! } : {}),
          cache: a.cache as boolean,
          ...(a.cacheTtl !== undefined ? { cacheTtl: requireNumber('cache-ttl', a.cacheTtl, { min: 0 })! } : {}),
          ...(a.includeQuarantined !== undefined ? { includeQuarantined: a.includeQuarantined as boolean } : {}),
          mmr: a.mmr as boolean,
          ...(a.mmrLambda !== undefined ? { mmrLambda: requireNumber('mmr-lambda', a.mmrLambda, { min: 0, max: 1 })! } : {}),
          global: a.global,
          allBranches: a.allBranches as boolean,
          kb: a.kb ?? null,
          sessionId: a.sessionId ? String(a.sessionId) : null,
          gapLog: a.gapLog as boolean,
          followup: a.followup as boolean,
          verbose: a.verbose as boolean,
        };
        const result = await runRecall(cmd, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) });
        if (result.stdout) io.stdout(result.stdout);
      },
    );
  try {
    await parser.parseAsync();
  } catch (err) {
    if (err instanceof UsageError || (err instanceof Error && err.name === 'YError')) {
      io.stderr(`recall: error: ${errorMessage(err)}\n`);
      exitCode = 2;
    } else {
      // Runtime problems never fail the caller (reference contract); say what happened on stderr.
      io.stderr(`recall: internal error: ${errorMessage(err)}\n`);
      exitCode = 0;
    }
  }
  return exitCode;
}
