/**
 * The model boundary: a cross-encoder that scores (query, text) pairs, an embedder, and KNN over a
 * KB's stored note vectors.
 *
 * Implementations answer `available: false` rather than erroring when they cannot serve; the stages
 * still guard every call with a timeout and catchError. `createModelClient` picks one:
 * - no model files installed → NO_MODELS (both unavailable, with the reason; nothing is spawned);
 * - REFLECT_NO_DAEMON=1 → models loaded in this process (slow first call: a cold load);
 * - otherwise → the shared model daemon over its unix socket, spawned on first use.
 * Every call is a lazy, cancellable Observable: unsubscribing aborts the request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Observable } from 'rxjs';
import { type RecallConfig, modelSettings } from './config/index.js';
import {
  NO_MODELS,
  unavailable,
  type ModelClient,
  type RerankResult,
  type EmbedResult,
  type KnnResult,
  type VectorsResult,
} from '../core/ports.js';
import { modelPresence, type ModelSettings, daemonRequest, type ClientOptions } from '../sources/models/index.js';
import { daemonSocketPath, type DaemonRequest, type DaemonResponse } from '../sources/daemon-protocol.js';

/** An async call as a cancellable Observable (unsubscribe aborts it). */
function fromAbortable<T>(fn: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((sub) => {
    const ac = new AbortController();
    fn(ac.signal).then(
      (v) => {
        sub.next(v);
        sub.complete();
      },
      (err: unknown) => sub.error(err),
    );
    return () => ac.abort();
  });
}

interface Backend {
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
  rerank(query: string, texts: string[], signal: AbortSignal): Promise<number[]>;
  /** Nearest stored vectors, and the query's own vector (reused by the MMR stage). */
  knn(
    indexFile: string,
    generation: number,
    query: string,
    k: number,
    signal: AbortSignal,
  ): Promise<{ hits: { path: string; score: number }[]; query: number[] }>;
}

function clientOver(backend: Backend, ce: string | null, embedId: string | null, reasons: { ce: string; embed: string }): ModelClient {
  // The vector arm embeds the query first; the MMR stage then needs the same vector (and usually no
  // note vectors: they are stored). Reusing it saves a model call queued behind the rerank.
  let lastQuery: { text: string; vector: number[] } | null = null;
  const remember = (text: string, vector: number[]): number[] => {
    lastQuery = { text, vector };
    return vector;
  };
  return {
    models: { ce, embed: embedId },
    rerank: (query, candidates) =>
      ce === null
        ? unavailable(reasons.ce)
        : fromAbortable(async (signal): Promise<RerankResult> => {
            const scores = await backend.rerank(
              query,
              candidates.map((c) => c.text),
              signal,
            );
            return { available: true, model: ce, scores: new Map(candidates.map((c, i) => [c.id, scores[i]!])) };
          }),
    embed: (query, candidates) =>
      embedId === null
        ? unavailable(reasons.embed)
        : fromAbortable(async (signal): Promise<EmbedResult> => {
            const known = lastQuery?.text === query ? lastQuery.vector : null;
            if (known && candidates.length === 0) return { available: true, model: embedId, query: known, docs: new Map() };
            const vectors = await backend.embed(known ? candidates.map((c) => c.text) : [query, ...candidates.map((c) => c.text)], signal);
            const offset = known ? 0 : 1;
            return {
              available: true,
              model: embedId,
              query: known ?? remember(query, vectors[0]!),
              docs: new Map(candidates.map((c, i) => [c.id, vectors[i + offset]!])),
            };
          }),
    embedTexts: (texts) =>
      embedId === null
        ? unavailable(reasons.embed)
        : fromAbortable(async (signal): Promise<VectorsResult> => ({
            available: true,
            model: embedId,
            vectors: await backend.embed([...texts], signal),
          })),
    knn: (indexFile, generation, query, k) =>
      embedId === null
        ? unavailable(reasons.embed)
        : fromAbortable(async (signal): Promise<KnnResult> => {
            const r = await backend.knn(indexFile, generation, query, k, signal);
            remember(query, r.query);
            return { available: true, model: embedId, hits: r.hits };
          }),
  };
}

