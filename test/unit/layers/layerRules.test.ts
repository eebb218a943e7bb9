import '../../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { repoRoot } from '../../helpers/trajectoryFiles';

/** Lints files written into the real tree with the project's own eslint.config.mjs; each file is removed after. */
async function lintProbe(files: Record<string, string>): Promise<Map<string, string[]>> {
  const paths = Object.keys(files).map((relative) => path.join(repoRoot, relative));
  const made: string[] = [];
  try {
    for (const [relative, text] of Object.entries(files)) {
      const dir = path.dirname(path.join(repoRoot, relative));
      if (!existsSync(dir)) (mkdirSync(dir, { recursive: true }), made.push(dir));
      writeFileSync(path.join(repoRoot, relative), text);
    }
    const results = await new ESLint({ cwd: repoRoot }).lintFiles(paths);
    return new Map(results.map((r) => [path.relative(repoRoot, r.filePath), r.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`)]));
  } finally {
    for (const p of paths) rmSync(p, { force: true });
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Type-checks one file written into the real tree with a layer's tsconfig; the file is removed
 * after. The messages are the probe's own, or with `everywhere` those of every file it reaches.
 */
function typecheckProbe(config: string, relative: string, text: string, everywhere = false): string[] {
  const file = path.join(repoRoot, relative);
  try {
    writeFileSync(file, text);
    const read = ts.readConfigFile(path.join(repoRoot, config), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot, undefined, path.join(repoRoot, config));
    const program = ts.createProgram([file], { ...parsed.options, noEmit: true });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => everywhere || d.file?.fileName === file)
      .map((d) => `${d.file ? path.relative(repoRoot, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } finally {
    rmSync(file, { force: true });
  }
}

const probe = `layer-probe-${process.pid}`;

describe('the layers are held by ESLint and the layer tsconfigs', () => {
  test('ESLint fails a forbidden import in each layer and passes an allowed one', async () => {
    const found = await lintProbe({
      [`extension/core/${probe}.ts`]: "import * as vscode from 'vscode';\nexport const w = vscode;\n",
      [`extension/core/aci/${probe}.ts`]: "import type { Step } from '../trajectory/model';\nexport type S = Step;\n",
      // The tool host names no family: a family's tools come to it as a ToolSet.
      [`extension/core/aci/${probe}-family.ts`]: "import { toolSetFor } from '../scaffolds/swe-agent/tools/standardTools';\nexport const t = toolSetFor;\n",
      [`extension/core/parsing/${probe}.ts`]: "import { ToolSet } from '../aci/toolRegistry';\nexport const t = ToolSet;\n",
      [`webview/${probe}.ts`]: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      // A view's entry starts through startView, so a failure to start shows what failed.
      [`webview/${probe}/main.ts`]: "import { connectToVsCode } from '../host';\nexport const c = connectToVsCode;\n",
      [`extension/views/${probe}.ts`]: "import { window } from 'vscode';\nexport const w = window;\n",
      [`extension/core/reward/${probe}.ts`]: "import * as aci from '../aci';\nexport const a = aci;\n",
      [`extension/core/trajectory/importers/${probe}.ts`]: "import * as session from '../../session';\nexport const s = session;\n",
      [`extension/cli/${probe}.ts`]: "import { Disposable } from '../vscode/dispose';\nexport const d = Disposable;\n",
      [`extension/protocol/${probe}.ts`]: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      [`extension/views/${probe}-node.ts`]: "import path from 'path';\nexport const p = path;\n",
      [`extension/core/session/${probe}.ts`]:
        "import type { Step } from '../trajectory/model';\nimport { errorText } from '../errors';\nexport type S = Step;\nexport const e = errorText;\n",
      // A family is reached through core/scaffolds/registry and scaffold alone: not from the session, the CLI, the glue,
      // the presenters, the registry or another family.
      [`extension/core/session/${probe}-family.ts`]:
        "import { chooseScaffold } from '../scaffolds/registry';\nimport { sweAgentFamily } from '../scaffolds/swe-agent';\nexport const c = [chooseScaffold, sweAgentFamily];\n",
      [`extension/cli/${probe}-family.ts`]: "import { toolSetFor } from '../core/scaffolds/swe-agent/tools/standardTools';\nexport const t = toolSetFor;\n",
      [`extension/vscode/${probe}-family.ts`]: "import { r2eGymImage } from '../core/scaffolds/r2e-gym/image';\nexport const i = r2eGymImage;\n",
      [`extension/views/${probe}-family.ts`]: "import { terminus2Family } from '../core/scaffolds/terminus-2';\nexport const f = terminus2Family;\n",
      [`extension/core/scaffolds/${probe}.ts`]: "import { openHandsFamily } from './openhands';\nexport const f = openHandsFamily;\n",
      [`extension/core/scaffolds/r2e-gym/${probe}.ts`]:
        "import { DEFAULT_OBSERVATION_TEMPLATE } from '../../policy/context';\nimport { toolSetFor } from '../swe-agent/tools/standardTools';\nexport const t = [toolSetFor, DEFAULT_OBSERVATION_TEMPLATE];\n",
      [`extension/core/scaffolds/swe-agent/${probe}.ts`]:
        "import { toolSetFor } from './tools/standardTools';\nimport type { Scaffold } from '../scaffold';\nexport const t = toolSetFor;\nexport type S = Scaffold;\n",
    });
    const messages = (layer: string, suffix = '') => (found.get(`${layer}/${probe}${suffix}.ts`) ?? []).join('\n');
    assert.match(messages('extension/core'), /no-restricted-imports: 'vscode' import is restricted.*only extension\/vscode talks to the VS Code API/);
    assert.match(messages('extension/core/aci'), /core\/aci may import only core\/parsing, core\/runtime/);
    assert.match(messages('extension/core/aci', '-family'), /core\/aci may import only core\/parsing, core\/runtime/);
    assert.match(messages('extension/core/parsing'), /core\/parsing may import only the root files of core/);
    assert.match(messages('webview'), /'node:fs' import is restricted.*webviews run in a browser/);
    assert.match(
      (found.get(`webview/${probe}/main.ts`) ?? []).join('\n'),
      /'connectToVsCode' import from '..\/host' is restricted.*starts through ..\/startView/,
    );
    assert.match(messages('extension/views'), /'vscode' import is restricted/);
    assert.match(messages('extension/core/reward'), /core\/reward may import only core\/diff, core\/input, core\/trajectory/, 'a bare ../aci');
    assert.match(messages('extension/core/trajectory/importers'), /core\/trajectory may import only/, 'a bare ../../session');
    assert.match(messages('extension/cli'), /the CLI is the headless twin/);
    assert.match(messages('extension/protocol'), /'node:fs' import is restricted.*shared with the webviews: no Node/);
    assert.match(messages('extension/views', '-node'), /'path' import is restricted.*presenters are pure: no Node/);
    assert.equal(messages('extension/core/session'), '', 'the session may import the trajectory model and the errors');
    const family = /a family is reached through core\/scaffolds\/registry and core\/scaffolds\/scaffold; only extension\/families\.ts names one/;
    for (const layer of ['extension/core/session', 'extension/cli', 'extension/vscode', 'extension/views']) {
      assert.match(messages(layer, '-family'), family, layer);
      assert.equal(messages(layer, '-family').split('\n').length, 1, `${layer}: the registry is allowed, the family is not`);
    }
    assert.match(messages('extension/core/scaffolds'), family, "the registry's folder names no family");
    assert.match(messages('extension/core/scaffolds/r2e-gym'), family, 'a family does not import another');
    assert.equal(messages('extension/core/scaffolds/r2e-gym').split('\n').length, 1, 'a family may import the policy layer');
    assert.equal(messages('extension/core/scaffolds/swe-agent'), '', 'a family imports its own folder and the interface');
  });

  test('the VS Code glue tsconfig has Node and the vscode API but no DOM', () => {
    const glue = typecheckProbe(
      'tsconfig.vscode.json',
      `extension/vscode/${probe}.ts`,
      "import * as vscode from 'vscode';\nimport { readFileSync } from 'node:fs';\nexport const w = vscode.window;\nexport const r = readFileSync;\nexport const b = document.body;\n",
    );
    assert.deepEqual(
      glue.filter((m) => !/Cannot find name 'document'/.test(m)),
      [],
      'vscode and Node resolve',
    );
    assert.ok(
      glue.some((m) => /Cannot find name 'document'/.test(m)),
      glue.join('\n'),
    );
  });

  test('the core tsconfig has no DOM and no vscode API; the webview tsconfig has no Node', () => {
    const core = typecheckProbe(
      'tsconfig.core.json',
      `extension/core/${probe}.ts`,
      "import * as vscode from 'vscode';\nexport const w = vscode.window;\nexport const b = document.body;\n",
    );
    assert.ok(
      core.some((m) => /Property 'window' does not exist/.test(m)),
      core.join('\n'),
    );
    assert.ok(
      core.some((m) => /Cannot find name 'document'/.test(m)),
      core.join('\n'),
    );
    const webview = typecheckProbe(
      'tsconfig.webview.json',
      `webview/${probe}.ts`,
      "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\nexport const b = document.body;\n",
    );
    assert.ok(
      webview.some((m) => /Cannot find module 'node:fs'/.test(m)),
      webview.join('\n'),
    );
    assert.equal(webview.filter((m) => /document/.test(m)).length, 0, 'the webview has the DOM');
  });

  test('the protocol and the presenters compile without Node types, and so must the core they import', () => {
    const view = typecheckProbe(
      'tsconfig.pure.json',
      `extension/views/${probe}.ts`,
      "export const b = Buffer.from('x');\nexport const s = new AbortController().signal;\nexport const t = new TextEncoder().encode('x');\n",
    );
    assert.deepEqual(view, [
      `extension/views/${probe}.ts: Cannot find name 'Buffer'. Do you need to install type definitions for node? Try \`npm i --save-dev @types/node\` and then add 'node' to the types field in your tsconfig.`,
    ]);
    // A presenter that imports a core module reading files fails in that module, not in the presenter.
    const reaching = typecheckProbe(
      'tsconfig.pure.json',
      `extension/views/${probe}.ts`,
      "import { readInputText } from '../core/input/readInput';\nexport const r = readInputText;\n",
      true,
    );
    assert.ok(
      reaching.some((m) => /^extension\/core\/input\/inputSource\.ts: Cannot find module 'node:fs'/.test(m)),
      reaching.join('\n'),
    );
    assert.equal(
      typecheckProbe(
        'tsconfig.pure.json',
        `extension/views/${probe}.ts`,
        "import { parseReport } from '../core/reward/reports';\nexport const p = parseReport;\n",
        true,
      ).length,
      0,
    );
  });
});

/** ESLint's CORE table, read from eslint.config.mjs: each core folder and the folders it may import, lowest first. */
function eslintCoreTable(): [string, string[]][] {
  const text = readFileSync(path.join(repoRoot, 'eslint.config.mjs'), 'utf8');
  const body = /^const CORE = \{\n([\s\S]*?)\n\};$/m.exec(text)?.[1];
  assert.ok(body, 'eslint.config.mjs declares const CORE = { ... };');
  return body.split('\n').map((line) => {
    const row = /^ {2}(\w+): \[(.*)\],$/.exec(line);
    assert.ok(row, `eslint.config.mjs CORE: unexpected line '${line}'`);
    return [row[1]!, [...row[2]!.matchAll(/'(\w+)'/g)].map((m) => m[1]!)];
  });
}

/** ARCHITECTURE.md's table of core folders: | `folder/` | holds | may import (nothing in core, or a list; a parenthesis explains) |. */
function architectureCoreTable(): [string, string[]][] {
  const text = readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('| Core folder | Holds | May import |');
  assert.ok(start >= 0, 'ARCHITECTURE.md has the core folder table');
  const rows = text.slice(start).split('\n').slice(2);
  return rows
    .slice(
      0,
      rows.findIndex((l) => !l.startsWith('|')),
    )
    .map((line) => {
      const cells = line.split(' | ');
      const folder = /^\| `(\w+)\/`$/.exec(cells[0]!)?.[1];
      assert.ok(folder, `ARCHITECTURE.md: a core folder row starts with its folder: '${line.slice(0, 60)}'`);
      const mayImport = cells
        .at(-1)!
        .replace(/ \|$/, '')
        .replace(/\([^)]*\)/g, '')
        .trim();
      return [folder, mayImport === 'nothing in core' ? [] : mayImport.split(',').map((f) => f.trim())];
    });
}

describe("ARCHITECTURE.md's core layers and ESLint's", () => {
  test('name the same folders in the same order, each allowed the same imports', () => {
    const eslint = eslintCoreTable();
    const architecture = architectureCoreTable();
    assert.deepEqual(
      architecture.map(([folder]) => folder),
      eslint.map(([folder]) => folder),
    );
    for (const [folder, allowed] of eslint) assert.deepEqual([...new Map(architecture).get(folder)!].sort(), [...allowed].sort(), `core/${folder} may import`);
  });

  test('every core folder on disk is in the table', () => {
    const folders = readdirSync(path.join(repoRoot, 'extension/core'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    assert.deepEqual(
      folders,
      eslintCoreTable()
        .map(([f]) => f)
        .sort(),
    );
  });
});
