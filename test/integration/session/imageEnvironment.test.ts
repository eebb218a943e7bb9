/**
 * An image's own environment, as a SWE-bench image has it: its /root/.bashrc activates the
 * conda `testbed` environment (here a stand-in that does what `conda activate` does: a
 * directory first on PATH with its own `python`, and CONDA_DEFAULT_ENV). Each scaffold's
 * commands see it exactly when the scaffold's own shell would have read that file.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { startContainerSession } from '../../../extension/core/session/containerSession';
import { sweAgentFamily } from '../../../extension/core/scaffolds/swe-agent';
import { openHandsFamily } from '../../../extension/core/scaffolds/openhands';
import { miniSweAgentFamily } from '../../../extension/core/scaffolds/mini-swe-agent';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Scaffold } from '../../../extension/core/scaffolds/scaffold';
import { runCli } from '../../helpers/cliRunner';
import { ensureTestImage } from '../../helpers/testImage';

const exec = promisify(execFile);
const IMAGE = 'swe-workbench/test-conda-profile:1';
const PROBE = 'python --version; echo "env=$CONDA_DEFAULT_ENV"';
const ACTIVATED = 'Python from testbed\nenv=testbed\n';

let work: string;
let repo: string;

/** The base image with a /root/.bashrc that activates a fake `testbed` env, as SWE-bench's images write theirs; built offline. */
async function ensureImage(): Promise<void> {
  await ensureTestImage(IMAGE, 'FROM swe-workbench/base:bookworm\nCOPY python /opt/miniconda3/envs/testbed/bin/python\nCOPY bashrc /root/.bashrc\n', {
    python: { text: '#!/bin/sh\necho "Python from testbed"\n', mode: 0o755 },
    bashrc: 'export PATH=/opt/miniconda3/envs/testbed/bin:$PATH\nexport CONDA_DEFAULT_ENV=testbed\n',
  });
}

/** What PROBE prints through the scaffold's shell tool in a container of IMAGE. */
async function probe(scaffold: Scaffold, tool: string): Promise<string> {
  const aci = await startContainerSession({ image: IMAGE, repoDir: repo, repoPath: '/testbed', role: 'test', scaffold });
  try {
    const result = await aci.runTool(tool, { command: PROBE });
    return result.observation;
  } finally {
    await aci.dispose();
  }
}

/** A mini-swe-agent run file in 2.x's form (tool calls, `extra.actions`, `role: exit`) of one PROBE call that printed `output`. */
async function miniRun(name: string, version: string, environment: Record<string, unknown>, output: string): Promise<string> {
  const file = path.join(work, name);
  const toolCalling = version.startsWith('2');
  const reply = toolCalling
    ? {
        role: 'assistant',
        content: 'Which python?',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: PROBE }) } }],
        extra: { actions: [{ command: PROBE, tool_call_id: 'call_1' }] },
      }
    : { role: 'assistant', content: `Which python?\n\n\`\`\`bash\n${PROBE}\n\`\`\`` };
  const observation = `<returncode>0</returncode>\n<output>\n${output}</output>`;
  const messages = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
    reply,
    toolCalling
      ? { role: 'tool', tool_call_id: 'call_1', content: observation, extra: { raw_output: output, returncode: 0 } }
      : { role: 'user', content: observation },
  ];
  await writeFile(
    file,
    JSON.stringify({
      trajectory_format: toolCalling ? 'mini-swe-agent-1.1' : 'mini-swe-agent-1',
      info: { mini_version: version, config: { environment: { cwd: '/testbed', ...environment } } },
      messages,
    }),
  );
  return file;
}

async function replayMatched(file: string): Promise<unknown> {
  const result = await runCli(replayCommand, [file, '--image', IMAGE, '--repo', repo, '--workdir', '/testbed', '--json']);
  const summary = (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { summary: Record<string, unknown> }).summary;
  return [summary.matched, summary.recorded];
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'swb-image-env-'));
  repo = path.join(work, 'repo');
  await mkdir(repo);
  await writeFile(path.join(repo, 'README'), 'nothing here\n');
  await exec('git', ['init', '-q'], { cwd: repo });
  await ensureImage();
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("each scaffold's commands see the image's profile as its own shell would", () => {
  test('SWE-agent 1.x (SWE-ReX sources /root/.bashrc) and 0.7 (a login shell, whose ~/.profile reads it) run the testbed python', async () => {
    // 1.x strips the output's last newline, 0.7 keeps it.
    assert.equal(await probe(sweAgentFamily.create('1.1.0'), 'bash'), ACTIVATED.trimEnd());
    assert.equal(await probe(sweAgentFamily.create('0.7'), 'bash'), ACTIVATED);
  });

  test('OpenHands (its tmux shell is `su root -`, a login shell) runs the testbed python', async () => {
    const observation = await probe(openHandsFamily.create('codeact'), 'execute_bash');
    assert.ok(observation.startsWith(ACTIVATED.trimEnd()), observation);
  });

  test('mini-swe-agent: 1.x `bash -lc` and 2.x `bash -c` with BASH_ENV=/root/.bashrc replay matched; 2.x `bash -c` without BASH_ENV sees the base python', async () => {
    const login = await miniRun('mini1.traj.json', '1.17.5', {}, ACTIVATED);
    assert.deepEqual(await replayMatched(login), [1, 1]);
    const bashEnv = await miniRun('mini2.traj.json', '2.4.6', { interpreter: ['bash', '-c'], env: { BASH_ENV: '/root/.bashrc' } }, ACTIVATED);
    assert.deepEqual(await replayMatched(bashEnv), [1, 1]);
    const plain = miniSweAgentFamily.create('2.x', undefined);
    assert.equal(await probe(plain, 'bash'), `<returncode>0</returncode>\n<output>\n${ACTIVATED}</output>`, '2.x defaults to bash -lc');
    const nonLogin = await miniRun('mini2-plain.traj.json', '2.4.6', { interpreter: ['bash', '-c'] }, ACTIVATED);
    const recording = await loadTrajectory(nonLogin);
    const observation = await probe(miniSweAgentFamily.create('2.x', recording.trajectory), 'bash');
    assert.match(observation, /bash: line 1: python: command not found\nenv=\n/);
  });
});