/** The daemon entry script next to this module (bundle), or in dist/bundle from tsc output or sources. */
export function daemonEntry(moduleUrl: string = import.meta.url): string | null {
  const here = path.dirname(fileURLToPath(moduleUrl));
  for (const rel of ['daemon.mjs', '../bundle/daemon.mjs', '../dist/bundle/daemon.mjs']) {
    const p = path.resolve(here, rel);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

function daemonBackend(opts: ClientOptions): Backend {
  const call = async (req: DaemonRequest, signal: AbortSignal): Promise<DaemonResponse & { ok: true }> => {
    const res = await daemonRequest(req, opts, signal);
    if (!res.ok) throw new Error(`model daemon: ${res.error}`);
    return res;
  };
  return {
    embed: async (texts, signal) => (await call({ op: 'embed', texts }, signal)).vectors ?? [],
    rerank: async (query, texts, signal) => (await call({ op: 'rerank', query, texts }, signal)).scores ?? [],
    knn: async (index, generation, query, k, signal) => {
      const r = await call({ op: 'knn', index, generation, query, k }, signal);
      return { hits: r.hits ?? [], query: r.query ?? [] };
    },
  };
}

function inProcessBackend(settings: ModelSettings): Backend {
  // Loaded on first use only: importing transformers.js costs ~0.4 s.
  let runtime: Promise<import('../sources/models/runtime.js').ModelRuntime> | null = null;
  const rt = (): Promise<import('../sources/models/runtime.js').ModelRuntime> =>
    (runtime ??= import('../sources/models/runtime.js').then((m) => new m.ModelRuntime(settings)));
  return {
    embed: async (texts) => (await rt()).embed(texts),
    rerank: async (query, texts) => (await rt()).rerank(query, texts),
    knn: async (index, _generation, query, k) => {
      const [{ loadMatrix, knn }, { openDatabase }] = await Promise.all([
        import('../sources/models/vector-store.js'),
        import('../sources/sqlite/sqlite.js'),
      ]);
      const [q] = await (await rt()).embed([query]);
      const db = openDatabase(index, { readonly: true, fileMustExist: true });
      try {
        return { hits: knn(loadMatrix(db, settings.embedModel), q!, k), query: q! };
      } finally {
        db.close();
      }
    },
  };
}

export interface ModelClientChoice {
  client: ModelClient;
  /** How models are served: none, in-process, or the daemon at this socket. */
  via: 'none' | 'in-process' | 'daemon';
  socket: string | null;
}

export function createModelClient(config: RecallConfig, env: Readonly<Record<string, string | undefined>>): ModelClientChoice {
  const settings = modelSettings(config);
  const ce = modelPresence(settings, 'rerank');
  const emb = modelPresence(settings, 'embed');
  const reasons = {
    ce: `no cross-encoder model: ${ce.id} is not in ${config.modelsDir} (run \`recall models pull\`)`,
    embed: `no embedding model: ${emb.id} is not in ${config.modelsDir} (run \`recall models pull\`)`,
  };
  if (!ce.present && !emb.present) {
    return {
      client: {
        ...NO_MODELS,
        rerank: () => unavailable(reasons.ce),
        embed: () => unavailable(reasons.embed),
        embedTexts: () => unavailable(reasons.embed),
        knn: () => unavailable(reasons.embed),
      },
      via: 'none',
      socket: null,
    };
  }
  const ceId = ce.present ? ce.id : null;
  const embedId = emb.present ? emb.id : null;
  const entry = config.noDaemon ? null : daemonEntry();
  if (!entry) return { client: clientOver(inProcessBackend(settings), ceId, embedId, reasons), via: 'in-process', socket: null };
  const socket = daemonSocketPath(config.stateDir, settings);
  const backend = daemonBackend({
    socket,
    spawnCommand: [process.execPath, entry, '--socket', socket],
    env: { ...env, REFLECT_MODELS_DIR: config.modelsDir, REFLECT_CE_MODEL: config.ceModel, REFLECT_EMBED_MODEL: config.embedModel },
  });
  return { client: clientOver(backend, ceId, embedId, reasons), via: 'daemon', socket };
}
