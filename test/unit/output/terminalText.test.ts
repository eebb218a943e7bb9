import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { guardOutput, terminalSafe } from '../../../extension/core/output/terminalText';

describe('text from files made safe for a terminal', () => {
  test('escape sequences, carriage returns, C1 and bidi controls are shown escaped; tabs, newlines and other text stay', () => {
    assert.equal(terminalSafe('title\u001b]0;pwned\u0007 clear\u001b[2J'), 'title\\u001b]0;pwned\\u0007 clear\\u001b[2J');
    assert.equal(terminalSafe('Submitted\r\u001b[32mresolved'), 'Submitted\\u000d\\u001b[32mresolved');
    assert.equal(terminalSafe('csi\u009b31m del\u007f'), 'csi\\u009b31m del\\u007f');
    assert.equal(terminalSafe('if (admin\u202e\u2066) {}'), 'if (admin\\u202e\\u2066) {}');
    assert.equal(terminalSafe('a\tb\nc é 日本 🙂'), 'a\tb\nc é 日本 🙂');
  });

  test('JSON output escaped this way is still valid JSON with the same strings', () => {
    const value = { 'key\u001b[31m': 'x\u202ey\u0085z' };
    const shown = terminalSafe(JSON.stringify(value));
    assert.doesNotMatch(shown, /[\u001b\u202e\u0085]/);
    assert.deepEqual(JSON.parse(shown), value);
  });

  test('the guarded stream escapes unless raw, and drops writes quietly once the reader has gone (EPIPE)', async () => {
    const target = new PassThrough();
    const seen: string[] = [];
    target.on('data', (b: Buffer) => seen.push(b.toString()));
    const out = guardOutput(target);
    out.stream.write('a\u001b[2Jb\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['a\\u001b[2Jb\n']);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    target.emit('error', epipe);
    assert.equal(out.closed, true);
    await new Promise<void>((resolve, reject) => out.stream.write('after\n', (err) => (err ? reject(err) : resolve())));
    assert.deepEqual(seen, ['a\\u001b[2Jb\n']);

    const rawTarget = new PassThrough();
    const rawSeen: string[] = [];
    rawTarget.on('data', (b: Buffer) => rawSeen.push(b.toString()));
    guardOutput(rawTarget, { raw: true }).stream.write('\u001b[1m');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(rawSeen, ['\u001b[1m']);
  });
});
