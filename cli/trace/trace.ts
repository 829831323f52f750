/**
 * `recall trace` and `recall explain`: the real pipeline with a trace sink (a tap on each stage), so
 * what is shown is what a recall does — not a second implementation.
 *
 * trace streams one event per stage as it completes: as aligned text (coloured only on a TTY) or as
 * JSON lines (`--format jsonl`). explain (cli/trace/explain.ts) runs the same trace and says where a note dropped out.
 * Neither writes the recall log.
 */
import { stripControls, wellFormedJson } from '../../sinks/safe-text.js';
import { styleText } from 'node:util';
import { openSession, type RecallCommand, type RunIo } from '../../pipeline/run.js';
import { formatEvent, type Paint } from './format.js';

export { formatEvent } from './format.js';
export { relevanceVerdict, runExplain, type ExplainResult } from './explain.js';

export async function runTrace(
  cmd: RecallCommand,
  io: RunIo,
  format: 'text' | 'jsonl',
  write: (s: string) => void,
  color: boolean,
): Promise<void> {
  const paint: Paint = color ? (style, text) => styleText(style, text) : (_s, text) => text;
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: cmd.verbose }, io);
  try {
    // What is searched comes first when it was not one KB the user named: every KB read and every
    // source skipped, with why.
    const src = session.sources;
    const sources = {
      stage: 'sources',
      read: session.sources.read.map((s) => ({ root: s.root, scope: s.kind, reason: s.reason })),
      skipped: session.sources.skipped,
    };
    if (src.zeroConfig || src.read.length > 1 || src.skipped.length > 0)
      write(
        format === 'jsonl' ? `${wellFormedJson(cleanStrings(sources))}\n` : `${sourceLines(cleanStrings(sources), paint).join('\n')}\n`,
      );
    await session.run(cmd, {
      noLog: true,
      // Note text inside events is stripped of terminal controls before it is formatted or coloured.
      trace: (raw) => {
        const ev = cleanStrings(raw);
        write(format === 'jsonl' ? `${wellFormedJson(ev)}\n` : `${formatEvent(ev, paint).join('\n')}\n`);
      },
    });
  } finally {
    session.close();
  }
}

/** The sources event as text, in the stage-name column layout of the other events. */
function sourceLines(
  ev: { read: { root: string; reason: string }[]; skipped: { source: string; root: string; why: string }[] },
  paint: Paint,
): string[] {
  // Before the first stage: no time column, the stage name where the others have theirs.
  const head = `${' '.repeat(13)}${paint('bold', 'sources'.padEnd(13))}`;
  return [
    ...ev.read.map((s, i) => `${i === 0 ? head : ' '.repeat(26)}read ${s.root}  ${paint('dim', s.reason)}`),
    ...ev.skipped.map((s) => `${' '.repeat(26)}${paint('yellow', 'not read')} ${s.root || s.source}  ${paint('dim', s.why)}`),
  ];
}

/** A copy of a value with every string stripped of terminal controls (arrays and plain objects walked). */
function cleanStrings<T>(value: T): T {
  if (typeof value === 'string') return stripControls(value) as T;
  if (Array.isArray(value)) return value.map(cleanStrings) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, cleanStrings(v)])) as T;
  }
  return value;
}
