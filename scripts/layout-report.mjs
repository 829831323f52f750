// Layout figures of the source tree, rerunnable on any checkout (no build needed):
//   node scripts/layout-report.mjs [--json]
// Files per folder, and the relative imports of the source layers (specs counted apart): in total,
// across layers, across folders, and past a feature folder's entry. A feature folder is a folder
// below a layer folder (sources/index/); its entry is its index.ts, and an import from outside the
// folder that names another of its files goes past the entry (spec/architecture.test.ts forbids
// that for static imports). Files at a layer's top that share a name prefix (sources/team-*.ts) are
// counted as prefix groups: a flat stand-in for a folder. Import cycles: the strongly connected
// components of the runtime import graph of the source layers (static imports and re-exports;
// `import type`, `export type` and `{ type X }`-only ones left out), between files and between
// feature folders; the spec checks the same file graph has none.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS = ['core', 'io', 'sources', 'operators', 'sinks', 'pipeline', 'hooks', 'cli', 'server', 'client', 'scripts'];
const SOURCE = /\.(ts|mjs)$/;
const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'golden' ? [] : walk(p);
    return SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const rel = (p) => path.relative(root, p).split(path.sep).join('/');
const featureFolder = (p) => {
  const parts = p.split('/');
  return parts.length >= 3 && LAYERS.includes(parts[0]) ? `${parts[0]}/${parts[1]}` : null;
};
const prefixOf = (p) => {
  const parts = p.split('/');
  return parts.length === 2 ? `${parts[0]}/${parts[1].split(/[-.]/)[0]}` : null;
};

const CYCLE_LAYERS = LAYERS.filter((l) => l !== 'scripts');

