import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, retryDelayMs, DEFAULT_RETRY_POLICY } from '../../../extension/core/policy/retry';

describe('retry timing', () => {
  test('Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('Sun, 22 Nov 2026 02:00:00 GMT');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '3' })), 3000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 02:00:05 GMT' }), now), 5000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' })), 250);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfter(new Headers()), undefined);
  });

  test('backoff doubles per attempt up to the ceiling, with half of it jittered', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, undefined, () => 0)),
      [50, 100, 200, 400, 500],
    );
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, undefined, () => 1)),
      [100, 200, 400, 800, 1000],
    );
    assert.equal(
      retryDelayMs(policy, 1, 7000, () => 0.5),
      7000,
    );
  });
});
