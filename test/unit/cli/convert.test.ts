import '../../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { command as convert } from '../../../extension/cli/convert';
import { detectScaffold } from '../../../extension/core/scaffolds/registry';
import { exportFormats } from '../../../extension/core/trajectory/exporters';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { runCli } from '../../helpers/cliRunner';

const repoRoot = path.resolve(__dirname, '../../..');
const RECORDING = path.join(repoRoot, 'demo/trajectories/ledger-allocate.swe-agent.traj');

describe('swe-workbench convert', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-convert-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const to of exportFormats()) {
    test(`writes a SWE-agent recording as ${to}, read back as ${to} with the same steps and outcome`, async () => {
      const original = (await loadTrajectory(RECORDING)).trajectory;
      const out = path.join(dir, `ledger.${to}`);
      const r = await runCli(convert, [RECORDING, '--to', to, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${out}: ${to}, 6 steps (read as swe-agent from ${RECORDING})\n`);
      const back = await loadTrajectory(out);
      assert.equal(back.format, to);
      assert.equal(back.trajectory.steps.length, original.steps.length);
      // The commands' output is kept by every format (OpenHands records no observation for its `finish`).
      assert.deepEqual(
        back.trajectory.steps.slice(0, -1).map((s) => s.observation),
        original.steps.slice(0, -1).map((s) => s.observation),
      );
      // OpenHands V1's events have no place for the patch: read back, it is unknown, never another one.
      assert.equal(back.trajectory.outcome.submission, to === 'openhands-v1' ? undefined : original.outcome.submission);
      const before = detectScaffold(original);
      assert.deepEqual(
        [detectScaffold(back.trajectory).name, detectScaffold(back.trajectory).version],
        [before.name, before.version],
        'the file keeps the scaffold the recording showed, not the family its new format suggests',
      );
    });
  }

  test('an unknown --to is a usage error naming the formats, and nothing is written', async () => {
    const out = path.join(dir, 'nothing.json');
    const r = await runCli(convert, [RECORDING, '--to', 'aider', '--out', out]).catch((err: { message: string; exitCode: number }) => ({
      code: err.exitCode,
      stdout: '',
      stderr: err.message,
    }));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--to: expected one of swe-agent, mini-swe-agent, r2e-gym, openhands, openhands-v1, atif, canonical, got 'aider'/);
    assert.equal(existsSync(out), false);
  });

  test('a missing input names the file, and no output or temporary file is left', async () => {
    const out = path.join(dir, 'missing-input.traj');
    await assert.rejects(runCli(convert, [path.join(dir, 'absent.traj'), '--to', 'canonical', '--out', out]), /absent\.traj: no such file/);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('missing-input')),
      [],
    );
  });
});
