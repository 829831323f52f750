/**
 * Which engine serves each arm, chosen per arm:
 * - vector and graph arms (RECALL_ENGINE): `embedded` (the index in the state dir), `reflect` (the
 *   reference engine's `reflect search`), or `auto` = reflect when `reflect` is on PATH and the KB
 *   has a reflect index (`nano_graphrag_cache/`), else embedded;
 * - BM25 arm (RECALL_BM25_ENGINE): `embedded` (FTS5), `qmd` (`qmd search`), or `auto` = embedded:
 *   the embedded index ranks the same notes as qmd at a fraction of its latency (measured; see
 *   README), so qmd is opt-in.
 * An engine asked for but not installed falls back to embedded and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../../sources/arms/index.js';
import type { RecallConfig } from '../config/index.js';

export type VectorGraphChoice = { kind: 'embedded' } | { kind: 'reflect'; bin: string };
export type Bm25Choice = { kind: 'embedded' } | { kind: 'qmd'; bin: string };

export interface Engines {
  vectorGraph: VectorGraphChoice;
  bm25: Bm25Choice;
  /** Why an explicitly requested engine is not used (becomes a degradation). */
  fallbacks: string[];
}

export function resolveEngines(config: RecallConfig, kbRoot: string): Engines {
  const fallbacks: string[] = [];
  let vectorGraph: VectorGraphChoice = { kind: 'embedded' };
  if (config.engine === 'reflect') {
    const bin = findOnPath('reflect', config.path);
    if (bin) vectorGraph = { kind: 'reflect', bin };
    else fallbacks.push('RECALL_ENGINE=reflect but `reflect` is not on PATH; using the embedded engine');
  } else if (config.engine === 'auto' && fs.existsSync(path.join(kbRoot, 'nano_graphrag_cache'))) {
    // `auto` looks for `reflect` only for a KB that has a reflect index: the one stat first, not a
    // stat of every PATH folder on every recall of every other KB.
    const bin = findOnPath('reflect', config.path);
    if (bin) vectorGraph = { kind: 'reflect', bin };
  }
  let bm25: Bm25Choice = { kind: 'embedded' };
  if (config.bm25Engine === 'qmd') {
    const bin = findOnPath('qmd', config.path);
    if (bin) bm25 = { kind: 'qmd', bin };
    else fallbacks.push('RECALL_BM25_ENGINE=qmd but `qmd` is not on PATH; using the embedded BM25 index');
  }
  return { vectorGraph, bm25, fallbacks };
}
