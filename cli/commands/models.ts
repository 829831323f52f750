/** `recall models [pull|status]` and `recall daemon [status|stop]`: model files, the model daemon and the recall server. */
import type { Argv, CommandModule } from 'yargs';
import { JSON_OPTION, actionOf, jsonText, type CliIo } from '../shared.js';

export function modelsCommand(io: CliIo): CommandModule {
  return {
    command: 'models [action]',
    describe: 'Model files: `pull` downloads the ONNX exports (the only network access), `status` (default) lists them',
    builder: (y: Argv) =>
      y
        .positional('action', { choices: ['pull', 'status'] as const, describe: 'pull | status' })
        .option('ce', { type: 'string', describe: 'cross-encoder model id (default REFLECT_CE_MODEL)' })
        .option('embed', { type: 'string', describe: 'embedding model id (default REFLECT_EMBED_MODEL)' })
        .option('only', { type: 'string', describe: 'pull only one: rerank or embed' })
        .option('quantized', { type: 'boolean', default: false, describe: 'pull the int8 ONNX export (smaller, slightly less accurate)' })
        .options(JSON_OPTION),
    handler: async (a) => {
      const m = await import('../models.js');
      if (actionOf(a, 'models', ['pull', 'status'], 'status') === 'status')
        return io.stdout(a['json'] ? jsonText(m.modelsStatusData(io.env)) : m.modelsStatus(io.env));
      const only = m.parseRole(a['only']);
      const out = await m.modelsPull(
        {
          ...(a['ce'] ? { ce: a['ce'] as string } : {}),
          ...(a['embed'] ? { embed: a['embed'] as string } : {}),
          quantized: a['quantized'] === true,
          ...(only ? { only } : {}),
        },
        io.env,
        (line) => io.isTty && io.stderr(`\r${line.padEnd(80)}`),
      );
      if (io.isTty) io.stderr('\n');
      io.stdout(out);
    },
  };
}

export function daemonCommand(io: CliIo): CommandModule {
  return {
    command: 'daemon [action]',
    describe: 'The model daemon and the recall server: status (default) | stop',
    builder: (y: Argv) => y.positional('action', { choices: ['status', 'stop'] as const, describe: 'status | stop' }).options(JSON_OPTION),
    handler: async (a) => {
      const [m, s] = await Promise.all([import('../models.js'), import('../../sources/recall-server/admin.js')]);
      if (actionOf(a, 'daemon', ['status', 'stop'], 'status') === 'stop')
        return io.stdout((await m.daemonStop(io.env)) + (await s.serverStop(io.env)));
      if (a['json']) return io.stdout(jsonText({ ...(await m.daemonStatusData(io.env)), server: await s.serverStatusData(io.env) }));
      io.stdout((await m.daemonStatus(io.env)) + (await s.serverStatus(io.env)));
    },
  };
}
