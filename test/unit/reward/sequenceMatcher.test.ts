import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceMatcher, stringRatio } from '../../../extension/core/diff/sequenceMatcher';

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

test('works on lines as items too', () => {
  const la = Array.from({ length: 250 }, (_, i) => `line ${i % 3}`);
  const lb = Array.from({ length: 260 }, (_, i) => `line ${i % 4}`);
  assert.equal(new SequenceMatcher(la, lb).ratio(), 0.011764705882352941);
  assert.equal(new SequenceMatcher(la, lb, { autojunk: false }).ratio(), 0.7647058823529411);
});

test('junk items and code points beyond the BMP', () => {
  assert.equal(new SequenceMatcher(Array.from('a b c d'), Array.from('a  bcd'), { isJunk: (c) => c === ' ' }).ratio(), 0.7692307692307693);
  assert.equal(stringRatio('héllo 😀 wörld', 'hello 😀 world'), 0.8461538461538461);
});
