/**
 * Where models live and which are present: the transformers.js local layout,
 * `<modelsDir>/<model id>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}`
 * (or `onnx/model_quantized.onnx`). Models are never fetched at run time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setting } from '../../core/settings/index.js';

export type ModelRole = 'rerank' | 'embed';

export interface ModelSettings {
  modelsDir: string;
  ceModel: string;
  embedModel: string;
  /** Token budgets per input (see RECALL_CE_MAX_TOKENS, RECALL_EMBED_MAX_TOKENS). */
  ceMaxTokens?: number;
  embedMaxTokens?: number;
}

/** Default models (REFLECT_CE_MODEL, REFLECT_EMBED_MODEL), from the settings list. */
export const DEFAULT_CE_MODEL = String(setting('REFLECT_CE_MODEL').def);
export const DEFAULT_EMBED_MODEL = String(setting('REFLECT_EMBED_MODEL').def);

const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

export interface ModelPresence {
  role: ModelRole;
  id: string;
  dir: string;
  present: boolean;
  /** 'fp32' (onnx/model.onnx) or 'q8' (onnx/model_quantized.onnx) when present. */
  dtype: 'fp32' | 'q8' | null;
  bytes: number;
  /** What is missing, when not present. */
  missing: string[];
  /** What the model serves in a recall. */
  serves: string;
}

function size(file: string): number | null {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

export function modelPresence(settings: ModelSettings, role: ModelRole): ModelPresence {
  const id = role === 'rerank' ? settings.ceModel : settings.embedModel;
  const dir = path.join(settings.modelsDir, ...id.split('/'));
  const missing: string[] = [];
  let bytes = 0;
  for (const f of REQUIRED) {
    const s = size(path.join(dir, f));
    if (s === null) missing.push(f);
    else bytes += s;
  }
  const fp32 = size(path.join(dir, 'onnx', 'model.onnx'));
  const q8 = size(path.join(dir, 'onnx', 'model_quantized.onnx'));
  const dtype = fp32 !== null ? 'fp32' : q8 !== null ? 'q8' : null;
  if (dtype === null) missing.push('onnx/model.onnx');
  else bytes += (dtype === 'fp32' ? fp32 : q8) ?? 0;
  return {
    role,
    id,
    dir,
    present: missing.length === 0,
    dtype,
    bytes,
    missing,
    serves: role === 'rerank' ? 'cross-encoder rerank of the top 20' : 'vector arm, MMR diversity',
  };
}
