// The runtime import graph's two pieces the architecture spec checks: which static imports load a
// module at run time, and the cycles of a graph of files.
import ts from 'typescript';

/** True when an import or re-export brings in types only (`import type`, `export type`, `{ type X }` alone). */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return false;
    if (clause.isTypeOnly) return true;
    const named = clause.namedBindings;
    return (
      clause.name === undefined &&
      named !== undefined &&
      ts.isNamedImports(named) &&
      named.elements.length > 0 &&
      named.elements.every((e) => e.isTypeOnly)
    );
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Relative specifiers of the static imports and re-exports of a file that load a module at run time. */
export function runtimeImports(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return file.statements.flatMap((node) => {
    if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) return [];
    const spec = node.moduleSpecifier;
    if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith('.') || typeOnly(node)) return [];
    return [spec.text];
  });
}

/** Every cycle of a graph, one per strongly connected component of two files or more (or a self-import), as "a -> b -> a". */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  // Tarjan's strongly connected components, then one shortest cycle through each component's first file.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, order.size);
    low.set(v, order.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const c: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      c.push(w);
      if (w === v) break;
    }
    if (c.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(c.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!order.has(v)) visit(v);
  return components.map((c) => cycleThrough(graph, c[0]!, new Set(c)).join(' -> '));
}

/** The shortest path from `start` back to itself inside one component (breadth first). */
function cycleThrough(graph: ReadonlyMap<string, readonly string[]>, start: string, inside: Set<string>): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]!) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const between: string[] = [];
        for (let v = queue[i]!; v !== start; v = prev.get(v)!) between.unshift(v);
        return [start, ...between, start];
      }
      if (!prev.has(w) && w !== start) {
        prev.set(w, queue[i]!);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
