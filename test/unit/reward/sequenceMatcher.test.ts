import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringRatio, unifiedDiff } from '../../../extension/core/diff/sequenceMatcher';

// Expected values printed by CPython 3.11's difflib for the same inputs.
const alphabet = 'ab \n-+xy';
const a = Array.from({ length: 600 }, (_, i) => alphabet[(i * i * 7 + 3 * i) % 8]).join('');
const b = Array.from({ length: 650 }, (_, i) => alphabet[(i * i * 5 + i) % 8]).join('');

test('ratios equal CPython on short strings', () => {
  assert.equal(stringRatio('', ''), 1);
  assert.equal(stringRatio('abc', ''), 0);
  assert.equal(stringRatio('abcd', 'bcde'), 0.75);
  assert.equal(stringRatio('private Thread currentThread;', 'private volatile Thread currentThread;'), 0.8656716417910447);
});

test('autojunk drops popular characters of a 200+ item b, as CPython does', () => {
  assert.equal(stringRatio(a, b, true), 0.0016);
  assert.equal(stringRatio(a, b, false), 0.3488);
});

test('works on lines as items too: the popular lines of a 200+ line b seed no match (autojunk), as CPython does', () => {
  const la = Array.from({ length: 250 }, (_, i) => `line ${i % 3}`);
  const lb = Array.from({ length: 260 }, (_, i) => `line ${i % 4}`);
  // difflib.unified_diff(la, lb, 'f', 'f', lineterm=''): the three first lines equal, then all 247 replaced by 257.
  const diff = unifiedDiff(la, lb, 'f', 'f');
  assert.equal(diff.length, 510);
  assert.deepEqual(diff.slice(0, 8), ['--- f', '+++ f', '@@ -1,250 +1,260 @@', ' line 0', ' line 1', ' line 2', '-line 0', '-line 1']);
  assert.deepEqual(diff.slice(-2), ['+line 2', '+line 3']);
});

test('code points beyond the BMP are one item each', () => {
  assert.equal(stringRatio('héllo 😀 wörld', 'hello 😀 world'), 0.8461538461538461);
});
