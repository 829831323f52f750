/**
 * The dependency rule of the source tree, checked on every import (static and dynamic):
 *
 *   core/                      shared vocabulary, pure: imports nothing of the project, does no I/O
 *   io/                        the low I/O helpers (atomic and private file writes, a hook's stdin)
 *   sources/ operators/ sinks/ the parts; import io/ and core/ only, never each other
 *   pipeline/                  the composition; imports the parts and below
 *   hooks/                     hook logic and entries; imports the pipeline and below
 *   cli/                       commands and tools; imports anything below
 *   server/                    the recall server; runs hooks and the CLI
 *   client/                    the thin client where a hook or `recall` process starts: the server, else in-process
 *   scripts/                   build, eval and bench scripts; import anything
 *
 * Inside a layer, a folder (sources/index/, pipeline/session/, ...) is one feature with one entry,
 * its index.ts: a static import from outside the folder names that entry, never a file past it.
 * A dynamic import() may name one module of a folder: it loads that module alone, on demand, which
 * keeps heavy packages (pg, chrono-node, the ONNX runtime) out of a process until it needs them.
 * Specs under spec/ may import anything they test.
 *
 * An import that points up (a part importing the pipeline), sideways (an operator importing a
 * source) or past an entry fails this test, with the file and the import named.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCycles, runtimeImports } from './helpers/import-cycles.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Layer of each top-level source folder; a folder may import its own layer only when it is itself. */
export const LAYERS: Readonly<Record<string, number>> = {
  core: 0,
  io: 1,
  sources: 2,
  operators: 2,
  sinks: 2,
  pipeline: 3,
  hooks: 4,
  cli: 5,
  server: 6,
  client: 7,
  scripts: 8,
};

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** Relative specifiers of every `import … from`, `export … from` and `import()` in a file. */
export function relativeImports(source: string): string[] {
  return [...source.matchAll(IMPORT_RE)].map((m) => m[2]!);
}

/** Relative specifiers of the static imports and re-exports only (no `import()`). */
export function staticImports(source: string): string[] {
  return [...source.matchAll(IMPORT_RE)].filter((m) => !/^import\s*\(/.test(m[0])).map((m) => m[2]!);
}

/** The top-level folder a path inside the repository belongs to. */
function topFolder(abs: string): string {
  return path.relative(repo, abs).split(path.sep)[0]!;
}

/** The feature folder (layer/folder) a repository path sits in, or null for a file at a layer's top. */
export function featureFolder(rel: string): string | null {
  const parts = rel.split(/[\\/]/);
  return parts.length >= 3 && LAYERS[parts[0]!] !== undefined ? `${parts[0]}/${parts[1]}` : null;
}

/** Every import that breaks the rule, as "file -> target (why)". */
export function violations(): string[] {
  const bad: string[] = [];
  for (const folder of Object.keys(LAYERS)) {
    for (const file of tsFiles(path.join(repo, folder))) {
      const from = LAYERS[folder]!;
      for (const spec of relativeImports(fs.readFileSync(file, 'utf8'))) {
        const target = topFolder(path.resolve(path.dirname(file), spec));
        if (target === folder) continue;
        const to = LAYERS[target];
        const rel = path.relative(repo, file);
        if (to === undefined) bad.push(`${rel} -> ${spec} (outside the source tree)`);
        else if (to > from) bad.push(`${rel} -> ${spec} (points up: ${folder} is below ${target})`);
        else if (to === from) bad.push(`${rel} -> ${spec} (sideways: ${folder} and ${target} are peers)`);
      }
    }
  }
  return bad;
}

/** The static imports of one file (`rel`: its repository path) that name a file past a folder's entry. */
export function pastEntryIn(rel: string, source: string): string[] {
  const bad: string[] = [];
  for (const spec of staticImports(source)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
    const folder = featureFolder(target);
    if (folder === null || rel.startsWith(`${folder}/`)) continue;
    if (path.posix.basename(target) !== 'index.js') bad.push(`${rel} -> ${spec} (past the entry of ${folder}/)`);
  }
  return bad;
}

/** Every static import of the source tree from outside a feature folder that names a file past its entry. */
export function pastEntry(): string[] {
  return Object.keys(LAYERS)
    .flatMap((l) => tsFiles(path.join(repo, l)))
    .flatMap((f) => pastEntryIn(path.relative(repo, f).split(path.sep).join('/'), fs.readFileSync(f, 'utf8')));
}

/** The source layers whose runtime import graph must have no cycle (scripts/ may import anything). */
const SOURCE_LAYERS = ['core', 'io', 'sources', 'operators', 'sinks', 'pipeline', 'hooks', 'cli', 'server', 'client'];

/** The runtime import graph of the source layers: repository path -> the repository paths it imports. */
export function runtimeGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_LAYERS.flatMap((l) => tsFiles(path.join(repo, l))).filter((f) => !f.endsWith('.d.ts'))) {
    const rel = path.relative(repo, file).split(path.sep).join('/');
    const targets = runtimeImports(fs.readFileSync(file, 'utf8')).map((s) =>
      path.posix.normalize(path.posix.join(path.posix.dirname(rel), s)).replace(/\.js$/, '.ts'),
    );
    graph.set(rel, targets);
  }
  return graph;
}

