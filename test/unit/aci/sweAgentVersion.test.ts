// Which SWE-agent printed a recording: the real recordings in ../shared/fixtures/third-party.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSweAgentVersion, sweAgentDialect, sweAgentVersionOf } from '../../../extension/core/scaffolds/swe-agent/tools/sweAgentVersion';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { replaySettings } from '../../../extension/core/session/containerSession';
import { aciConfigForRecording } from '../../../extension/core/scaffolds/swe-agent/recordingConfig';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { needsShared } from '../../helpers/sharedFolder';

const thirdParty = needsShared('fixtures/third-party');
const fixture = (rel: string) => loadTrajectory(thirdParty.path(rel)).then((r) => r.trajectory);

const skip = thirdParty.skip;

describe('SWE-agent version of a recording', () => {
  test('a 0.7 demonstration in 1.x format (no pty line ends, 1.0 names of 0.7 command files) is 0.7, and its bundles load', { skip }, async () => {
    const recording = await fixture('swe-agent/marshmallow-1867.windowed.traj');
    const verdict = sweAgentVersionOf(recording);
    assert.equal(verdict.version, '0.7');
    assert.deepEqual(verdict.candidates, ['0.2', '0.7'], 'the labels tell a 0.x run, not which');
    assert.match(verdict.reason, /no pseudo-terminal line ends/);
    const settings = replaySettings(recording);
    assert.equal(aciConfigForRecording(recording).sweAgentVersion, '0.7');
    assert.equal(toolSetFor(settings.bundles).get('edit')?.bundle, 'windowed_edit_linting', 'no more "unknown tool bundle(s): edit_linting"');
  });

  test('a 1.0 function-calling recording without swe_agent_version is early 1.0 (its replace wording)', { skip }, async () => {
    const recording = await fixture('swe-agent/marshmallow-1867.function_calling.traj');
    const verdict = sweAgentVersionOf(recording);
    assert.equal(verdict.version, '1.0.0');
    assert.match(verdict.reason, /bundle defaults was renamed after SWE-agent 1.0, and the file states no swe_agent_version/);
    assert.equal(sweAgentDialect(verdict.version).replaceWording, 'two-line');
  });

  test('a recording that states swe_agent_version 1.0.1 is 1.0.1', { skip }, async () => {
    const verdict = sweAgentVersionOf(await fixture('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    assert.deepEqual(verdict, { version: '1.0.1', reason: 'the file says swe_agent_version 1.0.1', candidates: ['1.0.1'] });
  });

  test('1.1 bundle names without a stated version: the latest, saying how to pick 1.1.0', { skip }, async () => {
    const verdict = sweAgentVersionOf(await fixture('swe-agent/sweagenttestrepo-1c2844.traj'));
    assert.equal(verdict.version, '3ea751c0');
    assert.deepEqual(verdict.candidates, ['1.1.0', '3ea751c0']);
    assert.match(verdict.reason, /bundle windowed exists only in SWE-agent 1.1 and later/);
    assert.match(verdict.fallback ?? '', /swe-agent@1\.1\.0/);
  });

  test('an override wins and is named as the reason', { skip }, async () => {
    const recording = await fixture('swe-agent/sweagenttestrepo-1c2844.traj');
    assert.deepEqual(sweAgentVersionOf(recording, '1.1.0'), { version: '1.1.0', reason: 'asked for SWE-agent 1.1.0', candidates: ['1.1.0'] });
    assert.equal(aciConfigForRecording(recording, 'v1.0.1').sweAgentVersion, '1.0.1');
  });
});

describe('SWE-agent version as written', () => {
  test('measured versions map to themselves, in any spelling', () => {
    assert.deepEqual(parseSweAgentVersion('1.0.1'), { version: '1.0.1' });
    assert.deepEqual(parseSweAgentVersion('v1.1.0'), { version: '1.1.0' });
    assert.deepEqual(parseSweAgentVersion('0.7.0'), { version: '0.7' });
    assert.deepEqual(parseSweAgentVersion('v0.2.0'), { version: '0.2' });
    assert.deepEqual(parseSweAgentVersion('3ea751c087f3'), { version: '3ea751c0' });
  });

  test('others fall back to the nearest measured version and say which and why', () => {
    assert.deepEqual(parseSweAgentVersion('1.0.3'), {
      version: '1.0.1',
      fallback: 'SWE-agent 1.0.3 was not measured: using 1.0.1, the nearest (known: 0.2, 0.7, 1.0.0, 1.0.1, 1.1.0, 3ea751c0)',
    });
    assert.equal(parseSweAgentVersion('2.0').version, '3ea751c0');
    assert.match(parseSweAgentVersion('deadbeef').fallback ?? '', /^unknown SWE-agent version 'deadbeef': using 3ea751c0, the latest measured/);
    assert.match(parseSweAgentVersion('0.6.1').fallback ?? '', /using 0\.7/);
    assert.match(parseSweAgentVersion('0.3.0').fallback ?? '', /using 0\.7/, "0.3 took 0.7's lint wording");
    assert.match(parseSweAgentVersion('0.1.0').fallback ?? '', /using 0\.2/, '0.1 words it as 0.2 does');
  });
});

describe('SWE-agent version of recordings written elsewhere', () => {
  test('a recording without pty line ends whose bundles prove nothing is not taken for 0.7', () => {
    const verdict = sweAgentVersionOf({ meta: { pty: false, toolBundles: [] } });
    assert.equal(verdict.version, '3ea751c0');
    assert.match(verdict.fallback ?? '', /nothing tells the SWE-agent version/);
    assert.equal(sweAgentVersionOf({ meta: { pty: false, toolBundles: ['tools/search', 'tools/submit'] } }).version, '3ea751c0');
  });
});
