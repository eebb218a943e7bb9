/**
 * The documentation a newcomer reads is held to what the code and the tree say: the README's
 * first screen has the two commands and the demo, every relative link reaches a file, the
 * settings page lists exactly the settings package.json contributes, and every benchmark row
 * names a benchmark that exists, with a date.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'ARCHITECTURE.md',
  'bench/RESULTS.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the documentation', () => {
  test("the README's first screen gives the two commands and the demo", () => {
    const firstScreen = read('README.md').split('\n').slice(0, 45).join('\n');
    assert.match(firstScreen, /^npm start\b/m);
    assert.match(firstScreen, /^bash scripts\/setup\.sh && npm test\b/m);
    assert.match(firstScreen, /^## Demo \(five minutes\)$/m);
  });

  test('every relative link and image in the docs reaches a file in the tree', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const m of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (!target || /^[a-z]+:/i.test(target)) continue;
        if (!existsSync(path.join(root, path.dirname(doc), target))) broken.push(`${doc}: ${m[1]}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test('docs/settings.md lists exactly the settings package.json contributes, each with its default', () => {
    const pkg = JSON.parse(read('package.json')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } | { properties: Record<string, { default?: unknown }> }[] };
    };
    const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const contributed = new Map(sections.flatMap((s) => Object.entries(s.properties)));
    const rows = [...read('docs/settings.md').matchAll(/^\| `(sweWorkbench\.[^`]+)` \| [^|]* \| ([^|]*) \|/gm)].map((m) => ({
      name: m[1]!,
      dflt: m[2]!.trim(),
    }));
    assert.deepEqual(rows.map((r) => r.name).sort(), [...contributed.keys()].sort());
    for (const { name, dflt } of rows) {
      const expected = contributed.get(name)!.default;
      assert.equal(dflt, expected === undefined ? '' : `\`${JSON.stringify(expected)}\``, `${name}'s default`);
    }
  });

  test('every row of bench/RESULTS.md names a benchmark file that exists and the date of its run', () => {
    const rows = read('bench/RESULTS.md')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    assert.ok(rows.length > 10, 'the results table has its rows');
    for (const row of rows) {
      const cells = row.split(' | ');
      for (const file of cells[0]!.matchAll(/`([^`]+\.ts)`/g)) assert.ok(existsSync(path.join(root, 'bench', file[1]!)), `bench/${file[1]} exists`);
      assert.match(cells[2]!, /^\d{4}-\d{2}-\d{2}$/, `${cells[0]} has the date of its run`);
    }
  });
});
