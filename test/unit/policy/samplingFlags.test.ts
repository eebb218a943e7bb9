import { test } from 'node:test';
import assert from 'node:assert/strict';
import { samplingFlags } from '../../../extension/core/policy/samplingFlags';

test('truncated sampling (top-k, top-p below 1, min-p) and a chosen token under 0.1% are flagged', () => {
  assert.deepEqual(samplingFlags({ temperature: 1 }, [{ token: 'a', logprob: -0.1 }]), []);
  assert.deepEqual(samplingFlags({ top_k: 20 }, undefined), ['truncated-sampling']);
  assert.deepEqual(samplingFlags({ top_p: 0.95 }, undefined), ['truncated-sampling']);
  assert.deepEqual(samplingFlags({ top_p: 1, top_k: -1, min_p: 0 }, undefined), []);
  assert.deepEqual(samplingFlags({ min_p: 0.05 }, [{ token: 'x', logprob: -7.2 }]), ['truncated-sampling', 'low-logprob-token']);
  assert.deepEqual(samplingFlags({}, [{ token: 'x', logprob: -6.8 }]), []);
});
