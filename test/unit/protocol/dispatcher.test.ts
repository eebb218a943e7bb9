import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestDispatcher } from '../../../extension/protocol/dispatcher';
import { ProtocolFailure } from '../../../extension/protocol/ipc';
import { stepsDetails, stepsSummaries, MAX_STEP_RANGE } from '../../../extension/protocol/stepper';
import { errorText } from '../../../extension/core/errors';

function dispatcher(): RequestDispatcher {
  const d = new RequestDispatcher((error) => ({ code: 'internal', message: errorText(error) }));
  d.on(stepsSummaries, ({ start, end }) => ({
    summaries: Array.from({ length: end - start }, (_, i) => ({
      index: start + i,
      tool: 'bash',
      kind: 'run',
      label: 'ls',
      fullLabel: 'ls',
      error: false,
      errors: [],
      diverged: false,
      flags: [],
    })),
  }));
  d.on(stepsDetails, ({ start }) => {
    if (start > 10) throw new ProtocolFailure('not-found', `no step ${start}`);
    throw new Error('disk on fire');
  });
  return d;
}

const signal = new AbortController().signal;

describe('request dispatcher', () => {
  test('answers a valid request with its result under the same id', async () => {
    const response = await dispatcher().dispatch({ kind: 'request', id: 7, method: 'steps/summaries', params: { start: 2, end: 4 } }, signal);
    assert.ok(response?.ok);
    assert.equal(response.id, 7);
    assert.deepEqual(
      (response.result as { summaries: { index: number }[] }).summaries.map((s) => s.index),
      [2, 3],
    );
  });

  test('rejects bad params with the path of the bad field', async () => {
    const response = await dispatcher().dispatch({ kind: 'request', id: 1, method: 'steps/summaries', params: { start: 'zero', end: 4 } }, signal);
    assert.deepEqual(response && !response.ok && response.error.code, 'invalid-request');
    assert.match(response && !response.ok ? response.error.message : '', /^params\.start: /);
  });

  test(`refuses ranges longer than ${MAX_STEP_RANGE} steps so a file is never sent whole`, async () => {
    const response = await dispatcher().dispatch({ kind: 'request', id: 2, method: 'steps/summaries', params: { start: 0, end: MAX_STEP_RANGE + 1 } }, signal);
    assert.ok(response && !response.ok);
    assert.match(response.error.message, /at most 500 steps/);
  });

  test('answers unknown methods and handler failures with an error, never silence', async () => {
    const d = dispatcher();
    const unknown = await d.dispatch({ kind: 'request', id: 3, method: 'steps/explode', params: {} }, signal);
    assert.deepEqual(unknown, { kind: 'response', id: 3, ok: false, error: { code: 'unknown-method', message: "unknown request 'steps/explode'" } });
    const failed = await d.dispatch({ kind: 'request', id: 4, method: 'steps/details', params: { start: 1, end: 2 } }, signal);
    assert.deepEqual(failed, { kind: 'response', id: 4, ok: false, error: { code: 'internal', message: 'disk on fire' } });
    const missing = await d.dispatch({ kind: 'request', id: 5, method: 'steps/details', params: { start: 11, end: 12 } }, signal);
    assert.deepEqual(missing, { kind: 'response', id: 5, ok: false, error: { code: 'not-found', message: 'no step 11' } });
  });

  test('ignores messages that are not requests (nothing to answer to)', async () => {
    assert.equal(await dispatcher().dispatch({ kind: 'notification', method: 'x', params: {} }, signal), undefined);
    assert.equal(await dispatcher().dispatch('hello', signal), undefined);
  });
});
