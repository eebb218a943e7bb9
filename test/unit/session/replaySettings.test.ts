import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aciConfigForRecording } from '../../../extension/core/scaffolds/swe-agent/recordingConfig';
import { sweAgentVersionOf } from '../../../extension/core/scaffolds/swe-agent/tools/sweAgentVersion';
import { replaySettings } from '../../../extension/core/session/containerSession';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { importSweAgent } from '../../../extension/core/scaffolds/swe-agent/trajImporter';
import { toSweAgentTraj } from '../../../extension/core/scaffolds/swe-agent/trajExporter';
import { aTrajectory } from '../../builders/trajectory';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const MARSHMALLOW_BASE = 'bfd2593d4b416122e30cdefe0c72d322ef471611';

async function settingsOf(relative: string) {
  const { trajectory } = await loadTrajectory(thirdParty(relative));
  // What any recording says (terminal, paths, bundles), and what SWE-agent's tools read of it (its scaffold's settings).
  return { trajectory, settings: { ...replaySettings(trajectory), config: aciConfigForRecording(trajectory), sweAgentVersion: sweAgentVersionOf(trajectory) } };
}

describe('the settings a SWE-agent recording is replayed with', () => {
  thirdPartyFiles.test('a 1.x function-calling demo: pty line ends, WINDOW 100 and OVERLAP 2 from env_variables, /testbed, its bundles', async () => {
    const { settings } = await settingsOf('swe-agent/marshmallow-1867.function_calling.traj');
    assert.deepEqual(settings, {
      bundles: ['tools/defaults', 'tools/search', 'tools/edit_replace', 'tools/submit'],
      tty: true,
      repoPath: '/testbed',
      baseCommit: MARSHMALLOW_BASE,
      config: { sweAgentVersion: '1.0.0', crlf: true, window: 100, overlap: 2, baseCommit: MARSHMALLOW_BASE },
      sweAgentVersion: {
        version: '1.0.0',
        reason: 'bundle defaults was renamed after SWE-agent 1.0, and the file states no swe_agent_version (1.0.1 writes it)',
        candidates: ['1.0.0'],
      },
    });
  });

  thirdPartyFiles.test('a 0.7 windowed demo: no pseudo-terminal, and the repository at /<owner>__<repo> as its steps show', async () => {
    const { settings } = await settingsOf('swe-agent/marshmallow-1867.windowed.traj');
    assert.equal(settings.tty, false);
    assert.equal(settings.repoPath, '/marshmallow-code__marshmallow');
    assert.deepEqual(settings.config, { sweAgentVersion: '0.7', window: 100, overlap: 2, baseCommit: MARSHMALLOW_BASE });
  });

  thirdPartyFiles.test('a test-repo run cloned from GitHub: /SWE-agent__test-repo, registry and windowed_edit_replace bundles, base HEAD', async () => {
    const { settings } = await settingsOf('swe-agent/sweagenttestrepo-1c2844.traj');
    assert.equal(settings.repoPath, '/SWE-agent__test-repo');
    assert.deepEqual(settings.bundles, ['tools/registry', 'tools/windowed', 'tools/search', 'tools/windowed_edit_replace', 'tools/submit']);
    assert.deepEqual(settings.config, { sweAgentVersion: '3ea751c0', crlf: true, window: 100, overlap: 2, baseCommit: 'HEAD' });
  });

  thirdPartyFiles.test('a SWE-smith run: USE_FILEMAP and the review message from registry_variables, which its first submit printed', async () => {
    const { trajectory, settings } = await settingsOf('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
    assert.deepEqual(settings.bundles, ['tools/registry', 'tools/edit_anthropic', 'tools/review_on_submit_m']);
    assert.equal(settings.config?.useFilemap, true);
    assert.equal(settings.config?.crlf, true);
    assert.equal(settings.config?.window, undefined);
    const [message, ...more] = settings.config?.submitReviewMessages ?? [];
    assert.equal(more.length, 0);
    assert.match(message ?? '', /^Thank you for your work on this issue\. Please carefully follow the steps below/);
    const firstSubmit = trajectory.steps.find((s) => s.action.tool === 'submit');
    assert.equal(firstSubmit?.index, 14);
    assert.ok(firstSubmit.observation.replace(/\r\n/g, '\n').startsWith(message!.slice(0, message!.indexOf('{{diff}}')).trimEnd()));
  });

  thirdPartyFiles.test('an exported recording keeps its tool variables, so its replay gets the same settings', async () => {
    const { trajectory, settings } = await settingsOf('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
    const reimported = importSweAgent(JSON.parse(toSweAgentTraj(trajectory)), { file: 'exported.traj', base: [] });
    assert.deepEqual(aciConfigForRecording(reimported), settings.config);
  });
});

describe('tool variables read strictly', () => {
  const withVariables = (env: Record<string, unknown>, registry: Record<string, unknown> = {}) =>
    aTrajectory({ task: {}, meta: { toolEnvVariables: env, toolRegistryVariables: registry } });

  test('numbers written as strings and review messages written as a JSON string are read as SWE-agent reads them', () => {
    assert.deepEqual(
      aciConfigForRecording(withVariables({ WINDOW: '50', OVERLAP: '0' }, { SUBMIT_REVIEW_MESSAGES: '["check {{diff}}"]', USE_FILEMAP: 'false' })),
      {
        window: 50,
        overlap: 0,
        useFilemap: false,
        submitReviewMessages: ['check {{diff}}'],
      },
    );
  });

  test('a value that cannot be the setting is an error naming it in replay_config', () => {
    assert.throws(
      () => aciConfigForRecording(withVariables({ WINDOW: 'wide' })),
      /^Error: replay_config\.agent\.tools\.env_variables\.WINDOW: .*, got "wide"$/,
    );
    assert.throws(() => aciConfigForRecording(withVariables({ WINDOW: 0 })), /env_variables\.WINDOW: expected a positive number of lines, got 0/);
    assert.throws(
      () => aciConfigForRecording(withVariables({}, { SUBMIT_REVIEW_MESSAGES: '[1' })),
      /registry_variables\.SUBMIT_REVIEW_MESSAGES: expected a list of strings/,
    );
  });
});
