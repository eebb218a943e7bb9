/**
 * The documentation a newcomer reads is held to what the code and the tree say: the README's
 * first screen has the two commands and the demo, every relative link reaches a file, the
 * settings page lists exactly the settings package.json contributes, and every benchmark row
 * names a benchmark that exists, with a date.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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

  test("the extension's page (docs/extension.md) is made from the README's feature list", () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/extension-readme.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    for (const name of ['ATIF', 'Harbor', 'Terminus-2', 'mini-swe-agent', 'OpenHands', 'R2E-Gym']) assert.match(read('docs/extension.md'), new RegExp(name));
  });

  test('bench/RESULTS.md has one current line per benchmark: its file, command, figure and date', () => {
    const rows = read('bench/RESULTS.md')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    assert.ok(rows.length > 10, 'the results table has its rows');
    const named = new Set<string>();
    for (const row of rows) {
      const cells = row.replace(/^\| | \|$/g, '').split(' | ');
      assert.equal(cells.length, 5, `${cells[0]}: benchmark, command, compares, figure, date`);
      const file = /^`([^`]+\.ts)`/.exec(cells[0]!)?.[1];
      assert.ok(file && existsSync(path.join(root, 'bench', file)), `${cells[0]} names a file under bench/`);
      assert.ok(cells[1]!.includes(`bench/${file}`) || cells[1]!.startsWith('`npm run bench:'), `${cells[0]}'s command runs it`);
      assert.match(cells[4]!, /^\d{4}-\d{2}-\d{2}\b/, `${cells[0]} has the date of its run`);
      // The current figure only: the history is git's, not a diary in a cell.
      assert.ok(cells[3]!.length < 400, `${cells[0]}'s figure is one current line (${cells[3]!.length} characters)`);
      named.add(cells[0]!);
    }
    assert.equal(named.size, rows.length, 'one line per benchmark');
  });
});
