// Enforces the house rules of ARCHITECTURE.md: the core and the protocol never import
// `vscode`; webviews import neither `vscode` nor Node built-ins; the core never reaches into
// the VS Code glue or the CLI. Exits 1 with every offending import, file and line.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { builtinModules } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const nodeBuiltins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const importRe = /(?:^|[^\w.])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w.])require\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name)) yield p;
  }
}

const rules = [
  { dir: 'extension/core', forbid: (spec, abs) => spec === 'vscode' || /extension\/(vscode|cli)\//.test(abs), why: 'extension/core must not import vscode, the VS Code glue or the CLI' },
  { dir: 'extension/protocol', forbid: (spec, abs) => spec === 'vscode' || (spec.startsWith('.') && !abs.includes('/extension/protocol/')), why: 'extension/protocol depends on nothing but zod' },
  { dir: 'webview', forbid: (spec) => spec === 'vscode' || nodeBuiltins.has(spec), why: 'webview must not import vscode or Node built-ins' },
];

const problems = [];
for (const rule of rules) {
  for (const file of files(join(root, rule.dir))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
      const abs = spec.startsWith('.') ? join(file, '..', spec) : spec;
      if (rule.forbid(spec, abs)) {
        const line = text.slice(0, m.index).split('\n').length;
        problems.push(`${relative(root, file)}:${line}: imports '${spec}' (${rule.why})`);
      }
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log('layers: ok');
