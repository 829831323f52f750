import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { daemonRequest } from '../../sources/models/index.js';
import { daemonSocketPath } from '../../sources/daemon-protocol.js';
import { BIN, pct, repo, time } from './measure.js';

interface ModelRig {
  env: NodeJS.ProcessEnv;
  settings: { modelsDir: string; ceModel: string; embedModel: string; ceMaxTokens: number; embedMaxTokens: number };
  client: { socket: string; spawnCommand: string[]; env: NodeJS.ProcessEnv };
  docs: string[];
}

const QUERY = 'why does postgres keep timing out when the connection pool is exhausted';
const signal = (): AbortSignal => AbortSignal.timeout(120_000);

/** The state dir, model settings, daemon client and 20 note texts the model figures use. */
function modelRig(tmp: string, kb: string, modelsDir: string): ModelRig {
  const state = path.join(tmp, 'state-models');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: state,
    REFLECT_STATE_DIR: state,
    REFLECT_MODELS_DIR: modelsDir,
    REFLECT_CE_MODEL: 'bench/minilm-ce',
    REFLECT_EMBED_MODEL: 'bench/minilm-embed',
  };
  const settings = { modelsDir, ceModel: 'bench/minilm-ce', embedModel: 'bench/minilm-embed', ceMaxTokens: 96, embedMaxTokens: 256 };
  const socket = daemonSocketPath(state, settings);
  const client = { socket, spawnCommand: [process.execPath, path.join(repo, 'dist', 'bundle', 'daemon.mjs'), '--socket', socket], env };
  const docs = fs
    .readdirSync(path.join(kb, 'documents'))
    .filter((f) => f.endsWith('.md'))
    .slice(0, 20)
    .map((f) =>
      fs
        .readFileSync(path.join(kb, 'documents', f), 'utf8')
        .replace(/^---[\s\S]*?\n---\n/, '')
        .slice(0, 2000),
    );
  return { env, settings, client, docs };
}

/** Warm-daemon rerank and embed latencies. */
async function warmLatencies(rig: ModelRig, runs: number): Promise<{ rerank: number[]; embed: number[] }> {
  const rerank: number[] = [];
  const embed: number[] = [];
  for (let i = 0; i < Math.max(5, Math.floor(runs / 2)); i += 1) {
    let t0 = performance.now();
    await daemonRequest({ op: 'rerank', query: QUERY, texts: rig.docs }, rig.client, signal());
    rerank.push(performance.now() - t0);
    t0 = performance.now();
    await daemonRequest({ op: 'embed', texts: [QUERY, ...rig.docs] }, rig.client, signal());
    embed.push(performance.now() - t0);
  }
  return { rerank, embed };
}

/**
 * Model figures with random-weight models of the real MiniLM-L6 shape, generated now (never
 * committed): daemon cold start, rerank of 20 candidates, embedding of 21 texts, daemon RSS, and
 * `bin/recall` end to end with the daemon warm, on the smallest KB (its notes embedded first).
 */
export async function benchModels(tmp: string, kb: string, runs: number): Promise<string[]> {
  const py = '/usr/bin/python3';
  if (spawnSync(py, ['-c', 'import onnx, numpy'], { encoding: 'utf8' }).status !== 0) {
    return ['models: skipped (generating the benchmark models needs /usr/bin/python3 with python3-onnx: apt-get install python3-onnx)'];
  }
  const modelsDir = path.join(tmp, 'models');
  let t0 = performance.now();
  const gen = spawnSync(py, [path.join(repo, 'scripts', 'make-bench-model.py'), modelsDir], { encoding: 'utf8' });
  if (gen.status !== 0) return [`models: skipped (model generation failed: ${gen.stderr.trim().split('\n').pop()})`];
  const genMs = performance.now() - t0;
  const rig = modelRig(tmp, kb, modelsDir);
  const { env, settings } = rig;
  try {
    t0 = performance.now();
    time(['index', '--kb', kb], env);
    const indexMs = performance.now() - t0;
    spawnSync(BIN, ['daemon', 'stop'], { env });
    t0 = performance.now();
    await daemonRequest({ op: 'rerank', query: QUERY, texts: rig.docs }, rig.client, signal());
    const coldMs = performance.now() - t0;
    const { rerank, embed } = await warmLatencies(rig, runs);
    const e2e: number[] = [];
    for (let i = 0; i < runs; i += 1) e2e.push(time(['--kb', kb, `${QUERY} ${i}`, '--no-cache', '--format', 'json'], env));
    const st = await daemonRequest({ op: 'status' }, rig.client, signal());
    const rss = st.ok && st.status ? st.status.rssBytes / 1048576 : NaN;
    return [
      `models (random weights, MiniLM-L6 shape: 6 layers, hidden 384, generated in ${(genMs / 1000).toFixed(1)} s; cross-encoder input ${settings.ceMaxTokens} tokens/pair, embedder ${settings.embedMaxTokens}):`,
      `  recall index of ${path.basename(kb)} incl. embedding every note   ${(indexMs / 1000).toFixed(1)} s`,
      `  daemon cold start to first rerank answer (spawn + load + 20 pairs)   ${coldMs.toFixed(0)} ms`,
      `  rerank 20 candidates, warm daemon                 p50 ${pct(rerank, 50).toFixed(0)} ms, p95 ${pct(rerank, 95).toFixed(0)} ms`,
      `  embed 21 texts, warm daemon                       p50 ${pct(embed, 50).toFixed(0)} ms, p95 ${pct(embed, 95).toFixed(0)} ms`,
      `  bin/recall end to end, warm daemon (vector arm + rerank + MMR)   p50 ${pct(e2e, 50).toFixed(0)} ms, p95 ${pct(e2e, 95).toFixed(0)} ms`,
      `  daemon RSS after the run                          ${rss.toFixed(0)} MB`,
    ];
  } finally {
    spawnSync(BIN, ['daemon', 'stop'], { env });
  }
}
