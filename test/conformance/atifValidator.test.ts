/**
 * What `convert --to atif` writes, checked by the two reference readings of ATIF v1.7: Harbor's
 * own validator (../shared/oracles/harbor-6c9ba3f, the models Terminus-2 2.0.0 writes with) and
 * NVIDIA's nat.atif models (../shared/oracles/atif-v1.7), run in a Debian 13 container for the
 * pydantic 2 they need (Debian 12 has pydantic 1). Every format we read, written as ATIF, passes
 * both; so do the v1.7 files with subagents written here; and a file that breaks v1.7's rule for
 * references is refused by both, so the check can fail.
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe } from 'node:test';
import { exportTrajectory } from '../../extension/core/trajectory/exporters';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { ensurePydanticImage } from '../helpers/pydanticImage';
import { needsShared } from '../helpers/sharedFolder';
import { sampleTrajectory, thirdParty } from '../helpers/trajectoryFiles';

const run = promisify(execFile);
const oracles = needsShared('oracles');
const thirdParties = needsShared('fixtures/third-party');
const DRIVER = path.join(__dirname, 'atifValidatorDriver.py');

const SAMPLES = [
  'mini-swe-agent-1.1.tool-calls.traj.json',
  'openai-messages.parallel-calls.json',
  'openhands.output.jsonl',
  'r2e-gym.deepswe.jsonl',
  'rllm.episode.json',
  'skyrl.result.json',
  'swe-agent.retry-attempts.traj',
].map(sampleTrajectory);
const THIRD_PARTY = [
  'swe-agent/marshmallow-1867.function_calling.traj',
  'swe-agent/marshmallow-1867.windowed.traj',
  'mini-swe-agent/github_issue.traj.json',
  'openhands/basic.json',
  'harbor/golden/openhands/hello-world.trajectory.json',
  // Joined with its continuation: one file holding the whole run, its copied head marked.
  'harbor/golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.json',
  'harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json',
];

/** A v1.7 run that delegated to two subagents embedded in it (resolved by trajectory_id). */
function withSubagents(brokenRef = false): unknown {
  const sub = (id: string) => ({
    schema_version: 'ATIF-v1.7',
    trajectory_id: id,
    agent: { name: 'researcher', version: '0.3' },
    steps: [
      { step_id: 1, source: 'user', message: 'Find it.' },
      { step_id: 2, source: 'agent', message: 'Found.', llm_call_count: 2, reasoning_effort: 'low', metrics: { prompt_tokens: 7 } },
    ],
  });
  return {
    schema_version: 'ATIF-v1.7',
    session_id: 'run-1',
    trajectory_id: 'root',
    agent: { name: 'orchestrator', version: '1.0' },
    steps: [
      { step_id: 1, source: 'user', message: 'Compare the two.' },
      {
        step_id: 2,
        source: 'agent',
        message: 'Delegating.',
        llm_call_count: 0,
        tool_calls: [{ tool_call_id: 'd1', function_name: 'delegate', arguments: {}, extra: { timeout_s: 30 } }],
        observation: {
          results: [
            {
              source_call_id: 'd1',
              extra: { score: 1 },
              subagent_trajectory_ref: brokenRef ? [{ session_id: 'run-1' }] : [{ trajectory_id: 'sub-a', session_id: 'run-1' }, { trajectory_id: 'sub-b' }],
            },
          ],
        },
      },
    ],
    subagent_trajectories: [sub('sub-a'), sub('sub-b')],
  };
}

interface Verdict {
  file: string;
  harbor: string[];
  nvidia: string[];
}

describe("ATIF written here, read by Harbor's validator and NVIDIA's models (v1.7)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-atif-oracle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const written: string[] = [];
  let verdicts: Verdict[] = [];

  const write = (name: string, text: string) => {
    const file = path.join(dir, `${written.length}-${path.basename(name)}.json`);
    writeFileSync(file, text);
    written.push(file);
  };

  before(async () => {
    if (!oracles.present || !thirdParties.present) return;
    for (const file of [...SAMPLES, ...THIRD_PARTY.map(thirdParty)]) write(file, exportTrajectory((await loadTrajectory(file)).trajectory, 'atif'));
    const parent = path.join(dir, 'subagents.json');
    writeFileSync(parent, JSON.stringify(withSubagents()));
    write('subagents-converted', exportTrajectory((await loadTrajectory(parent)).trajectory, 'atif'));
    write('subagents-broken', JSON.stringify(withSubagents(true)));
    const image = await ensurePydanticImage();
    const mounts = [
      `${dir}:${dir}:ro`,
      `${oracles.path('harbor-6c9ba3f/src')}:/oracle/harbor:ro`,
      `${oracles.path('atif-v1.7/src')}:/oracle/nat:ro`,
      `${DRIVER}:/oracle/driver.py:ro`,
    ].flatMap((m) => ['-v', m]);
    const { stdout } = await run(
      'docker',
      ['run', '--rm', '--network', 'none', ...mounts, '-e', 'PYTHONPATH=/oracle/harbor:/oracle/nat', image, 'python3', '/oracle/driver.py', ...written],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    verdicts = JSON.parse(stdout);
  });

  oracles.test('every format we read, written as ATIF v1.7, passes both', () => {
    const passing = verdicts.filter((v) => !v.file.includes('subagents-broken'));
    assert.equal(passing.length, SAMPLES.length + THIRD_PARTY.length + 1);
    for (const v of passing) assert.deepEqual([v.harbor, v.nvidia], [[], []], v.file);
  });

  oracles.test('a reference by session_id alone, which v1.7 no longer resolves, is refused by both', () => {
    const broken = verdicts.find((v) => v.file.includes('subagents-broken'))!;
    assert.ok(
      broken.harbor.some((e) => /resolvable/.test(e)),
      broken.harbor.join('\n'),
    );
    assert.ok(broken.nvidia.length > 0);
  });
});
