/**
 * In-process model runtime on @huggingface/transformers (onnxruntime-node underneath), local files
 * only: remote loading is switched off before anything loads.
 *
 * - embed(texts): mean-pooled (attention-masked) last hidden state, L2-normalised;
 * - rerank(query, texts): the cross-encoder's raw logit per (query, text) pair.
 * Texts are capped at MODEL_TEXT_CHARS characters and truncated to the model's max length; inputs
 * are run in small batches of similar length (measured fastest on CPU: b=1..5 beat one b=20 batch).
 * Models load lazily, once per process. Empty input → [] without loading anything.
 */
import type { ModelSettings } from './model-store.js';
import { modelPresence } from './model-store.js';
import { importModelRuntime } from './model-runtime.js';

import { MODEL_TEXT_CHARS } from '../../core/note/index.js';
/** Pairs/texts per ONNX run: small batches of similar length avoid padding waste. */
export const BATCH_SIZE = 4;

type Transformers = typeof import('@huggingface/transformers');
type Tokenizer = Awaited<ReturnType<Transformers['AutoTokenizer']['from_pretrained']>>;
type Model = Awaited<ReturnType<Transformers['AutoModel']['from_pretrained']>>;
/** What the tokenizer's call answers (typed `any` by the library): the tensors the model takes. */
type Encoded = { attention_mask: { data: BigInt64Array } };

let lib: Promise<Transformers> | null = null;
function transformers(modelsDir: string): Promise<Transformers> {
  lib ??= importModelRuntime<Transformers>(modelsDir).then((t) => {
    t.env.allowRemoteModels = false;
    t.env.allowLocalModels = true;
    return t;
  });
  return lib.then((t) => {
    t.env.localModelPath = modelsDir.endsWith('/') ? modelsDir : `${modelsDir}/`;
    return t;
  });
}

/** Indices of `texts` grouped into batches of similar length (longest first). */
export function lengthBatches(texts: readonly string[], size = BATCH_SIZE): number[][] {
  const order = texts.map((t, i) => [t.length, i] as const).sort((a, b) => b[0] - a[0]);
  const out: number[][] = [];
  for (let i = 0; i < order.length; i += size) out.push(order.slice(i, i + size).map(([, j]) => j));
  return out;
}

/** Tokens a model accepts at most (its tokenizer's model_max_length, capped at BERT's 512). */
function maxTokens(tok: Tokenizer): number {
  const m = (tok as unknown as { model_max_length?: number }).model_max_length;
  return Number.isFinite(m) && m! > 0 ? Math.min(m!, 512) : 512;
}

type Encoder = {
  encode(text: string, opts?: { text_pair?: string | null; add_special_tokens?: boolean }): number[];
  decode(ids: number[], opts?: { skip_special_tokens?: boolean }): string;
};

/**
 * Shorten texts so that, with the special tokens, they fit the model — as the Python tokenizers do
 * (longest-first for pairs). transformers.js would instead cut the finished sequence and drop the
 * closing separator. Content is cut at the token budget and decoded back to text.
 */
export function fitToModel(tok: Tokenizer, texts: string[], pairWith?: string, limit?: number): { a: string[]; b: string[] | null } {
  const enc = tok as unknown as Encoder;
  const max = Math.min(maxTokens(tok), limit ?? Infinity);
  const count = (t: string): number[] => enc.encode(t, { add_special_tokens: false });
  const cut = (ids: number[], n: number): string => enc.decode(ids.slice(0, Math.max(0, n)), { skip_special_tokens: true });
  if (pairWith === undefined) {
    const specials = enc.encode('a').length - count('a').length;
    return {
      a: texts.map((t) => {
        const ids = count(t);
        return ids.length > max - specials ? cut(ids, max - specials) : t;
      }),
      b: null,
    };
  }
  const specials = enc.encode('a', { text_pair: 'b' }).length - 2;
  const q = count(pairWith);
  const as: string[] = [];
  const bs: string[] = [];
  for (const t of texts) {
    const d = count(t);
    let qa = q.length;
    let db = d.length;
    // Longest first: drop a token from the longer side until the pair fits.
    while (qa + db > max - specials) {
      if (qa >= db) qa -= 1;
      else db -= 1;
    }
    as.push(qa < q.length ? cut(q, qa) : pairWith);
    bs.push(db < d.length ? cut(d, db) : t);
  }
  return { a: as, b: bs };
}

function l2normalise(v: Float32Array | number[]): number[] {
  let n = 0;
  for (const x of v) n += x * x;
  const d = Math.sqrt(n) || 1;
  return Array.from(v, (x) => x / d);
}

