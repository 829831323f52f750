/** `recall stages <step>`: staged recall for deep digs (workflow, index, timeline, hydrate). */
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { wellFormedJson } from '../../sinks/safe-text.js';
import { SCOPE_OPTIONS, lastValue, requireNumber } from '../options.js';
import { oneKb, serviceIo, type CliIo, type ExitStatus } from '../shared.js';

const STEPS = ['workflow', 'index', 'timeline', 'hydrate'] as const;

async function runStep(a: Record<string, unknown>, io: CliIo): Promise<object> {
  const st = await import('../stages/stages.js');
  const sio = serviceIo(io);
  const scope = oneKb(a, 'stages');
  // Which sources the step reads, when they are not one KB the user chose (as list and trace say).
  const { commandSources, sourcesLine } = await import('../../pipeline/kb-sources/index.js');
  const line = sourcesLine(commandSources(scope, io).sources);
  if (line) io.stderr(`${line}\n`);
  const words = ((a['args'] as string[] | undefined) ?? []).map(String);
  const limit = requireNumber('limit', a['limit'], { min: 1, max: 1000, integer: true });
  const before = requireNumber('depth-before', a['depth-before'], { min: 0, integer: true });
  const after = requireNumber('depth-after', a['depth-after'], { min: 0, integer: true });
  if (a['step'] === 'index') return st.stageIndex(words.join(' '), { ...scope, ...(limit !== undefined ? { limit } : {}) }, sio);
  if (a['step'] === 'hydrate') return st.stageHydrate(words, scope, sio);
  return st.stageTimeline(
    {
      ...scope,
      ...(a['anchor'] ? { anchor: String(lastValue(a['anchor'])) } : {}),
      ...(words.length ? { query: words.join(' ') } : {}),
      ...(before !== undefined ? { depthBefore: before } : {}),
      ...(after !== undefined ? { depthAfter: after } : {}),
    },
    sio,
  );
}

export function stagesCommand(io: CliIo, exit: ExitStatus): CommandModule {
  return {
    command: 'stages [step] [args..]',
    describe: 'Staged recall for deep digs: workflow | index QUERY | timeline (--anchor ID | QUERY) | hydrate ID [ID...]',
    builder: (y: Argv) =>
      y
        .positional('step', { choices: STEPS })
        .positional('args', { type: 'string', array: true })
        .options(SCOPE_OPTIONS)
        .option('limit', { requiresArg: true, describe: 'index rows (default 20)' })
        .option('anchor', { type: 'string', describe: 'timeline anchor: note id or file stem' })
        .option('depth-before', { requiresArg: true, describe: 'timeline notes before the anchor (default 3)' })
        .option('depth-after', { requiresArg: true, describe: 'timeline notes after the anchor (default 3)' }),
    handler: async (a) => {
      if (a['step'] === undefined) throw new UsageError(`stages needs a step: ${STEPS.join(', ')} (recall stages --help)`);
      if (a['step'] === 'workflow') return io.stdout((await import('../stages/stages.js')).workflowText());
      const out = await runStep(a, io);
      io.stdout(`${wellFormedJson(out, 2)}\n`);
      // The JSON says what went wrong; the exit status says that something did.
      if ('error' in out) exit.code = 1;
    },
  };
}
