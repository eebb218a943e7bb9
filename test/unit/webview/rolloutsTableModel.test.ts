import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RolloutRow } from '../../../extension/protocol/rollouts';
import { cellText, instanceParts, nextSort, pagesFor, visibleWindow } from '../../../webview/rollouts/tableModel';

const row: RolloutRow = {
  id: 'run/a.traj',
  instance: 'acme__widgets-101',
  attempt: 2,
  format: 'swe-agent',
  steps: 8,
  exit: null,
  resolved: false,
  reward: 0.3333333,
  failure: 'submitted-wrong',
  status: 'failed',
  evidence: 'not resolved',
  tokens: 62000,
  cost: 0.5,
  duration: 3725,
  critical: null,
};

describe('the virtualized rollouts table', () => {
  test('renders only the rows in view plus the overscan on each side', () => {
    assert.deepEqual(visibleWindow(0, 480, 24, 10_000, 20), { start: 0, end: 41 });
    assert.deepEqual(visibleWindow(24 * 5000, 480, 24, 10_000, 20), { start: 4980, end: 5041 });
    assert.deepEqual(visibleWindow(24 * 9990, 480, 24, 10_000, 20), { start: 9970, end: 10_000 });
    assert.deepEqual(visibleWindow(0, 480, 24, 0, 20), { start: 0, end: 0 });
  });

  test('asks for page-aligned ranges that cover the window', () => {
    assert.deepEqual(pagesFor({ start: 4980, end: 5041 }, 200), [
      { start: 4800, end: 5000 },
      { start: 5000, end: 5200 },
    ]);
    assert.deepEqual(pagesFor({ start: 0, end: 41 }, 200), [{ start: 0, end: 200 }]);
    assert.deepEqual(pagesFor({ start: 0, end: 0 }, 200), []);
  });

  test('a header click cycles ascending, descending, unsorted; another column starts ascending', () => {
    assert.deepEqual(nextSort(null, 'steps'), { column: 'steps', descending: false });
    assert.deepEqual(nextSort({ column: 'steps', descending: false }, 'steps'), { column: 'steps', descending: true });
    assert.equal(nextSort({ column: 'steps', descending: true }, 'steps'), null);
    assert.deepEqual(nextSort({ column: 'steps', descending: true }, 'cost'), { column: 'cost', descending: false });
  });

  test("an instance name keeps its distinguishing end whole: the part after its last '-', '.' or ':'", () => {
    const parts = (name: string) => Object.values(instanceParts(name));
    assert.deepEqual(parts('acme__widgets-101'), ['acme__widgets', '-101']);
    assert.deepEqual(parts('acme__widgets-202'), ['acme__widgets', '-202']);
    assert.deepEqual(parts('django__django-11099'), ['django__django', '-11099']);
    assert.deepEqual(parts('pandas-dev__pandas.95280573.pr_53856'), ['pandas-dev__pandas.95280573', '.pr_53856']);
    assert.deepEqual(parts('sympy'), ['sympy', ''], 'nothing to keep apart: the name shortens as one');
    assert.deepEqual(parts('-7'), ['-7', '']);
    const long = `acme-${'x'.repeat(40)}`;
    assert.equal(instanceParts(long).tail.length, 24, 'a long end is kept to its last 24 characters');
    assert.equal(Object.values(instanceParts(long)).join(''), long);
  });

  test('cells say what was recorded and mark what was not', () => {
    assert.equal(cellText(row, 'instance'), 'acme__widgets-101');
    assert.equal(cellText(row, 'exit'), '—');
    assert.equal(cellText(row, 'resolved'), 'no');
    assert.equal(cellText({ ...row, resolved: null }, 'resolved'), '—');
    assert.equal(cellText(row, 'reward'), '0.333');
    assert.equal(cellText(row, 'tokens'), '62,000');
    assert.equal(cellText(row, 'cost'), '$0.50');
    assert.equal(cellText(row, 'duration'), '1 h 2 min');
    assert.equal(cellText({ ...row, duration: 42.25 }, 'duration'), '42.3 s');
    assert.equal(cellText({ ...row, cost: 0.24830985 }, 'cost'), '$0.2483');
    for (const column of ['tokens', 'cost', 'duration'] as const)
      assert.equal(cellText({ ...row, [column]: null }, column), 'unknown', `${column} not recorded`);
  });
});

describe("a branched run's critical step column", () => {
  test("shows the presenter's words; a rollout not branched shows the table's mark for nothing recorded", () => {
    assert.equal(cellText({ ...row, critical: 'step 7 (V 0.75 -> 0.12)' }, 'critical'), 'step 7 (V 0.75 -> 0.12)');
    assert.equal(cellText({ ...row, critical: 'none' }, 'critical'), 'none');
    assert.equal(cellText(row, 'critical'), '—');
  });
});

describe("a re-scored run's mismatch columns", () => {
  const mismatch = { steps: 3, errors: 0, tokens: 120, maxAbsDiff: 0.51234, outside: 4, kl: 0.0012345, firstDrift: null, driftUnknown: 0 };
  const cells = (r: RolloutRow) => (['maxdiff', 'outside', 'kl', 'drift'] as const).map((c) => cellText(r, c));

  test('a rollout not re-scored is unknown in every column, never 0', () => {
    assert.deepEqual(cells(row), ['unknown', 'unknown', 'unknown', 'unknown']);
  });

  test('measures to three digits; the first drift by step and token from 1; none when none differs', () => {
    assert.deepEqual(cells({ ...row, mismatch }), ['0.512', '4', '0.00123', 'none']);
    assert.deepEqual(cells({ ...row, mismatch: { ...mismatch, firstDrift: { step: 1, position: 21 } } })[3], 'step 2, token 22');
    assert.equal(cells({ ...row, mismatch: { ...mismatch, driftUnknown: 1 } })[3], 'none (1 unchecked)');
    assert.equal(cells({ ...row, mismatch: { ...mismatch, driftUnknown: 3 } })[3], 'unknown');
  });

  test('no token re-scored (every step an error): the measures are unknown, not 0', () => {
    assert.deepEqual(cells({ ...row, mismatch: { ...mismatch, errors: 3, tokens: 0, maxAbsDiff: null, outside: 0, kl: null } }).slice(0, 3), [
      'unknown',
      'unknown',
      'unknown',
    ]);
  });
});
