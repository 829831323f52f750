/**
 * Process entry of the model daemon (spawned detached by the first caller that needs it):
 *   node dist/bundle/daemon.mjs --socket PATH
 * Model settings come from the environment (REFLECT_MODELS_DIR, REFLECT_CE_MODEL,
 * REFLECT_EMBED_MODEL, REFLECT_IDLE_TIMEOUT), read through the config module.
 */
import { loadConfig, modelSettings } from '../pipeline/config/index.js';
import { serve } from '../sources/models/index.js';

const i = process.argv.indexOf('--socket');
const socket = i >= 0 ? process.argv[i + 1] : undefined;
if (!socket) {
  process.stderr.write('recall daemon: --socket PATH is required\n');
  process.exitCode = 2;
} else {
  const config = loadConfig(process.env);
  await serve({
    socket,
    settings: modelSettings(config),
    idleTimeoutSec: config.idleTimeoutSec,
  });
  // Stopped, or another daemon already serves this socket. Exit explicitly: onnxruntime may hold
  // handles that would keep an idle daemon alive.
  process.exit(0);
}
