import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancelledError, InputError } from '../../../extension/core/errors';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import { sampleTrajectory, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

async function failure(promise: Promise<unknown>): Promise<InputError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof InputError, `expected an InputError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the load to fail');
}

describe('located errors', () => {
  test('truncated JSON names the line and column where the file stops', async () => {
    const file = sampleTrajectory('malformed/truncated.traj');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const err = await failure(loadTrajectory(file));
    assert.equal(err.message, `${file}: line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}: unexpected end of JSON: the file looks truncated`);
  });

  test('a wrong type names the JSON path, what was expected and what was there', async () => {
    const file = sampleTrajectory('malformed/wrong-types.traj');
    const err = await failure(loadTrajectory(file));
    assert.equal(err.message, `${file}: $.trajectory[3].observation: expected a string, got number`);
    assert.equal(err.where, '$.trajectory[3].observation');
  });

  test('an empty file says so', async () => {
    const file = sampleTrajectory('malformed/empty.traj');
    assert.equal((await failure(loadTrajectory(file))).message, `${file}: empty file`);
  });

  test("another tool's JSON says what it looks like and which formats were tried", async () => {
    const file = sampleTrajectory('malformed/package.json');
    const err = await failure(loadTrajectory(file));
    assert.equal(
      err.message,
      `${file}: $: not a trajectory: it looks like an npm package.json; tried swe-agent, mini-swe-agent, r2e-gym, openhands, openhands-v1, rllm, skyrl, harbor-traces, openai-messages, atif, canonical`,
    );
  });

  test('a broken JSONL record names its line', async () => {
    const file = sampleTrajectory('malformed/broken-line.jsonl');
    const err = await failure(loadTrajectory(file, { record: 1 }));
    assert.equal(err.message, `${file}: line 2, column 23: invalid JSON: unexpected token '}'`);
  });

  test('a JSONL record past the end says how many there are', async () => {
    const file = sampleTrajectory('r2e-gym.deepswe.jsonl');
    assert.equal((await failure(loadTrajectory(file, { record: 5 }))).message, `${file}: record 5 does not exist: the file holds 2 JSON lines`);
  });

  thirdPartyFiles.test('a format given by hand is checked against the file', async () => {
    const file = thirdParty('swe-agent/sweagenttestrepo-1c2844.traj');
    const err = await failure(loadTrajectory(file, { format: 'r2e-gym' }));
    assert.equal(err.message, `${file}: $.trajectory_steps: expected an array, got undefined`);
  });

  test('a replay_config string that is not JSON is located', () => {
    assert.throws(
      () => importTrajectory({ trajectory: [], history: [], replay_config: '{"env": ' }, { file: 'x.traj' }),
      (err: Error) => err.message.startsWith('x.traj: $.replay_config: expected a JSON string, but it does not parse'),
    );
  });

  test('a missing file', async () => {
    assert.equal((await failure(loadTrajectory('/nonexistent/run.traj'))).message, '/nonexistent/run.traj: no such file');
  });
});

describe('JSONL without the extension, and cancellation', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-load-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a .json file holding JSON lines is read as JSONL', async () => {
    const lines = (await readFile(sampleTrajectory('r2e-gym.deepswe.jsonl'), 'utf8')).trimEnd().split('\n');
    const file = path.join(dir, 'rollouts.json');
    await writeFile(file, lines.join('\n') + '\n');
    const loaded = await loadTrajectory(file, { record: 1 });
    assert.deepEqual([loaded.format, loaded.line, loaded.records, loaded.trajectory.steps.length], ['r2e-gym', 2, 2, 2]);
  });

  test('an aborted load stops with CancelledError', async () => {
    const controller = new AbortController();
    controller.abort('closed');
    await assert.rejects(loadTrajectory(sampleTrajectory('r2e-gym.deepswe.jsonl'), { signal: controller.signal }), CancelledError);
  });
});
