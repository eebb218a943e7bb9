// Builds every bundle: the extension host (node/cjs, `vscode` external), the CLI, and one
// browser bundle per webview entry (webview/<view>/main.ts -> media/dist/<view>.js).
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, mkdirSync, cpSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const root = new URL('..', import.meta.url).pathname;

// ssh2 (dockerode's ssh:// transport) tries native `.node` add-ons inside try/catch and falls
// back to pure JavaScript, so leaving the add-ons out keeps the bundle self-contained.
// pyright is not code we call: its language server runs as a file inside the sandbox, from the
// copy the bundles carry beside them (below).
const nodeExternals = ['vscode', 'cpu-features', '*.node', 'pyright'];

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

const builds = [];
if (existsSync(join(root, 'extension/vscode/extension.ts'))) {
  builds.push({
    ...common,
    // The rollout index's worker thread, a file of its own beside the bundles that start it.
    entryPoints: { extension: 'extension/vscode/extension.ts', rolloutIndexWorker: 'extension/rolloutIndexWorker.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
  });
}
if (existsSync(join(root, 'extension/cli/main.ts'))) {
  builds.push({
    ...common,
    entryPoints: { cli: 'extension/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: nodeExternals,
    banner: { js: '#!/usr/bin/env node' },
  });
}
const webviewRoot = join(root, 'webview');
const webviewEntries = {};
if (existsSync(webviewRoot)) {
  for (const name of readdirSync(webviewRoot)) {
    const entry = join('webview', name, 'main.ts');
    if (existsSync(join(root, entry))) webviewEntries[name] = entry;
  }
}
if (Object.keys(webviewEntries).length > 0) {
  builds.push({
    ...common,
    entryPoints: webviewEntries,
    outdir: 'media/dist',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    loader: { '.css': 'text' },
  });
}

// Codicons ship a font and stylesheet that webviews load from the extension's media folder.
const codicons = join(root, 'node_modules/@vscode/codicons/dist');
if (existsSync(codicons)) {
  mkdirSync(join(root, 'media/dist/codicons'), { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) cpSync(join(codicons, f), join(root, 'media/dist/codicons', f));
}

// Pyright's language server, beside the bundles that start it (dist/node_modules/pyright), as the
// .vsix carries it: an installed extension has no other node_modules, and the bundles look for it
// only there (extension/core/aci/lspServer.ts, locatePyright). Its source maps are left out (2.7 MB
// the server never reads). Copied to a temporary folder and renamed, so a copy of the pinned
// version is complete and is kept as it is.
const pyrightPackage = join(root, 'node_modules/pyright');
const carried = join(root, 'dist/node_modules/pyright');
const version = (folder) => (existsSync(join(folder, 'package.json')) ? JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version : undefined);
if (!existsSync(join(pyrightPackage, 'langserver.index.js'))) throw new Error(`build: ${pyrightPackage} is missing or incomplete; run npm ci`);
if (version(carried) !== version(pyrightPackage)) {
  const partial = `${carried}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  for (const f of ['package.json', 'LICENSE.txt', 'langserver.index.js']) cpSync(join(pyrightPackage, f), join(partial, f));
  cpSync(join(pyrightPackage, 'dist'), join(partial, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') });
  rmSync(carried, { recursive: true, force: true });
  renameSync(partial, carried);
}

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
  console.log('watching for changes');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
