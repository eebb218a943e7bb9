// Type-checks each layer with its own tsconfig (see ARCHITECTURE.md): the core, protocol,
// presenters and CLI without DOM or vscode; the protocol and presenters, with the core they
// import, without Node types; the webviews without Node or vscode; the VS Code glue
// without DOM; then tests, benchmarks and scripts with everything. Exits 1 if any fails.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const layers = ['tsconfig.core.json', 'tsconfig.pure.json', 'tsconfig.webview.json', 'tsconfig.vscode.json', 'tsconfig.json'];
let failed = 0;
for (const config of layers) {
  const r = spawnSync(process.execPath, [tsc, '-p', config, '--noEmit'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`typecheck: ${config} failed`);
    failed++;
  }
}
if (failed === 0) console.log(`typecheck: ok (${layers.join(', ')})`);
process.exit(failed === 0 ? 0 : 1);
