import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import { readTaskInstances, readTaskInstance } from '../../../extension/core/reward/rewardFiles';

const dir = mkdtempSync(path.join(tmpdir(), 'instance-test-'));
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

test('test lists stored as JSON-encoded strings are decoded', async () => {
  const file = write('a.json', JSON.stringify({ instance_id: 'a__b-1', FAIL_TO_PASS: '["t1", "t2"]', PASS_TO_PASS: '[]' }));
  const inst = await readTaskInstance(file);
  assert.deepEqual(inst.FAIL_TO_PASS, ['t1', 't2']);
  assert.deepEqual(inst.PASS_TO_PASS, []);
});

test('a string that is not a JSON list is an error at its JSON path', async () => {
  const file = write(
    'b.json',
    JSON.stringify([
      { instance_id: 'ok', FAIL_TO_PASS: [], PASS_TO_PASS: [] },
      { instance_id: 'a__b-2', FAIL_TO_PASS: 'tests/x.py', PASS_TO_PASS: [] },
    ]),
  );
  await assert.rejects(readTaskInstances(file), (err: unknown) => err instanceof InputError && err.where === '$[1].FAIL_TO_PASS');
});

test('JSON Lines files are read line by line; a broken line is named by line and column', async () => {
  const good = write(
    'c.jsonl',
    `${JSON.stringify({ instance_id: 'x', FAIL_TO_PASS: [], PASS_TO_PASS: [] })}\n${JSON.stringify({ instance_id: 'y', FAIL_TO_PASS: [], PASS_TO_PASS: [] })}\n`,
  );
  assert.deepEqual(
    (await readTaskInstances(good)).map((i) => i.instance_id),
    ['x', 'y'],
  );
  const bad = write('d.jsonl', `${JSON.stringify({ instance_id: 'x', FAIL_TO_PASS: [], PASS_TO_PASS: [] })}\n{oops\n`);
  await assert.rejects(readTaskInstances(bad), (err: unknown) => err instanceof InputError && err.where === 'line 2, column 2');
});

test('asking for an absent instance id says so', async () => {
  const file = write('e.json', JSON.stringify({ instance_id: 'x', FAIL_TO_PASS: [], PASS_TO_PASS: [] }));
  await assert.rejects(readTaskInstance(file, 'zzz'), /no instance 'zzz'/);
});
