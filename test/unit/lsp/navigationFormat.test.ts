import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  displayPath,
  formatLocations,
  formatOutline,
  formatSymbolHits,
  hoverText,
  locateSymbol,
  type LineTexts,
  type SourceLocation,
} from '../../../extension/core/aci/lspNavigation';
import { fileUri, uriPath } from '../../../extension/core/aci/lspServer';

const source = [
  'from .money import Money, sum_money',
  '',
  'class Journal:',
  '    def balance(self, account):',
  '        return self.rollup().balance(account)',
].join('\n');

describe('locateSymbol', () => {
  test('finds a whole-word name on the given 1-based line', () => {
    assert.deepEqual(locateSymbol(source, 1, 'Money'), { line: 0, character: 19 });
    assert.deepEqual(locateSymbol(source, 1, 'sum_money'), { line: 0, character: 26 });
  });

  test('points a dotted name at its last part', () => {
    assert.deepEqual(locateSymbol(source, 5, 'self.rollup'), { line: 4, character: 20 });
    assert.deepEqual(locateSymbol(source, 5, 'rollup()'), { line: 4, character: 20 });
  });

  test('looks a few lines around when the agent is off by one', () => {
    assert.deepEqual(locateSymbol(source, 2, 'Journal'), { line: 2, character: 6 });
  });

  test('says what is on the line when the name is not there', () => {
    assert.deepEqual(locateSymbol(source, 1, 'Ledger'), { error: `'Ledger' does not appear on line 1: "from .money import Money, sum_money"` });
  });

  test('rejects lines outside the file and text that is not a name', () => {
    assert.deepEqual(locateSymbol(source, 9, 'Money'), { error: 'line 9 is outside the file, which has 5 lines' });
    assert.deepEqual(locateSymbol(source, 1, 'Money('), { error: `'Money(' is not a Python name` });
  });
});

describe('output formats', () => {
  const repo = '/testbed';
  const locations: SourceLocation[] = [
    { path: '/testbed/ledger/money.py', line: 21, character: 6 },
    { path: '/testbed/ledger/journal.py', line: 7, character: 19 },
    { path: '/usr/lib/python3/typing.pyi', line: 99, character: 0 },
  ];
  const texts: LineTexts = new Map([
    ['/testbed/ledger/money.py', new Map([[21, 'class Money:']])],
    ['/testbed/ledger/journal.py', new Map([[7, '    ' + 'x'.repeat(200)]])],
  ]);

  test('locations read path:line: code, relative to the repository, long lines clipped', () => {
    const lines = formatLocations(locations, texts, repo, 10).split('\n');
    assert.deepEqual(lines[0], 'ledger/money.py:22: class Money:');
    assert.equal(lines[1], `ledger/journal.py:8: ${'x'.repeat(157)}...`);
    assert.equal(lines[2], '/usr/lib/python3/typing.pyi:100');
  });

  test('a capped list says how many were left out', () => {
    assert.equal(formatLocations(locations, texts, repo, 1), 'ledger/money.py:22: class Money:\n... and 2 more not shown');
  });

  test('outline entries are indented by depth with 1-based lines', () => {
    const outline = formatOutline(
      [
        { name: 'Money', kind: 'class', line: 21, depth: 0 },
        { name: 'allocate', kind: 'method', line: 74, depth: 1 },
        { name: 'sum_money', kind: 'function', line: 110, depth: 0 },
      ],
      2,
    );
    assert.equal(outline, '22: class Money\n  75: method allocate\n... and 1 more not shown');
  });

  test('workspace hits name their container', () => {
    const text = formatSymbolHits([{ name: 'allocate', kind: 'method', container: 'Money', location: locations[0] as SourceLocation }], repo, 5);
    assert.equal(text, 'ledger/money.py:22: method Money.allocate');
  });

  test('hover markdown loses its code fences and separators', () => {
    const value = '```python\n(class) Money(amount: Decimal, currency: str)\n```\n---\nExact amounts of money.';
    assert.equal(hoverText({ kind: 'markdown', value }), '(class) Money(amount: Decimal, currency: str)\n\nExact amounts of money.');
  });

  test('paths outside the repository stay absolute; URIs round-trip with spaces', () => {
    assert.equal(displayPath('/testbedx/a.py', repo), '/testbedx/a.py');
    assert.equal(fileUri('/repo/my dir/a.py'), 'file:///repo/my%20dir/a.py');
    assert.equal(uriPath('file:///repo/my%20dir/a.py'), '/repo/my dir/a.py');
  });
});
