// `npm run plugin:build [-- --out DIR]`: writes the plugin payload, a folder that runs with no
// dependency install (default dist/plugin/). It is what users install, by any of these:
//   npm run plugin:release, then claude plugin marketplace add <owner>/<repo>#plugin
//   claude plugin marketplace add ./dist/plugin && claude plugin install recall@recall
//   npm pack ./dist/plugin  (a tarball for an npm or tarball-link marketplace source)
//
// What it holds and why:
// - dist/bundle/: the CLI, hooks, MCP server, recall server and model daemon bundled by esbuild into
//   self-contained ES modules (no sourcemaps: they double the size and only help a debugger);
// - dist/data/: the word counts and WordNet relations the relevance estimate reads (build output);
// - dist/hooks/<name>.js: the hook entries; hooks/hooks.json, skills/, bin/recall, the manifests;
// - dist/node_modules/: the few packages loaded by name at run time (see VENDORED), among them
//   node-sqlite3-wasm, SQLite compiled to WebAssembly (1.3 MB, no native build), the driver of last
//   resort. They sit under dist/ because Node finds them there from dist/bundle/, and because the
//   install step of a plugin manager never sees them as dependencies to fetch or rebuild.
//   Node ≥ 22.5 uses its built-in node:sqlite instead; better-sqlite3 is used when it can be loaded.
// - package.json: no dependencies at all, so a plugin manager's dependency install has nothing to do.
// The model runtime (@huggingface/transformers, onnxruntime-node: ~300 MB) is not in the payload:
// `recall models pull` installs it next to the models, on request.
// Plain JavaScript: it runs from a clone after `npm ci`, before anything else is built.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle, emptyEnvelopeSource, hookScript } from './bundle.mjs';
import { buildStemCounts } from './build-data.mjs';
import { buildWordnet } from './build-wordnet.mjs';
import { hookEvents } from './hook-names.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The files of the source tree copied as they are (relative to the root). */
const COPIED = [
  'LICENSE',
  'README.md',
  '.claude-plugin/plugin.json',
  '.codex-plugin/plugin.json',
  'hooks/hooks.json',
  'bin/recall',
  'scripts/launch.mjs',
  'scripts/hook.sh',
  'scripts/hook-names.mjs',
];

/**
 * Packages recall loads by name at run time (createRequire, out of esbuild's sight), copied into
 * dist/node_modules/ without docs, types and command-line tools: the SQLite WebAssembly driver, the
 * YAML parser of note frontmatter and the TOML parser of recall.toml. A package added to that list
 * in the sources must be added here; the payload spec runs a reflect note and a recall.toml to
 * catch a missing one.
 */
const VENDORED = ['node-sqlite3-wasm', 'js-yaml', 'smol-toml'];
const SKIPPED = /(^|\/)(README[^/]*|CHANGELOG[^/]*|bin|[^/]*\.d\.[cm]?ts|[^/]*\.map|[^/]*\.min\.js)$/i;

const PLUGIN_DESCRIPTION =
  'Injects relevant prior learnings at session start, on each prompt, when a subagent starts and before a command or edit they are about; recall skill and MCP tools for deeper digs.';
const CLAUDE_MARKET = {
  name: 'recall',
  owner: { name: 'recall' },
  description: 'recall: prior learnings for coding agents, from a local markdown knowledge base.',
  plugins: [{ name: 'recall', source: './', description: PLUGIN_DESCRIPTION }],
};
const CODEX_MARKET = {
  name: 'recall',
  interface: { displayName: 'recall' },
  plugins: [
    {
      name: 'recall',
      source: { source: 'local', path: './' },
      policy: { installation: 'AVAILABLE', authentication: 'ON_INSTALL' },
      category: 'Productivity',
    },
  ],
};

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

/** Build the payload into `out` (absolute; replaced whole, written beside it first). Returns its size in bytes. */
export async function buildPlugin(out) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const tmp = `${out}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    await bundle(root, path.join(tmp, 'dist', 'bundle'), { sourcemap: false });
    await buildStemCounts(root, path.join(tmp, 'dist', 'data'));
    buildWordnet(root, path.join(tmp, 'dist', 'data'));
    const envelope = await emptyEnvelopeSource(root);
    for (const [name, event] of Object.entries(hookEvents(root))) {
      fs.mkdirSync(path.join(tmp, 'dist', 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(tmp, 'dist', 'hooks', `${name}.js`), hookScript(name, event, envelope));
    }
    for (const f of COPIED) copy(path.join(root, f), path.join(tmp, f));
    copy(path.join(root, 'skills'), path.join(tmp, 'skills'));
    const req = createRequire(path.join(root, 'package.json'));
    for (const name of VENDORED) {
      // Not resolve(`${name}/package.json`): a package's exports map may hide it.
      const from = (req.resolve.paths(name) ?? []).map((d) => path.join(d, name)).find((d) => fs.existsSync(path.join(d, 'package.json')));
      if (!from) throw new Error(`${name} is not installed (run npm ci first)`);
      fs.cpSync(from, path.join(tmp, 'dist', 'node_modules', name), {
        recursive: true,
        filter: (src) => !SKIPPED.test(path.relative(from, src)),
      });
    }
    // The payload's own marketplaces (Claude Code, Codex), each listing the payload itself. They are
    // written here and not kept in the source tree: a marketplace there would list the repository,
    // and `claude plugin marketplace add <owner>/<repo>` would install all its dependencies.
    writeJson(path.join(tmp, '.claude-plugin', 'marketplace.json'), CLAUDE_MARKET);
    writeJson(path.join(tmp, '.agents', 'plugins', 'marketplace.json'), CODEX_MARKET);
    const payloadPkg = {
      name: 'recall-plugin',
      version: pkg.version,
      description: `${pkg.description} Plugin payload: runs with no dependency install.`,
      type: 'module',
      license: pkg.license,
      engines: pkg.engines,
      bin: { recall: 'bin/recall' },
      // npm pack leaves out every node_modules folder unless it is listed here.
      files: ['.agents', '.claude-plugin', '.codex-plugin', 'LICENSE', 'README.md', 'bin', 'dist', 'hooks', 'scripts', 'skills'],
      // The version of the model runtime `recall models pull` installs (kept with the code it runs).
      recall: { modelRuntime: { '@huggingface/transformers': pkg.optionalDependencies['@huggingface/transformers'] } },
    };
    fs.writeFileSync(path.join(tmp, 'package.json'), `${JSON.stringify(payloadPkg, null, 2)}\n`);
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(tmp, out);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return dirSize(out);
}

function dirSize(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return n;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--out');
  const out = path.resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1] : path.join(root, 'dist', 'plugin'));
  const bytes = await buildPlugin(out);
  process.stdout.write(`recall plugin payload: ${out} (${(bytes / 1048576).toFixed(1)} MB)\n`);
}
