// Bundles the CLI entry into dist/bundle/ with esbuild so a hook or CLI process loads one file
// instead of hundreds of modules (measured in toolchain.md: ~2x faster start). Native and
// data-heavy packages stay external. Code splitting keeps chrono-node in a lazily loaded chunk.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';

// rxjs's exports map sends the "node" condition to its CommonJS build, which cannot be tree-shaken
// (the whole library, ~345 KB, ends up in the bundle). Point bundling at its ES2015 module build.
const rxjsEsm = path.join(path.dirname(createRequire(import.meta.url).resolve('rxjs/package.json')), 'dist/esm/index.js');
const rxjsEsmPlugin = {
  name: 'rxjs-esm',
  setup(b) {
    b.onResolve({ filter: /^rxjs$/ }, () => ({ path: rxjsEsm }));
  },
};

import fs from 'node:fs';

fs.rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: { recall: 'pipeline/main.ts', daemon: 'pipeline/daemon-main.ts' },
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
  plugins: [rxjsEsmPlugin],
});