describe('architecture', () => {
  it('every import points down the layers: none up, none sideways', () => {
    expect(violations()).toEqual([]);
  });

  it('core/ imports no other folder of the project and does no I/O', () => {
    const files = tsFiles(path.join(repo, 'core'));
    const up = files.flatMap((f) =>
      relativeImports(fs.readFileSync(f, 'utf8'))
        .filter((s) => topFolder(path.resolve(path.dirname(f), s)) !== 'core')
        .map((s) => `${path.relative(repo, f)} -> ${s}`),
    );
    expect(up).toEqual([]);
    const io = files
      .filter((f) => /from 'node:(fs|net|child_process)'|process\.std(in|out|err)/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(repo, f));
    expect(io).toEqual([]);
  });

  it('every static import from outside a feature folder goes through its entry', () => {
    expect(pastEntry()).toEqual([]);
  });

  it('the entry rule names the file and the import past an entry, and lets the folder itself and import() through', () => {
    const src = [
      "import { a } from '../../sources/index/store.js';",
      "import { b } from '../../sources/index/index.js';",
      "const c = await import('../../sources/team/store.js');",
      "import { d } from './y.js';",
      "import { e } from '../config.js';",
    ].join('\n');
    expect(pastEntryIn('pipeline/recall/x.ts', src)).toEqual([
      'pipeline/recall/x.ts -> ../../sources/index/store.js (past the entry of sources/index/)',
    ]);
    expect(pastEntryIn('sources/index/x.ts', "import { s } from './store.js';")).toEqual([]);
  });

  it('the import scanner sees static, re-export, side-effect and dynamic imports', () => {
    const src = [
      "import { a } from '../pipeline/x.js';",
      "export { b } from './y.js';",
      "import '../sinks/z.js';",
      "const m = await import('../cli/w.js');",
      "import fs from 'node:fs';",
    ].join('\n');
    expect(relativeImports(src)).toEqual(['../pipeline/x.js', './y.js', '../sinks/z.js', '../cli/w.js']);
    expect(staticImports(src)).toEqual(['../pipeline/x.js', './y.js', '../sinks/z.js']);
  });

  it('the runtime imports of the source layers have no cycle', () => {
    expect(importCycles(runtimeGraph())).toEqual([]);
  });

  it('the folders of sources/ import each other one way: the index never imports the arms that search it', () => {
    // The folder graph of sources/ (its top-level files count as one folder, `sources`).
    const folders = new Map<string, Set<string>>();
    for (const [from, targets] of runtimeGraph()) {
      if (!from.startsWith('sources/')) continue;
      const a = featureFolder(from) ?? 'sources';
      for (const to of targets.filter((t) => t.startsWith('sources/'))) {
        const b = featureFolder(to) ?? 'sources';
        if (a !== b) folders.set(a, (folders.get(a) ?? new Set()).add(b));
      }
    }
    expect(folders.get('sources/index')?.has('sources/arms') ?? false).toBe(false);
    expect(importCycles(new Map([...folders].map(([k, v]) => [k, [...v]])))).toEqual([]);
  });

  it('the cycle check counts type-only imports out and names each cycle by its files', () => {
    const src = [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "export type { D } from './d.js';",
      "export { type E } from './e.js';",
      "import { F, type G } from './f.js';",
      "export { H } from './h.js';",
      "import './i.js';",
      "import J from './j.js';",
      "export * from './k.js';",
      "const l = await import('./l.js');",
    ].join('\n');
    expect(runtimeImports(src)).toEqual(['./f.js', './h.js', './i.js', './j.js', './k.js']);
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'x.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
      ['x.ts', []],
    ]);
    expect(importCycles(graph)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts', 'd.ts -> d.ts']);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('spec folders mirror the source tree', () => {
    // Folders of specs that are not about one source folder: shared helpers, fixtures, and suites
    // that drive the whole program from outside (hostile inputs, the skill, the scripts).
    const crossCutting = new Set(['helpers', 'fixtures', 'hostile', 'skills', 'scripts', 'golden']);
    const specDirs = fs
      .readdirSync(path.join(repo, 'spec'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !crossCutting.has(e.name))
      .map((e) => e.name);
    expect(specDirs.filter((d) => LAYERS[d] === undefined || !fs.existsSync(path.join(repo, d)))).toEqual([]);
  });
});
