// A family is one folder and one line in extension/families.ts: no other production file names it, by its
// name as a string (`'swe-agent'`, `` `r2e-gym@${v}` ``) or by importing its folder. ESLint holds the imports
// (eslint.config.mjs); this counts both, for every family, over the code the program ships.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../../helpers/trajectoryFiles';

const SCAFFOLDS = path.join(repoRoot, 'extension/core/scaffolds');
const families = readdirSync(SCAFFOLDS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

function productionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? productionFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** What a source names: its strings (and template pieces), and the absolute paths its relative imports and exports lead to. */
function namesIn(file: string, text: string): { strings: string[]; imports: string[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const strings: string[] = [];
  const imports: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      if (spec.startsWith('.')) imports.push(path.resolve(path.dirname(file), spec));
      return;
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) strings.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { strings, imports };
}

/** Whether the source `text` of `file` names `family`: a string that is its name (or `name@...`), or an import of its folder. */
function namesFamily(file: string, text: string, family: string, names = namesIn(file, text)): boolean {
  const folder = path.join(SCAFFOLDS, family);
  return (
    names.strings.some((s) => s === family || s.startsWith(`${family}@`)) ||
    names.imports.some((target) => target === folder || target.startsWith(folder + path.sep))
  );
}

let parsed: Array<{ file: string; names: ReturnType<typeof namesIn> }> | undefined;

/** The production files outside `family`'s folder that name it, relative to the checkout (each file parsed once). */
function filesNaming(family: string): string[] {
  parsed ??= [...productionFiles(path.join(repoRoot, 'extension')), ...productionFiles(path.join(repoRoot, 'webview'))].map((file) => ({
    file,
    names: namesIn(file, readFileSync(file, 'utf8')),
  }));
  const own = path.join(SCAFFOLDS, family) + path.sep;
  return parsed
    .filter(({ file, names }) => !file.startsWith(own) && namesFamily(file, '', family, names))
    .map(({ file }) => path.relative(repoRoot, file))
    .sort();
}

describe('each scaffold family is named only in its folder and extension/families.ts', () => {
  test('the count sees a name string, a versioned name and an import of the folder, and not a comment or another name', () => {
    const file = path.join(repoRoot, 'extension/core/session/probe.ts');
    assert.equal(namesFamily(file, "if (scaffold.name === 'swe-agent') run();", 'swe-agent'), true);
    assert.equal(namesFamily(file, 'const spec = `swe-agent@${version}`;', 'swe-agent'), true);
    assert.equal(namesFamily(file, "import { toolSetFor } from '../scaffolds/swe-agent/tools/standardTools';", 'swe-agent'), true);
    assert.equal(namesFamily(file, "export { r2eGymFamily } from '../scaffolds/r2e-gym';", 'r2e-gym'), true);
    assert.equal(namesFamily(file, "// SWE-agent's 'swe-agent' format\nconst f = 'mini-swe-agent';", 'swe-agent'), false);
    assert.equal(namesFamily(file, "import { chooseScaffold } from '../scaffolds/registry';", 'swe-agent'), false);
  });

  test('the five families are all in core/scaffolds', () => {
    for (const family of ['swe-agent', 'mini-swe-agent', 'r2e-gym', 'openhands', 'terminus-2']) assert.ok(families.includes(family), family);
  });

  for (const family of families) {
    test(`${family}: extension/families.ts alone, outside its folder`, () => {
      assert.deepEqual(filesNaming(family), ['extension/families.ts']);
    });
  }
});
