import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepSummary } from '../../../extension/protocol/stepper';
import { keyMove, moveSelection, visibleSteps } from '../../../webview/stepper/navigation';

const summary = (index: number, tool: string | null, error = false): StepSummary => ({
  index,
  tool,
  kind: 'other',
  label: `${tool} ${index}`,
  fullLabel: `${tool} ${index}`,
  error,
  errors: error ? ['exit code 1'] : [],
  diverged: false,
  flags: [],
});
const steps = [summary(0, 'open'), summary(1, 'edit', true), summary(2, 'bash'), summary(3, 'edit'), summary(4, 'bash', true), summary(5, 'submit')];

describe('stepper navigation', () => {
  test('filters by tool, by errors and by search matches together', () => {
    assert.deepEqual(visibleSteps(steps, { tool: 'edit', errorsOnly: false, matches: null }), [1, 3]);
    assert.deepEqual(visibleSteps(steps, { tool: null, errorsOnly: true, matches: null }), [1, 4]);
    assert.deepEqual(visibleSteps(steps, { tool: 'bash', errorsOnly: true, matches: null }), [4]);
    assert.deepEqual(visibleSteps(steps, { tool: null, errorsOnly: false, matches: new Set([2, 5]) }), [2, 5]);
  });

  test('moves among visible steps only and stops at the ends', () => {
    const visible = [1, 4];
    assert.equal(moveSelection(visible, 1, 'next'), 4);
    assert.equal(moveSelection(visible, 4, 'next'), 4);
    assert.equal(moveSelection(visible, 4, 'previous'), 1);
    assert.equal(moveSelection(visible, 1, 'previous'), 1);
    assert.equal(moveSelection([0, 2, 3, 5], 2, 'last'), 5);
    assert.equal(moveSelection([0, 2, 3, 5], 3, 'first'), 0);
  });

  test('from a hidden step, next and previous land on the nearest visible one', () => {
    assert.equal(moveSelection([1, 4], 2, 'next'), 4);
    assert.equal(moveSelection([1, 4], 2, 'previous'), 1);
    assert.equal(moveSelection([], 2, 'next'), 2);
  });

  test('j/k, arrows and Home/End are the stepping keys', () => {
    assert.deepEqual(['j', 'ArrowDown', 'k', 'ArrowUp', 'Home', 'End', 'x'].map(keyMove), ['next', 'next', 'previous', 'previous', 'first', 'last', undefined]);
  });
});
