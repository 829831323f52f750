/**
 * The dependency rule of the source tree, checked on every import (static and dynamic):
 *
 *   core/                      shared vocabulary; imports nothing of the project
 *   sources/ operators/ sinks/ the parts; import core/ only, never each other
 *   pipeline/                  the composition; imports the parts and core/
 *   hooks/                     hook logic and entries; imports the pipeline and below
 *   cli/                       commands and tools; imports anything below
 *   server/                    the recall server and its thin client; runs hooks and the CLI
 *   scripts/                   build, eval and bench scripts; import anything
 *
 * An import that points up (a part importing the pipeline) or sideways (an operator importing a
 * source) fails this test, with the file and the import named.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Layer of each top-level source folder; a folder may import its own layer only when it is itself. */
export const LAYERS: Readonly<Record<string, number>> = {
  core: 0,
  sources: 1,
  operators: 1,
  sinks: 1,
  pipeline: 2,
  hooks: 3,
  cli: 4,
  server: 5,
  scripts: 6,
};

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative specifiers of every `import … from`, `export … from` and `import()` in a file. */
export function relativeImports(source: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;
  for (const m of source.matchAll(re)) out.push(m[2]!);
  return out;
}

/** The top-level folder a path inside the repository belongs to. */
function topFolder(abs: string): string {
  return path.relative(repo, abs).split(path.sep)[0]!;
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

describe('architecture', () => {
  it('every import points down the layers: none up, none sideways', () => {
    expect(violations()).toEqual([]);
  });

  it('core/ imports no other folder of the project', () => {
    const up = tsFiles(path.join(repo, 'core')).flatMap((f) =>
      relativeImports(fs.readFileSync(f, 'utf8'))
        .filter((s) => topFolder(path.resolve(path.dirname(f), s)) !== 'core')
        .map((s) => `${path.relative(repo, f)} -> ${s}`),
    );
    expect(up).toEqual([]);
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