function typeOnly(node) {
  const clause = ts.isImportDeclaration(node) ? node.importClause : node.exportClause;
  if (ts.isImportDeclaration(node) && clause === undefined) return false;
  if ((ts.isImportDeclaration(node) ? clause : node).isTypeOnly) return true;
  const named = ts.isImportDeclaration(node) ? (clause.name === undefined ? clause.namedBindings : undefined) : clause;
  return (
    named !== undefined &&
    (ts.isNamedImports(named) || ts.isNamedExports(named)) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/** Targets (repository paths) of a file's static runtime imports and re-exports. */
function runtimeTargets(f) {
  const file = ts.createSourceFile(f, fs.readFileSync(path.join(root, f), 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return file.statements
    .filter((n) => (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
    .filter((n) => n.moduleSpecifier.text.startsWith('.') && !typeOnly(n))
    .map((n) => path.posix.normalize(path.posix.join(path.posix.dirname(f), n.moduleSpecifier.text)).replace(/\.js$/, '.ts'));
}

/** Strongly connected components of two nodes or more, or with a self-edge (Tarjan). */
function cycles(graph) {
  const order = new Map();
  const low = new Map();
  const stack = [];
  const out = [];
  const visit = (v) => {
    order.set(v, order.size);
    low.set(v, order.get(v));
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v), order.get(w)));
    }
    if (low.get(v) !== order.get(v)) return;
    const c = [];
    for (let w = stack.pop(); ; w = stack.pop()) {
      c.push(w);
      if (w === v) break;
    }
    if (c.length > 1 || graph.get(v).includes(v)) out.push(c.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!order.has(v)) visit(v);
  return out;
}

function importCycles(files) {
  const fileGraph = new Map();
  const folderGraph = new Map();
  for (const f of files.filter((x) => x.endsWith('.ts') && CYCLE_LAYERS.includes(x.split('/')[0]))) {
    const targets = runtimeTargets(f);
    fileGraph.set(f, targets);
    const from = featureFolder(f) ?? path.posix.dirname(f);
    const edges = folderGraph.get(from) ?? new Set();
    for (const t of targets) {
      const to = featureFolder(t) ?? path.posix.dirname(t);
      if (to !== from) edges.add(to);
    }
    folderGraph.set(from, edges);
  }
  const folders = new Map([...folderGraph].map(([k, v]) => [k, [...v]]));
  return { files: cycles(fileGraph), folders: cycles(folders) };
}

function report() {
  const files = LAYERS.flatMap((l) => walk(path.join(root, l))).map(rel);
  const specs = walk(path.join(root, 'spec')).map(rel);
  const perFolder = {};
  for (const f of files) perFolder[path.posix.dirname(f)] = (perFolder[path.posix.dirname(f)] ?? 0) + 1;
  const prefixSize = {};
  for (const f of files) if (prefixOf(f)) prefixSize[prefixOf(f)] = (prefixSize[prefixOf(f)] ?? 0) + 1;
  const zero = () => ({ total: 0, crossLayer: 0, crossFolder: 0, pastEntry: 0, pastEntryStatic: 0, intoPrefixGroup: 0 });
  const counts = { source: zero(), spec: zero() };
  const pastEntryTargets = {};
  for (const f of [...files, ...specs]) {
    const c = f.startsWith('spec/') ? counts.spec : counts.source;
    for (const m of fs.readFileSync(path.join(root, f), 'utf8').matchAll(IMPORT_RE)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), m[2]));
      c.total += 1;
      if (target.split('/')[0] !== f.split('/')[0]) c.crossLayer += 1;
      if (path.posix.dirname(target) !== path.posix.dirname(f)) c.crossFolder += 1;
      const folder = featureFolder(target);
      if (folder && !f.startsWith(`${folder}/`) && !/^index\.(js|ts|mjs)$/.test(path.posix.basename(target))) {
        c.pastEntry += 1;
        if (!/^import\s*\(/.test(m[0])) c.pastEntryStatic += 1;
        if (c === counts.source) pastEntryTargets[target] = (pastEntryTargets[target] ?? 0) + 1;
      }
      const group = prefixOf(target.replace(/\.js$/, '.ts'));
      if (group && (prefixSize[group] ?? 0) >= 3 && prefixOf(f) !== group) c.intoPrefixGroup += 1;
    }
  }
  const layers = Object.fromEntries(LAYERS.map((l) => [l, files.filter((f) => f.startsWith(`${l}/`)).length]));
  const prefixGroups = Object.fromEntries(Object.entries(prefixSize).filter(([, n]) => n >= 3));
  const runtimeCycles = importCycles(files);
  return { files: files.length, specs: specs.length, layers, perFolder, prefixGroups, imports: counts, pastEntryTargets, runtimeCycles };
}

const r = report();
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
} else {
  const lines = [`source files: ${r.files} (specs: ${r.specs})`, '', 'files per layer:'];
  for (const [l, n] of Object.entries(r.layers)) lines.push(`  ${l.padEnd(10)} ${n}`);
  lines.push('', 'files per folder (directly inside):');
  for (const [d, n] of Object.entries(r.perFolder).sort()) lines.push(`  ${d.padEnd(28)} ${n}`);
  lines.push('', 'prefix groups at a layer top (3 files or more):');
  for (const [g, n] of Object.entries(r.prefixGroups).sort()) lines.push(`  ${`${g}-*`.padEnd(28)} ${n}`);
  lines.push('', 'relative imports          source   spec');
  const row = (name, k) =>
    lines.push(`  ${name.padEnd(24)}${String(r.imports.source[k]).padStart(6)} ${String(r.imports.spec[k]).padStart(6)}`);
  row('total', 'total');
  row('across layers', 'crossLayer');
  row('across folders', 'crossFolder');
  row('past an entry', 'pastEntry');
  row('  of them static', 'pastEntryStatic');
  row('into a prefix group', 'intoPrefixGroup');
  const { files: fileCycles, folders: folderCycles } = r.runtimeCycles;
  lines.push('', 'runtime import cycles (source layers, type-only imports left out):');
  lines.push(`  between files           ${String(fileCycles.length).padStart(6)}  (${fileCycles.flat().length} files in them)`);
  lines.push(`  between folders         ${String(folderCycles.length).padStart(6)}  (${folderCycles.flat().length} folders in them)`);
  for (const c of [...fileCycles, ...folderCycles]) lines.push(`    ${c.join(' ')}`);
  const top = Object.entries(r.pastEntryTargets).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (top.length > 0) {
    lines.push('', 'most imported past an entry (source files):');
    for (const [t, n] of top.slice(0, 10)) lines.push(`  ${String(n).padStart(3)}  ${t}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
