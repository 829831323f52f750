/**
 * The `recall` command line. A plain `recall QUERY [options]` is parsed by the fast path (the shared
 * option table through yargs-parser); help, subcommands and anything the fast path does not
 * recognise go to yargs, loaded on demand. Library functions do the work; one handler maps errors
 * to exit codes (2 = usage; 0 = everything else, as in the reference: a runtime problem never fails
 * the caller). stdout carries only the requested output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError, UsageError, errorMessage } from './errors.js';
import { wellFormedJson } from '../sinks/safe-text.js';
import { runIndex, runRecall, type RecallCommand } from './run.js';
import { RECALL_OPTIONS, SCOPE_OPTIONS, fastParse, kbList, lastValue, requireNumber, toRecallCommand, yargsOptions } from './cli-options.js';
import { sqliteDriver } from '../sources/sqlite.js';
import { installRoot } from './hooks-config.js';
import { JSON_OPTION, jsonText, oneKb, ttyProgress, type CliIo } from '../cli/shared.js';
import { statusCommand } from '../cli/status.js';
import { addCommand, forgetCommand, listCommand, showCommand, supersedeCommand } from '../cli/notes.js';

export type { CliIo };

/** This install's version (package.json next to the sources or the bundle). */
export function recallVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(installRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function recallCommand(cmd: RecallCommand, io: CliIo): Promise<void> {
  if (cmd.query === '-') {
    // `recall -`: the query comes from stdin (a long prompt, or piped from another tool).
    const text = io.readStdin ? (await io.readStdin()).trim() : '';
    if (!text) throw new UsageError('empty query on stdin');
    cmd = { ...cmd, query: text };
  }
  const result = await runRecall(cmd, { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`) });
  if (result.stdout) io.stdout(result.stdout);
}

/**
 * yargs's messages in one line, with the valid choices named: "Invalid values:\n  Argument: step,
 * Given: "bogus", Choices: …" becomes `step must be one of workflow, index, … (got "bogus")`.
 */
export function oneLineYargsMessage(msg: string): string {
  const m = /Invalid values:\s*Argument: ([\w-]+), Given: ("[^"]*"|\S+), Choices: (.+)/s.exec(msg);
  if (m) {
    const choices = m[3]!.split(/,\s*/).map((c) => c.trim().replace(/^"|"$/g, '')).join(', ');
    const name = m[1]!.length > 1 && /^[a-z]/.test(m[1]!) && !['step', 'action', 'name'].includes(m[1]!) ? `--${m[1]}` : m[1]!;
    return `${name} must be one of ${choices} (got ${m[2]})`;
  }
  return msg.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
}

/** The action of `recall hooks|models|daemon`, or a usage error naming the choices when it is missing. */
function actionOf(a: Record<string, unknown>, command: string, choices: readonly string[], fallback?: string): string {
  const v = a['action'] as string | undefined;
  if (v !== undefined) return v;
  if (fallback) return fallback;
  throw new UsageError(`${command} needs an action: ${choices.join(', ')} (recall ${command} --help)`);
}

async function indexCommand(a: { kb?: unknown; global?: boolean; 'all-branches'?: boolean; json?: boolean }, io: CliIo): Promise<void> {
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
  const kbs = kbList(a.kb);
  const reports: unknown[] = [];
  for (const kb of kbs.length ? kbs : [null]) {
    const { report, scope, file, vectors } = await runIndex(
      { kb, global: a.global === true, allBranches: a['all-branches'] === true },
      { env: io.env, cwd: io.cwd, warn: (l) => io.stderr(`${l}\n`), ...(progress ? { progress } : {}), ...(embedProgress ? { embedProgress } : {}) },
    );
    if (a.json) {
      reports.push({ kb: scope.root, reason: scope.reason, files: report.total, usable: report.total - report.problems.length, added: report.added, updated: report.updated, removed: report.removed, ms: Math.round(report.ms), index: file, sqlite: sqliteDriver(), vectors, skipped: report.problems.map((p) => ({ path: p.rel, reason: p.message })) });
      continue;
    }
    io.stdout(
      `indexed ${scope.root}: ${report.total - report.problems.length} usable of ${report.total} files ` +
        `(${report.added} added, ${report.updated} re-read, ${report.removed} removed) in ${(report.ms / 1000).toFixed(2)} s\n` +
        `index: ${file}\nsqlite: ${sqliteDriver()}\nvectors: ${vectors}\n`,
    );
    for (const p of report.problems) io.stderr(`recall: skipped ${p.rel}: ${p.message}\n`);
  }
  if (a.json) io.stdout(jsonText(reports.length === 1 ? reports[0] : reports));
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
  const sio = { env: io.env, cwd: io.cwd, warn: (l: string) => io.stderr(`${l}\n`) };
  const recallOptions = yargsOptions(RECALL_OPTIONS);
  const parser = yargs(io.argv)
    .scriptName('recall')
    .usage('$0 [query..] [options]\n\nRetrieve the prior learnings most relevant to a query from a markdown KB (`recall -` reads the query from stdin; `recall -- WORD` searches a word that is also a command; `recall help COMMAND` = `recall COMMAND --help`).')
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': true, 'parse-positional-numbers': false })
    .strict()
    .help()
    .alias('help', 'h')
    .version(recallVersion())
    .alias('version', 'V')
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw err ?? new UsageError(oneLineYargsMessage(msg));
    })
    .completion('completion', 'Print a bash/zsh completion script (add `source <(recall completion)` to your shell profile)')
    .command(statusCommand(io))
    .command(showCommand(io))
    .command(listCommand(io))
    .command(addCommand(io))
    .command(supersedeCommand(io))
    .command(forgetCommand(io))
    .command(
      'index',
      'Rebuild the index of a KB (re-read every note); shows progress on a terminal',
      (y) => y.options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
      async (a) => indexCommand(a, io),
    )
    .command('models [action]', 'Model files: `pull` downloads the ONNX exports (the only network access), `status` (default) lists them', (y) =>
      y
        .positional('action', { choices: ['pull', 'status'] as const, describe: 'pull | status' })
        .option('ce', { type: 'string', describe: 'cross-encoder model id (default REFLECT_CE_MODEL)' })
        .option('embed', { type: 'string', describe: 'embedding model id (default REFLECT_EMBED_MODEL)' })
        .option('only', { type: 'string', describe: 'pull only one: rerank or embed' })
        .option('quantized', { type: 'boolean', default: false, describe: 'pull the int8 ONNX export (smaller, slightly less accurate)' })
        .options(JSON_OPTION),
      async (a) => {
        const m = await import('./models-cli.js');
        if (actionOf(a, 'models', ['pull', 'status'], 'status') === 'status') return io.stdout(a.json ? jsonText(m.modelsStatusData(io.env)) : m.modelsStatus(io.env));
        const only = m.parseRole(a.only);
        const out = await m.modelsPull(
          { ...(a.ce ? { ce: a.ce } : {}), ...(a.embed ? { embed: a.embed } : {}), quantized: a.quantized === true, ...(only ? { only } : {}) },
          io.env,
          (line) => io.isTty && io.stderr(`\r${line.padEnd(80)}`),
        );
        if (io.isTty) io.stderr('\n');
        io.stdout(out);
      },
    )
    .command('hook <name>', 'Run a hook entry point: session-start | user-prompt-submit | subagent-start (hook JSON on stdin)', (y) =>
      y.positional('name', { choices: ['session-start', 'user-prompt-submit', 'subagent-start'] as const }),
      () => undefined,
    )
    .command(
      'hooks [action]',
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
        const action = actionOf(a, 'hooks', ['config', 'install', 'uninstall']);
        const { hooksConfig, installRoot: root } = await import('./hooks-config.js');
        if (action === 'config') return io.stdout(hooksConfig(a.harness));
        const m = await import('./hooks-install.js');
        const install = action === 'install';
        const o = { harness: a.harness, scope: a.scope, mcp: a.mcp === true, skill: a.skill !== false, env: io.env, cwd: io.cwd, root: root() };
        const changes = m.planInstall(o, install);
        const backups = a['dry-run'] ? [] : m.applyChanges(changes);
        io.stdout(m.describeChanges(changes, o, a['dry-run'] === true, install, backups));
      },
    )
    .command('stages [step] [args..]', 'Staged recall for deep digs: workflow | index QUERY | timeline (--anchor ID | QUERY) | hydrate ID [ID...]', (y) =>
      y
        .positional('step', { choices: ['workflow', 'index', 'timeline', 'hydrate'] as const })
        .positional('args', { type: 'string', array: true })
        .options(SCOPE_OPTIONS)
        .option('limit', { requiresArg: true, describe: 'index rows (default 20)' })
        .option('anchor', { type: 'string', describe: 'timeline anchor: note id or file stem' })
        .option('depth-before', { requiresArg: true, describe: 'timeline notes before the anchor (default 3)' })
        .option('depth-after', { requiresArg: true, describe: 'timeline notes after the anchor (default 3)' }),
      async (a) => {
        if (a.step === undefined) throw new UsageError('stages needs a step: workflow, index, timeline, hydrate (recall stages --help)');
        const st = await import('./stages.js');
        if (a.step === 'workflow') return io.stdout(st.workflowText());
        const scope = oneKb(a, 'stages');
        const words = ((a.args as string[] | undefined) ?? []).map(String);
        const limit = requireNumber('limit', a.limit, { min: 1, integer: true });
        const before = requireNumber('depth-before', a['depth-before'], { min: 0, integer: true });
        const after = requireNumber('depth-after', a['depth-after'], { min: 0, integer: true });
        const out =
          a.step === 'index'
            ? await st.stageIndex(words.join(' '), { ...scope, ...(limit !== undefined ? { limit } : {}) }, sio)
            : a.step === 'timeline'
              ? await st.stageTimeline(
                  {
                    ...scope,
                    ...(a.anchor ? { anchor: String(lastValue(a.anchor)) } : {}),
                    ...(words.length ? { query: words.join(' ') } : {}),
                    ...(before !== undefined ? { depthBefore: before } : {}),
                    ...(after !== undefined ? { depthAfter: after } : {}),
                  },
                  sio,
                )
              : await st.stageHydrate(words, scope, sio);
        io.stdout(`${wellFormedJson(out, 2)}\n`);
        // The JSON says what went wrong; the exit status says that something did.
        if ('error' in out) exitOverride = 1;
      },
    )
    .command('trace [query..]', 'Run a recall and stream what each stage did (--format text | jsonl; --json = jsonl); takes every recall option', (y) =>
      y.positional('query', { type: 'string', array: true }).options({ ...recallOptions, ...UNCACHED, format: { type: 'string', default: 'text', describe: 'text | jsonl' } }),
      async (a) => {
        const fmt = a.json === true ? 'jsonl' : String(lastValue(a.format));
        if (fmt !== 'text' && fmt !== 'jsonl') throw new UsageError(`--format must be text or jsonl for trace (got ${JSON.stringify(fmt)})`);
        const { runTrace } = await import('./trace.js');
        const cmd = toRecallCommand({ ...(a as Record<string, unknown>), json: false, format: 'json', kb: oneKb(a, 'trace').kb ?? undefined });
        await runTrace(cmd, sio, fmt, io.stdout, io.isTty && fmt === 'text' && !io.env['NO_COLOR']);
      },
    )
    .command('explain [query..]', 'Say why a note is or is not in the result of a query (--id ID; --format text | json); takes every recall option', (y) =>
      y.positional('query', { type: 'string', array: true }).options({
        ...recallOptions,
        ...UNCACHED,
        format: { type: 'string', default: 'text', describe: 'text | json' },
        id: { type: 'string', demandOption: true, describe: 'note id (or file name without .md)' },
      }),
      async (a) => {
        const fmt = a.json === true ? 'json' : String(lastValue(a.format));
        if (fmt !== 'text' && fmt !== 'json') throw new UsageError(`--format must be text or json for explain (got ${JSON.stringify(fmt)})`);
        const { runExplain } = await import('./trace.js');
        const cmd = toRecallCommand({ ...(a as Record<string, unknown>), json: false, format: 'json', kb: oneKb(a, 'explain').kb ?? undefined });
        const r = await runExplain(cmd, String(lastValue(a.id)), sio);
        if (r.verdict === 'unknown-id') throw new NotFoundError(r.message);
        io.stdout(fmt === 'json' ? jsonText(r) : `${r.message}\n`);
      },
    )
    .command('replay [log]', 'Re-run logged recalls against the current KB and settings and report what would change', (y) =>
      y
        .positional('log', { type: 'string', describe: 'recall log (default <state dir>/recall_log.jsonl)' })
        .option('since', { type: 'string', describe: 'only recalls logged on or after this date' })
        .option('limit', { requiresArg: true, describe: 'only the last N logged recalls' })
        .option('fail-on-change', { type: 'boolean', default: false, describe: 'exit 1 when any result would change (CI for KB edits)' })
        .option('json', { type: 'boolean', default: false, describe: 'machine-readable report' })
        .option('results', { requiresArg: true, describe: 'override --limit of every replayed recall' })
        .option('confidence', { type: 'string', describe: 'override --confidence' })
        .option('min-overlap', { requiresArg: true, describe: 'override --min-overlap' })
        .option('max-tokens', { requiresArg: true, describe: 'override --max-tokens' })
        .option('tags', { type: 'string', describe: 'override --tags' })
        .option('mmr', { type: 'boolean', describe: 'override MMR (--no-mmr)' }),
      async (a) => {
        const { runReplay, formatReplay } = await import('./replay.js');
        const overrides: Partial<RecallCommand> = {};
        if (a.results !== undefined) overrides.limit = requireNumber('results', a.results, { min: 1, integer: true })!;
        if (a.confidence !== undefined) overrides.confidence = toRecallCommand({ _: ['x'], confidence: a.confidence }).confidence;
        if (a['min-overlap'] !== undefined) overrides.minOverlap = toRecallCommand({ _: ['x'], 'min-overlap': a['min-overlap'] }).minOverlap!;
        if (a['max-tokens'] !== undefined) overrides.maxTokens = toRecallCommand({ _: ['x'], 'max-tokens': a['max-tokens'] }).maxTokens;
        if (a.tags !== undefined) overrides.tags = toRecallCommand({ _: ['x'], tags: a.tags }).tags;
        if (a.mmr !== undefined) overrides.mmr = a.mmr;
        const limit = requireNumber('limit', a.limit, { min: 1, integer: true });
        const progress = ttyProgress(io, 'replayed');
        const report = await runReplay(
          {
            ...(a.log ? { log: a.log } : {}),
            ...(a.since ? { since: String(lastValue(a.since)) } : {}),
            ...(limit !== undefined ? { limit } : {}),
            overrides,
            ...(progress ? { progress } : {}),
          },
          sio,
        );
        io.stdout(a.json ? jsonText(report) : formatReplay(report));
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
      await serveMcp({ ...oneKb(a, 'mcp'), env: io.env, cwd: io.cwd, warn: sio.warn });
    })
    .command('daemon [action]', 'The model daemon and the recall server: status (default) | stop', (y) =>
      y.positional('action', { choices: ['status', 'stop'] as const, describe: 'status | stop' }).options(JSON_OPTION),
      async (a) => {
        const [m, s] = await Promise.all([import('./models-cli.js'), import('../server/admin.js')]);
        if (actionOf(a, 'daemon', ['status', 'stop'], 'status') === 'stop') return io.stdout((await m.daemonStop(io.env)) + (await s.serverStop(io.env)));
        if (a.json) return io.stdout(jsonText({ ...(await m.daemonStatusData(io.env)), server: await s.serverStatusData(io.env) }));
        io.stdout((await m.daemonStatus(io.env)) + (await s.serverStatus(io.env)));
      },
    )
    .command(
      '$0 [query..]',
      'Recall learnings for a query',
      (y) => y.positional('query', { type: 'string', array: true, describe: 'what the agent is about to do' }).options(recallOptions),
      (a) => recallCommand(toRecallCommand(a as Record<string, unknown>), io),
    );
  await parser.parseAsync();
}

export async function main(io: CliIo): Promise<number> {
  for (const w of io.configWarnings ?? []) io.stderr(`recall: ${w}\n`);
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
    // `recall help [command]` and `recall version` are the flags' words, as in git and npm.
    if (io.argv[0] === 'help') io = { ...io, argv: [...io.argv.slice(1), '--help'] };
    else if (io.argv[0] === 'version' && io.argv.length === 1) io = { ...io, argv: ['--version'] };
    const fast = fastParse(io.argv);
    if (fast) await recallCommand(fast, io);
    else await withYargs(io);
    return exitOverride;
  } catch (err) {
    if (err instanceof NotFoundError) {
      io.stderr(`recall: ${errorMessage(err)}\n`);
      return 1;
    }
    if ((err as { name?: string }).name === 'IndexFailed' || (err as { name?: string }).name === 'NoteEditError') {
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
      io.stderr(`recall: error: ${err instanceof UsageError ? errorMessage(err) : oneLineYargsMessage((err as Error).message)}\n`);
      return 2;
    }
    // Runtime problems never fail the caller (reference contract); say what happened on stderr.
    io.stderr(`recall: internal error: ${errorMessage(err)}\n`);
    return 0;
  }
}
