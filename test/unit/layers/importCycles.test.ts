import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../../helpers/trajectoryFiles';

/** Every production source file under `extension/` and `webview/`, relative to the repository. */
function productionFiles(): string[] {
  const files: string[] = [];
  for (const folder of ['extension', 'webview'])
    for (const entry of readdirSync(path.join(repoRoot, folder), { recursive: true, withFileTypes: true }))
      if (entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
        files.push(path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
  return files.sort();
}

/** The production files `file` imports (type-only imports and re-exports too: a circle of types is still a circle). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(repoRoot, file), 'utf8'), true, true);
  const out: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = path.join(path.dirname(file), fileName);
    const found = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => existsSync(path.join(repoRoot, candidate)));
    if (found) out.push(found);
  }
  return out;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan's algorithm). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the production import graph has no circle, not even through a type-only import', () => {
  const graph = new Map(productionFiles().map((file) => [file, importsOf(file)]));
  assert.ok(graph.size > 300, `the production files were found: ${graph.size}`);
  assert.deepEqual(circles(graph), [], 'move what both sides need into the lower file, or a file of its own');
});

test('a circle is found: two files importing each other, and a longer ring', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['a.ts', 'c.ts']],
    ['c.ts', ['d.ts']],
    ['d.ts', ['e.ts']],
    ['e.ts', ['c.ts']],
    ['f.ts', ['a.ts']],
  ]);
  assert.deepEqual(circles(graph), [
    ['c.ts', 'd.ts', 'e.ts'],
    ['a.ts', 'b.ts'],
  ]);
});
