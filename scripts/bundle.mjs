// Bundles the CLI entry into dist/bundle/ with esbuild so a hook or CLI process loads one file
// instead of hundreds of modules (measured in toolchain.md: ~2x faster start). Native and
// data-heavy packages stay external. Code splitting keeps chrono-node in a lazily loaded chunk.
import { build } from 'esbuild';

await build({
  entryPoints: { recall: 'pipeline/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  external: ['better-sqlite3', 'onnxruntime-node', '@huggingface/transformers', 'sqlite-vec'],
  banner: { js: "import { createRequire as __recallCreateRequire } from 'node:module'; const require = __recallCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
  legalComments: 'none',
});
