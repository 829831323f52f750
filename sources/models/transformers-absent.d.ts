/**
 * The few types recall uses from @huggingface/transformers, for a type check without it: the model
 * runtime is an optional dependency, and `npm ci` drops it when its native parts cannot install
 * (tsconfig.json `paths` falls back to this file only when the package is not there).
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
interface Loader {
  from_pretrained(id: string, opts?: Record<string, unknown>): Promise<any>;
}
export declare const env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string };
export declare const AutoTokenizer: Loader;
export declare const AutoModel: Loader;
export declare const AutoModelForSequenceClassification: Loader;
