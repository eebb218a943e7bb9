import '../../helpers/families';
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { chooseScaffold, detectScaffold, parseScaffoldSpec } from '../../../extension/core/scaffolds/registry';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { thirdPartyFolder } from '../../helpers/sharedFolder';
import { sampleTrajectory } from '../../helpers/trajectoryFiles';

const thirdParty = thirdPartyFolder();
const THIRD_PARTY = thirdParty.dir;
const load = async (file: string) => (await loadTrajectory(file)).trajectory;
const canonical = (meta: Trajectory['meta'], format: Trajectory['format'] = 'canonical'): Trajectory => ({ format, task: {}, steps: [], outcome: {}, meta });

describe('which scaffold a recording was made with', () => {
  thirdParty.test('each family is recognised from what its files carry, with the reason', async () => {
    assert.deepEqual(detectScaffold(await load(sampleTrajectory('r2e-gym.deepswe.jsonl'))), {
      name: 'r2e-gym',
      version: '69bc953',
      reason: 'an R2E-Gym JSONL record (`trajectory_steps` with `<function=...>` actions)',
    });
    assert.deepEqual(detectScaffold(await load(path.join(THIRD_PARTY, 'mini-swe-agent/local.traj.json'))), {
      // Its commands are fenced ```mswea_bash_command, as 2.x and some early 1.x runs do: the file does not decide.
      name: 'mini-swe-agent',
      version: '1.x',
      reason: 'a bare message list without mini_version, fenced with ```mswea_bash_command as 2.x and some early 1.x runs fence their commands',
      undecided: ['1.x', '2.x'],
    });
    assert.equal(detectScaffold(await load(path.join(THIRD_PARTY, 'openhands/basic.json'))).name, 'openhands');
    const windowed = detectScaffold(await load(path.join(THIRD_PARTY, 'swe-agent/marshmallow-1867.function_calling.traj')));
    assert.equal(windowed.name, 'swe-agent');
    assert.match(windowed.reason, /SWE-agent|bundles/);
  });

  test('rLLM and SkyRL-Agent episodes are recognised by the tools they call', async () => {
    assert.deepEqual(detectScaffold(await load(sampleTrajectory('rllm.episode.json'))), {
      name: 'r2e-gym',
      version: '69bc953',
      reason: "the actions call R2E-Gym's tools (execute_bash, finish)",
    });
    assert.deepEqual(detectScaffold(await load(sampleTrajectory('skyrl.result.json'))), {
      name: 'openhands',
      version: 'codeact',
      reason: "the actions call OpenHands' functions (str_replace_editor, execute_bash)",
    });
    assert.equal(detectScaffold(await load(sampleTrajectory('mini-swe-agent-1.1.tool-calls.traj.json'))).name, 'mini-swe-agent');
  });

  test('mini_version picks the major version; an unknown one falls back and says so', () => {
    const mini = (mini_version: string): Trajectory => ({ ...canonical({ scaffoldConfig: { mini_version } }, 'mini-swe-agent') });
    assert.deepEqual(detectScaffold(mini('2.4.6')), { name: 'mini-swe-agent', version: '2.x', reason: 'info.mini_version is 2.4.6' });
    assert.equal(detectScaffold(mini('1.17.5')).version, '1.x');
    assert.deepEqual(detectScaffold(mini('3.0.0')), {
      name: 'mini-swe-agent',
      version: '2.x',
      reason: 'info.mini_version is 3.0.0',
      fallback: 'mini-swe-agent version 3.0.0 is not one we know (known: 1.x, 2.x); using 2.x',
    });
  });

  test('our own runs name their scaffold in meta.scaffold', () => {
    assert.deepEqual(detectScaffold(canonical({ scaffold: 'r2e-gym@69bc953' })), {
      name: 'r2e-gym',
      version: '69bc953',
      reason: "meta.scaffold is 'r2e-gym@69bc953'",
    });
    assert.equal(detectScaffold(canonical({ scaffold: 'openhands@codeact' })).name, 'openhands');
    // A file that names none, and whose steps call no family's tools, is unknown; a replay of it runs the default family's tools.
    assert.deepEqual(detectScaffold(canonical({})), {
      name: 'swe-agent',
      version: '3ea751c0',
      reason: "no family's evidence claims this canonical recording: a replay runs SWE-agent's tools (3ea751c0)",
      unknown: { tools: [] },
    });
    assert.equal(parseScaffoldSpec(`swe-agent@${detectScaffold(canonical({})).version}`).fallback, undefined, 'the default is a name --scaffold takes');
  });

  test('the scaffold a file names wins over the family its format suggests', () => {
    for (const scaffold of ['r2e-gym@69bc953', 'openhands@codeact', 'mini-swe-agent@2.x', 'swe-agent@1.0.1']) {
      const choice = detectScaffold(canonical({ scaffold, toolBundles: ['tools/windowed'] }, 'swe-agent'));
      assert.equal(`${choice.name}@${choice.version}`, scaffold);
    }
    assert.deepEqual(detectScaffold(canonical({ scaffold: 'mini-swe-agent@7.1' }, 'swe-agent')), {
      name: 'mini-swe-agent',
      version: '2.x',
      reason: "meta.scaffold is 'mini-swe-agent@7.1'",
      fallback: 'mini-swe-agent version 7.1 is not one we know (known: 1.x, 2.x); using 2.x',
    });
    assert.equal(
      detectScaffold(canonical({ scaffold: 'aider@1', toolBundles: ['tools/windowed'] }, 'swe-agent')).name,
      'swe-agent',
      'a name no family has is left to the guess',
    );
  });
});

describe('--scaffold NAME@VERSION', () => {
  test('a known name with or without a version', () => {
    assert.deepEqual(parseScaffoldSpec('r2e-gym'), { name: 'r2e-gym', version: '69bc953', reason: '--scaffold r2e-gym' });
    assert.equal(parseScaffoldSpec('mini-swe-agent@1.17').version, '1.x');
    assert.equal(parseScaffoldSpec('swe-agent@0.7.0').version, '0.7');
    assert.equal(parseScaffoldSpec('swe-agent@1.0.1').version, '1.0.1');
    assert.equal(parseScaffoldSpec('swe-agent@1.1').version, '1.1.0');
  });

  test('an unknown version falls back to the newest known one, and says which', () => {
    assert.deepEqual(parseScaffoldSpec('swe-agent@7'), {
      name: 'swe-agent',
      version: '3ea751c0',
      reason: '--scaffold swe-agent@7',
      fallback: 'swe-agent version 7 is not one we know (known: 0.2, 0.7, 1.0.0, 1.0.1, 1.1.0, 3ea751c0); using 3ea751c0',
    });
  });

  test('an unknown name is an error listing the choices', () => {
    assert.throws(
      () => parseScaffoldSpec('aider'),
      /--scaffold: unknown scaffold 'aider'; choose NAME or NAME@VERSION from swe-agent@0\.2, swe-agent@0\.7, .*r2e-gym@69bc953, openhands@codeact/,
    );
    assert.throws(() => parseScaffoldSpec('r2e-gym@1@2'), /unknown scaffold/);
  });

  test('the override wins over the recording', async () => {
    const recording = await load(sampleTrajectory('r2e-gym.deepswe.jsonl'));
    const { scaffold, choice } = chooseScaffold({ asked: parseScaffoldSpec('mini-swe-agent@2'), recording });
    assert.equal(scaffold.name, 'mini-swe-agent');
    assert.equal(choice.reason, '--scaffold mini-swe-agent@2');
  });
});
