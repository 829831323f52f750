/** `recall index`: rebuild the index of one or more KBs, with progress on a terminal. */
import type { Argv, CommandModule } from 'yargs';
import { runIndex } from '../../pipeline/run.js';
import { sqliteDriver } from '../../sources/sqlite/index.js';
import { kbList } from '../options.js';
import { JSON_OPTION, SCOPE_OPTIONS, jsonText, ttyProgress, type CliIo } from '../shared.js';

type IndexResult = Awaited<ReturnType<typeof runIndex>>;

function reportJson({ report, scope, file, vectors }: IndexResult): unknown {
  return {
    kb: scope.root,
    reason: scope.reason,
    files: report.total,
    usable: report.total - report.problems.length,
    added: report.added,
    updated: report.updated,
    removed: report.removed,
    ms: Math.round(report.ms),
    index: file,
    sqlite: sqliteDriver(),
    vectors,
    skipped: report.problems.map((p) => ({ path: p.rel, reason: p.message })),
    warnings: report.warnings.map((p) => ({ path: p.rel, reason: p.message })),
  };
}

function reportText({ report, scope, file, vectors }: IndexResult): string {
  return (
    `indexed ${scope.root}: ${report.total - report.problems.length} usable of ${report.total} files ` +
    `(${report.added} added, ${report.updated} re-read, ${report.removed} removed) in ${(report.ms / 1000).toFixed(2)} s\n` +
    `index: ${file}\nsqlite: ${sqliteDriver()}\nvectors: ${vectors}\n`
  );
}

async function indexKbs(a: Record<string, unknown>, io: CliIo): Promise<void> {
  const progress = ttyProgress(io, 'indexing', 'files');
  const embedProgress = io.isTty
    ? (done: number, total: number): void => io.stderr(`\rembedding ${done}/${total} notes${done === total ? '\n' : ''}`)
    : undefined;
  const kbs = kbList(a['kb']);
  const reports: unknown[] = [];
  for (const kb of kbs.length ? kbs : [null]) {
    const result = await runIndex(
      { kb, global: a['global'] === true, allBranches: a['all-branches'] === true },
      {
        env: io.env,
        cwd: io.cwd,
        warn: (l) => io.stderr(`${l}\n`),
        ...(progress ? { progress } : {}),
        ...(embedProgress ? { embedProgress } : {}),
      },
    );
    if (a['json']) {
      reports.push(reportJson(result));
      continue;
    }
    io.stdout(reportText(result));
    for (const p of result.report.problems) io.stderr(`recall: skipped ${p.rel}: ${p.message}\n`);
    for (const p of result.report.warnings) io.stderr(`recall: warning ${p.rel}: ${p.message}\n`);
  }
  if (a['json']) io.stdout(jsonText(reports.length === 1 ? reports[0] : reports));
}

export function indexCommand(io: CliIo): CommandModule {
  return {
    command: 'index',
    describe: 'Rebuild the index of a KB (re-read every note); shows progress on a terminal',
    builder: (y: Argv) => y.options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: (a) => indexKbs(a, io),
  };
}