export interface RuntimeLimits {
  /** Tokens per (query, text) pair for the cross-encoder (speed: cost grows with length). */
  ceMaxTokens?: number;
  /** Tokens per text for the embedder. */
  embedMaxTokens?: number;
  /** Inputs per ONNX run. */
  batchSize?: number;
}

export class ModelRuntime {
  private embedder: Promise<{ tok: Tokenizer; model: Model }> | null = null;
  private ce: Promise<{ tok: Tokenizer; model: Model }> | null = null;

  constructor(
    private readonly settings: ModelSettings,
    private readonly limits: RuntimeLimits = {},
  ) {}

  private load(role: 'embed' | 'rerank'): Promise<{ tok: Tokenizer; model: Model }> {
    const p = modelPresence(this.settings, role);
    if (!p.present)
      return Promise.reject(
        new Error(
          `${role === 'embed' ? 'embedding' : 'cross-encoder'} model ${p.id} is not installed in ${this.settings.modelsDir} (missing ${p.missing.join(', ')}; run \`recall models pull\`)`,
        ),
      );
    return transformers(this.settings.modelsDir).then(async (t) => {
      const opts = { dtype: p.dtype! } as const;
      const tok = await t.AutoTokenizer.from_pretrained(p.id);
      const model =
        role === 'embed'
          ? await t.AutoModel.from_pretrained(p.id, opts)
          : await t.AutoModelForSequenceClassification.from_pretrained(p.id, opts);
      return { tok, model };
    });
  }

  private embedModel(): Promise<{ tok: Tokenizer; model: Model }> {
    this.embedder ??= this.load('embed').catch((err: unknown) => {
      this.embedder = null;
      throw err;
    });
    return this.embedder;
  }

  private ceModel(): Promise<{ tok: Tokenizer; model: Model }> {
    this.ce ??= this.load('rerank').catch((err: unknown) => {
      this.ce = null;
      throw err;
    });
    return this.ce;
  }

  get ids(): { ce: string; embed: string } {
    return { ce: this.settings.ceModel, embed: this.settings.embedModel };
  }

  /** Loaded state, for status reports. */
  loaded(): { embed: boolean; rerank: boolean } {
    return { embed: this.embedder !== null, rerank: this.ce !== null };
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const { tok, model } = await this.embedModel();
    const capped = texts.map((t) => t.slice(0, MODEL_TEXT_CHARS));
    const out: number[][] = new Array<number[]>(texts.length);
    const fitted = fitToModel(tok, capped, undefined, this.limits.embedMaxTokens ?? this.settings.embedMaxTokens).a;
    for (const batch of lengthBatches(capped, this.limits.batchSize)) {
      const enc = tok(
        batch.map((i) => fitted[i]!),
        { padding: true, truncation: true },
      ) as Encoded;
      const { last_hidden_state: h } = (await model(enc)) as { last_hidden_state: { dims: number[]; data: Float32Array } };
      const [b, seq, dim] = h.dims as [number, number, number];
      const mask = enc.attention_mask.data;
      for (let r = 0; r < b; r += 1) {
        const sum = new Float32Array(dim);
        let count = 0;
        for (let s = 0; s < seq; s += 1) {
          if (mask[r * seq + s] === 0n) continue;
          count += 1;
          const off = (r * seq + s) * dim;
          for (let k = 0; k < dim; k += 1) sum[k]! += h.data[off + k]!;
        }
        for (let k = 0; k < dim; k += 1) sum[k]! /= Math.max(1, count);
        out[batch[r]!] = l2normalise(sum);
      }
    }
    return out;
  }

  async rerank(query: string, texts: readonly string[]): Promise<number[]> {
    if (texts.length === 0) return [];
    const { tok, model } = await this.ceModel();
    const capped = texts.map((t) => t.slice(0, MODEL_TEXT_CHARS));
    const out: number[] = new Array<number>(texts.length);
    const fitted = fitToModel(tok, capped, query, this.limits.ceMaxTokens ?? this.settings.ceMaxTokens);
    for (const batch of lengthBatches(capped, this.limits.batchSize)) {
      const enc = tok(
        batch.map((i) => fitted.a[i]!),
        { text_pair: batch.map((i) => fitted.b![i]!), padding: true, truncation: true },
      ) as Encoded;
      const { logits } = (await model(enc)) as { logits: { data: Float32Array } };
      batch.forEach((i, r) => {
        out[i] = logits.data[r]!;
      });
    }
    return out;
  }
}
