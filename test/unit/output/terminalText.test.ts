import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { guardOutput } from '../../../extension/core/output/terminalText';

/** What a guarded output prints of `text`: the text as the CLI shows it on a terminal. */
async function terminalSafe(text: string): Promise<string> {
  const target = new PassThrough();
  const seen: Buffer[] = [];
  target.on('data', (b: Buffer) => seen.push(b));
  await new Promise<void>((resolve, reject) => guardOutput(target).stream.write(text, (err) => (err ? reject(err) : resolve())));
  return Buffer.concat(seen).toString();
}

describe('text from files made safe for a terminal', () => {
  test('escape sequences, carriage returns, C1 and bidi controls are shown escaped; tabs, newlines and other text stay', async () => {
    assert.equal(await terminalSafe('title\u001b]0;pwned\u0007 clear\u001b[2J'), 'title\\u001b]0;pwned\\u0007 clear\\u001b[2J');
    assert.equal(await terminalSafe('Submitted\r\u001b[32mresolved'), 'Submitted\\u000d\\u001b[32mresolved');
    assert.equal(await terminalSafe('csi\u009b31m del\u007f'), 'csi\\u009b31m del\\u007f');
    assert.equal(await terminalSafe('if (admin\u202e\u2066) {}'), 'if (admin\\u202e\\u2066) {}');
    assert.equal(await terminalSafe('a\tb\nc é 日本 🙂'), 'a\tb\nc é 日本 🙂');
  });

  test('JSON output escaped this way is still valid JSON with the same strings', async () => {
    const value = { 'key\u001b[31m': 'x\u202ey\u0085z' };
    const shown = await terminalSafe(JSON.stringify(value));
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
