/**
 * The `recall` command line. A plain `recall QUERY [options]` is parsed by the fast path (the shared
 * option table through yargs-parser); help, subcommands and anything the fast path does not
 * recognise go to yargs, loaded on demand. Library functions do the work; one handler maps errors
 * to exit codes (2 = usage; 0 = everything else, as in the reference: a runtime problem never fails
 * the caller). stdout carries only the requested output.
 */
import { UsageError, errorMessage } from './errors.js';
import { wellFormedJson } from '../sinks/safe-text.js';
import { runIndex, runRecall, type RecallCommand } from './run.js';
import { RECALL_OPTIONS, SCOPE_OPTIONS, fastParse, toRecallCommand } from './cli-options.js';
import { sqliteDriver } from '../sources/sqlite.js';

export interface CliIo {
  argv: string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTty: boolean;
}

async function recallCommand(cmd: RecallCommand, io: CliIo): Promise<void> {
  const result = await runRecall(cmd, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) });
  if (result.stdout) io.stdout(result.stdout);
}

async function indexCommand(a: { kb?: string | undefined; global?: boolean; 'all-branches'?: boolean }, io: CliIo): Promise<void> {
  let lastDraw = 0;
  const progress = io.isTty
    ? (done: number, total: number): void => {
        const t = Date.now();
        if (done !== total && t - lastDraw < 100) return;
        lastDraw = t;
        io.stderr(`\rindexing ${done}/${total} files${done === total ? '\n' : ''}`);
      }
    : undefined;
  const embedProgress = io.isTty ? (done: number, total: number): void => io.stderr(`\rembedding ${done}/${total} notes${done === total ? '\n' : ''}`) : undefined;
  const { report, scope, file, vectors } = await runIndex(
    { kb: a.kb ?? null, global: a.global === true, allBranches: a['all-branches'] === true },
    { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`), ...(progress ? { progress } : {}), ...(embedProgress ? { embedProgress } : {}) },
  );
  io.stdout(
    `indexed ${scope.root}: ${report.total - report.problems.length} usable of ${report.total} files ` +
      `(${report.added} added, ${report.updated} re-read, ${report.removed} removed) in ${(report.ms / 1000).toFixed(2)} s\n` +
      `index: ${file}\nsqlite: ${sqliteDriver()}\nvectors: ${vectors}\n`,
  );
  for (const p of report.problems) io.stderr(`recall: skipped ${p.rel}: ${p.message}\n`);
}

/** trace and explain show what every stage does: a cached run would skip the arms they describe. */
const UNCACHED = { cache: { type: 'boolean', default: false, describe: 'reuse a cached fetch (default off here: a cached run skips the arms)' } } as const;

/** Exit code set by a command that succeeded but wants a non-zero status (replay --fail-on-change). */
let exitOverride = 0;

function requirePositiveInt(name: string, v: unknown): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be an integer of at least 1 (got ${JSON.stringify(String(v))})`);
  return n;
}

async function withYargs(io: CliIo): Promise<void> {
  const { default: yargs } = await import('yargs');
  await yargs(io.argv)
    .scriptName('recall')
    .usage('$0 [query..] [options]\n\nRetrieve the prior learnings most relevant to a query from a markdown KB.')
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': true, 'parse-positional-numbers': false })
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
      (y) => y.options(SCOPE_OPTIONS),
      async (a) => indexCommand(a, io),
    )
    .command('models <action>', 'Model files: `pull` downloads the ONNX exports (the only network access), `status` lists them', (y) =>
      y
        .positional('action', { choices: ['pull', 'status'] as const, describe: 'pull | status' })
        .option('ce', { type: 'string', describe: 'cross-encoder model id (default REFLECT_CE_MODEL)' })
        .option('embed', { type: 'string', describe: 'embedding model id (default REFLECT_EMBED_MODEL)' })
        .option('only', { type: 'string', describe: 'pull only one: rerank or embed' })
        .option('quantized', { type: 'boolean', default: false, describe: 'pull the int8 ONNX export (smaller, slightly less accurate)' }),
      async (a) => {
        const m = await import('./models-cli.js');
        if (a.action === 'status') return io.stdout(m.modelsStatus(io.env));
        const only = m.parseRole(a.only);
        io.stdout(
          await m.modelsPull(
            { ...(a.ce ? { ce: a.ce } : {}), ...(a.embed ? { embed: a.embed } : {}), quantized: a.quantized === true, ...(only ? { only } : {}) },
            io.env,
            (line) => io.isTty && io.stderr(`\r${line.padEnd(80)}`),
          ),
        );
      },
    )
    .command('hook <name>', 'Run a hook entry point: session-start | user-prompt-submit | subagent-start (hook JSON on stdin)', (y) =>
      y.positional('name', { choices: ['session-start', 'user-prompt-submit', 'subagent-start'] as const }),
      () => undefined,
    )
    .command(
      'hooks <action>',
      'Hook wiring for a harness: `config` prints it; `install` / `uninstall` merge it into the harness settings (backup first)',
      (y) =>
        y
          .positional('action', { choices: ['config', 'install', 'uninstall'] as const })
          .option('harness', { choices: ['claude', 'codex', 'copilot'] as const, default: 'claude' as const })
          .option('scope', { choices: ['user', 'project'] as const, default: 'user' as const, describe: 'user settings, or the project in the current folder' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'print what would change, write nothing' })
          .option('mcp', { type: 'boolean', default: false, describe: 'also register `recall mcp` as an MCP server' })
          .option('skill', { type: 'boolean', default: true, describe: 'also install the recall skill (--no-skill to skip)' }),
      async (a) => {
        const { hooksConfig, installRoot } = await import('./hooks-config.js');
        if (a.action === 'config') return io.stdout(hooksConfig(a.harness));
        const m = await import('./hooks-install.js');
        const install = a.action === 'install';
        const o = { harness: a.harness, scope: a.scope, mcp: a.mcp === true, skill: a.skill !== false, env: io.env, cwd: io.cwd, root: installRoot() };
        const changes = m.planInstall(o, install);
        const backups = a['dry-run'] ? [] : m.applyChanges(changes);
        io.stdout(m.describeChanges(changes, o, a['dry-run'] === true, install, backups));
      },
    )
    .command('stages <step> [args..]', 'Staged recall for deep digs: workflow | index QUERY | timeline (--anchor ID | QUERY) | hydrate ID [ID...]', (y) =>
      y
        .positional('step', { choices: ['workflow', 'index', 'timeline', 'hydrate'] as const })
        .positional('args', { type: 'string', array: true })
        .options(SCOPE_OPTIONS)
        .option('limit', { type: 'number', describe: 'index rows (default 20)' })
        .option('anchor', { type: 'string', describe: 'timeline anchor: note id or file stem' })
        .option('depth-before', { type: 'number', describe: 'timeline notes before the anchor (default 3)' })
        .option('depth-after', { type: 'number', describe: 'timeline notes after the anchor (default 3)' }),
      async (a) => {
        const st = await import('./stages.js');
        if (a.step === 'workflow') return io.stdout(st.workflowText());
        const scope = { kb: a.kb ?? null, global: a.global === true, allBranches: a['all-branches'] === true };
        const sio = { env: io.env, cwd: io.cwd, warn: (l: string) => io.stderr(`${l}\n`) };
        const words = ((a.args as string[] | undefined) ?? []).map(String);
        const out =
          a.step === 'index'
            ? await st.stageIndex(words.join(' '), { ...scope, ...(a.limit !== undefined ? { limit: a.limit } : {}) }, sio)
            : a.step === 'timeline'
              ? await st.stageTimeline(
                  {
                    ...scope,
                    ...(a.anchor ? { anchor: a.anchor } : {}),
                    ...(words.length ? { query: words.join(' ') } : {}),
                    ...(a['depth-before'] !== undefined ? { depthBefore: a['depth-before'] } : {}),
                    ...(a['depth-after'] !== undefined ? { depthAfter: a['depth-after'] } : {}),
                  },
                  sio,
                )
              : await st.stageHydrate(words, scope, sio);
        io.stdout(`${wellFormedJson(out, 2)}\n`);
      },
    )
    .command('trace [query..]', 'Run a recall and stream what each stage did (--format text | jsonl); takes every recall option', (y) =>
      y.positional('query', { type: 'string', array: true }).options({ ...RECALL_OPTIONS, ...UNCACHED, format: { type: 'string', default: 'text', describe: 'text | jsonl' } }),
      async (a) => {
        const fmt = String(a.format);
        if (fmt !== 'text' && fmt !== 'jsonl') throw new UsageError(`--format must be text or jsonl for trace (got ${JSON.stringify(fmt)})`);
        const { runTrace } = await import('./trace.js');
        const cmd = toRecallCommand({ ...(a as Record<string, unknown>), format: 'json' });
        await runTrace(cmd, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) }, fmt, io.stdout, io.isTty && fmt === 'text' && !io.env['NO_COLOR']);
      },
    )
    .command('explain [query..]', 'Say why a note is or is not in the result of a query (--id ID); takes every recall option', (y) =>
      y.positional('query', { type: 'string', array: true }).options({ ...RECALL_OPTIONS, ...UNCACHED, id: { type: 'string', demandOption: true, describe: 'note id (or file name without .md)' } }),
      async (a) => {
        const { runExplain } = await import('./trace.js');
        const cmd = toRecallCommand({ ...(a as Record<string, unknown>), format: 'json' });
        io.stdout(await runExplain(cmd, String(a.id), { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) }));
      },
    )
    .command('replay [log]', 'Re-run logged recalls against the current KB and settings and report what would change', (y) =>
      y
        .positional('log', { type: 'string', describe: 'recall log (default <state dir>/recall_log.jsonl)' })
        .option('since', { type: 'string', describe: 'only recalls logged on or after this date' })
        .option('limit', { type: 'number', describe: 'only the last N logged recalls' })
        .option('fail-on-change', { type: 'boolean', default: false, describe: 'exit 1 when any result would change (CI for KB edits)' })
        .option('json', { type: 'boolean', default: false, describe: 'machine-readable report' })
        .option('results', { type: 'number', describe: 'override --limit of every replayed recall' })
        .option('confidence', { type: 'string', describe: 'override --confidence' })
        .option('min-overlap', { type: 'number', describe: 'override --min-overlap' })
        .option('max-tokens', { type: 'number', describe: 'override --max-tokens' })
        .option('tags', { type: 'string', describe: 'override --tags' })
        .option('mmr', { type: 'boolean', describe: 'override MMR (--no-mmr)' }),
      async (a) => {
        const { runReplay, formatReplay } = await import('./replay.js');
        const overrides: Partial<RecallCommand> = {};
        if (a.results !== undefined) overrides.limit = requirePositiveInt('results', a.results);
        if (a.confidence !== undefined) overrides.confidence = toRecallCommand({ _: ['x'], confidence: a.confidence }).confidence;
        if (a['min-overlap'] !== undefined) overrides.minOverlap = toRecallCommand({ _: ['x'], 'min-overlap': a['min-overlap'] }).minOverlap!;
        if (a['max-tokens'] !== undefined) overrides.maxTokens = toRecallCommand({ _: ['x'], 'max-tokens': a['max-tokens'] }).maxTokens;
        if (a.tags !== undefined) overrides.tags = toRecallCommand({ _: ['x'], tags: a.tags }).tags;
        if (a.mmr !== undefined) overrides.mmr = a.mmr;
        const report = await runReplay(
          {
            ...(a.log ? { log: a.log } : {}),
            ...(a.since ? { since: a.since } : {}),
            ...(a.limit !== undefined ? { limit: requirePositiveInt('limit', a.limit) } : {}),
            overrides,
          },
          { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) },
        );
        io.stdout(a.json ? `${wellFormedJson(report, 2)}\n` : formatReplay(report));
        if (a['fail-on-change'] && report.changed > 0) exitOverride = 1;
      },
    )
    .command('team <action> [args..]', 'Share learnings through a PostgreSQL team store: init | push | pull | trust [AUTHOR] | status | history ID', (y) =>
      y
        .positional('action', { choices: ['init', 'push', 'pull', 'trust', 'status', 'history'] as const, describe: 'init | push | pull | trust | status | history' })
        .positional('args', { type: 'string', array: true })
        .options(SCOPE_OPTIONS)
        .option('url', { type: 'string', describe: 'init: the store, postgres://user@host:port/db (the password is never saved)' })
        .option('schema', { type: 'string', describe: 'init: schema name in the database (default recall)' })
        .option('machine', { type: 'string', describe: 'init: name of this machine in the store (default the host name)' })
        .option('grant', { type: 'string', array: true, describe: 'init: role(s) that may push and pull' })
        .option('grant-read', { type: 'string', array: true, describe: 'init: role(s) that may only pull' })
        .option('share-all', { type: 'string', array: true, describe: 'init: KB folder(s) that share every note, not only `share: team` ones' })
        .option('all', { type: 'boolean', default: false, describe: 'push: share every note of this KB (not only `share: team`)' })
        .option('full', { type: 'boolean', default: false, describe: 'pull: re-read the whole store' })
        .option('index', { type: 'boolean', default: true, describe: 'pull: refresh the current KB\'s index afterwards (--no-index to skip)' })
        .option('authority', { type: 'string', describe: 'trust: authority of the author\'s notes: advisory (default), promoted, law' })
        .option('remove', { type: 'boolean', default: false, describe: 'trust: stop trusting AUTHOR' })
        .option('probe', { type: 'boolean', default: true, describe: 'status: also ask the server (--no-probe: local facts only)' })
        .option('json', { type: 'boolean', default: false, describe: 'status: machine-readable output' }),
      async (a) => {
        const { runTeamCommand } = await import('./team-cli.js');
        io.stdout(await runTeamCommand(a as Record<string, unknown>, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`), ...(io.isTty ? { progress: (l: string) => io.stderr(`\r${l.padEnd(40)}`) } : {}) }));
      },
    )
    .command('mcp', 'Serve recall as an MCP server over stdio (tools: search, index, timeline, hydrate, explain)', (y) => y.options(SCOPE_OPTIONS), async (a) => {
      const { serveMcp } = await import('./mcp.js');
      await serveMcp({ kb: a.kb ?? null, global: a.global === true, allBranches: a['all-branches'] === true, env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) });
    })
    .command('daemon <action>', 'The model daemon that keeps models warm: status | stop', (y) =>
      y.positional('action', { choices: ['status', 'stop'] as const, describe: 'status | stop' }),
      async (a) => {
        const m = await import('./models-cli.js');
        io.stdout(a.action === 'status' ? await m.daemonStatus(io.env) : await m.daemonStop(io.env));
      },
    )
    .command(
      '$0 [query..]',
      'Recall learnings for a query',
      (y) => y.positional('query', { type: 'string', array: true, describe: 'what the agent is about to do' }).options(RECALL_OPTIONS),
      (a) => recallCommand(toRecallCommand(a as Record<string, unknown>), io),
    )
    .parseAsync();
}

export async function main(io: CliIo): Promise<number> {
  try {
    if (io.argv[0] === 'hook' && io.argv.length === 2 && ['session-start', 'user-prompt-submit', 'subagent-start'].includes(io.argv[1]!)) {
      // `recall hook <name>`: the hook entry point, hook JSON on stdin, one envelope on stdout.
      const startedMs = Math.round(performance.timeOrigin);
      const [{ HOOKS }, { hookDeadlineMs, readStdin, runHook, stdinWaitMs }] = await Promise.all([import('./hooks.js'), import('./hook-runtime.js')]);
      const spec = HOOKS[io.argv[1]!]!;
      const stdinText = await readStdin(process.stdin, undefined, stdinWaitMs(hookDeadlineMs(spec, io.env, startedMs)));
      const out = await runHook(spec, { stdinText, env: io.env, cwd: io.cwd, startedMs });
      io.stdout(out.envelope);
      return 0;
    }
    const fast = fastParse(io.argv);
    if (fast) await recallCommand(fast, io);
    else await withYargs(io);
    return exitOverride;
  } catch (err) {
    if ((err as { name?: string }).name === 'IndexFailed') {
      io.stderr(`recall: ${errorMessage(err)}\n`);
      return 1;
    }
    if ((err as { name?: string }).name === 'TeamError') {
      io.stderr(`recall: team: ${errorMessage(err)}\n`);
      return 1;
    }
    if ((err as { name?: string }).name === 'PullError') {
      io.stderr(`recall: models pull failed: ${errorMessage(err)}\n`);
      return 1;
    }
    if (err instanceof UsageError || (err instanceof Error && err.name === 'YError')) {
      io.stderr(`recall: error: ${errorMessage(err)}\n`);
      return 2;
    }
    // Runtime problems never fail the caller (reference contract); say what happened on stderr.
    io.stderr(`recall: internal error: ${errorMessage(err)}\n`);
    return 0;
  }
}
