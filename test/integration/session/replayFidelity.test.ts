import '../../helpers/families';
import { test, describe, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { command as replayCommand } from '../../../extension/cli/replay';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { PersonSource } from '../../../extension/core/session/actionSources';
import { startContainerSession } from '../../../extension/core/session/containerSession';
import { DebugSession } from '../../../extension/core/session/debugSession';
import { writeTrajectoryFile } from '../../../extension/core/session/trajectoryRecorder';
import { OWNER_LABEL, SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';
import { sampleRepoCopy } from '../../helpers/ledgerAgentScript';

const ROLE = 'replay-fidelity-test';
let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
let work: string;

async function leftoverContainers(): Promise<string[]> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABEL}=${hostname()}:${process.pid}`] } });
  return list.filter((c) => [ROLE, 'replay'].includes(c.Labels['swe-workbench.role'] ?? '')).map((c) => c.Id);
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

before(async () => {
  repo = await sampleRepoCopy();
  work = await mkdtemp(path.join(tmpdir(), 'swb-replay-fidelity-'));
});
after(async () => {
  await repo.cleanup();
  await rm(work, { recursive: true, force: true });
});
afterEach(async () => {
  assert.deepEqual(await leftoverContainers(), [], 'no sandbox container is left behind');
});

describe('a recording made under a pseudo-terminal with WINDOW=10 replays as it printed', () => {
  const recordingFile = () => path.join(work, 'pty-window10.traj');
  let live: Trajectory;

  test('the live session prints \\r\\n line ends and 10-line windows, and records the diff of its edit in the step state', async () => {
    const tools = toolSetFor(['windowed', 'search', 'edit_anthropic', 'submit', 'diff_state']);
    const aci = await startContainerSession({
      image: TEST_IMAGE,
      repoDir: repo.dir,
      repoPath: '/repo',
      tools,
      tty: true,
      config: { crlf: true, window: 10 },
      role: ROLE,
    });
    const person = new PersonSource(tools);
    person.type('open "ledger/money.py" 75');
    person.type('scroll_down');
    person.type({
      tool: 'str_replace_editor',
      args: { command: 'str_replace', path: '/repo/ledger/money.py', old_str: '        index = 0\n', new_str: '        index = len(parts) - 1\n' },
    });
    person.type('ls ledger');
    person.end();
    const session = new DebugSession({
      aci,
      sources: [person],
      task: { image: TEST_IMAGE, repoPath: '/repo', baseCommit: repo.commits.at(-1)!.sha },
      meta: { toolBundles: [...tools.bundles], pty: true, toolEnvVariables: { WINDOW: 10 } },
    });
    const stop = await session.continue();
    live = await session.finish();
    assert.equal(stop.reason, 'exhausted');
    assert.equal(live.steps.length, 4);
    const [open, scroll, edit, ls] = live.steps;
    assert.match(open!.observation, /^\[File: ledger\/money\.py \(115 lines total\)\]\r\n\(72 more lines above\)\r\n73:/);
    assert.equal(open!.observation.match(/^\d+:/gm)?.length, 10);
    assert.match(scroll!.observation, /\r\n\(80 more lines above\)\r\n81: {8}parts = \[\r\n/, 'scrolling moves WINDOW - OVERLAP lines');
    assert.match(ls!.observation, /^__init__\.py +errors\.py\s+money\.py +reports\.py\r\naccounts\.py/, 'ls prints columns under a terminal');
    assert.equal(open!.state?.diff, '', 'nothing is changed before the edit');
    assert.match(edit!.state?.diff ?? '', /^diff --git a\/ledger\/money\.py b\/ledger\/money\.py\n/);
    assert.match(edit!.state?.diff ?? '', /^-        index = 0\n\+        index = len\(parts\) - 1$/m);
    await writeTrajectoryFile(recordingFile(), live);
  });

  test('replay reads the settings from the .traj and matches every step with line ends and whitespace compared exactly', async () => {
    const result = await runCli(replayCommand, [recordingFile(), '--image', TEST_IMAGE, '--repo', repo.dir, '--json', '--forgive', 'ansi']);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.deepEqual(jsonLines(result.stdout).at(-1), {
      summary: {
        scaffold: {
          name: 'swe-agent',
          version: '3ea751c0',
          // The session ran no named version, so the file says only 'swe-agent'; the replay settles it.
          reason:
            "meta.scaffold is 'swe-agent', without a version; bundle windowed exists only in SWE-agent 1.1 and later, and the file states no version; replayed under 3ea751c0 and 1.1.0, every step printed alike: using 3ea751c0",
        },
        steps: 4,
        recorded: 4,
        matched: 4,
        firstDivergence: null,
        stop: 'exhausted',
      },
    });
  });

  test('the same recording without its WINDOW variable diverges at the open step, which then shows the default 100 lines', async () => {
    const traj = JSON.parse(await readFile(recordingFile(), 'utf8')) as { replay_config: string };
    const config = JSON.parse(traj.replay_config) as { agent: { tools: { env_variables: Record<string, unknown> } } };
    assert.deepEqual(config.agent.tools.env_variables, { WINDOW: 10 });
    config.agent.tools.env_variables = {};
    const file = path.join(work, 'no-window.traj');
    await writeFile(file, JSON.stringify({ ...traj, replay_config: JSON.stringify(config) }));
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', repo.dir, '--json', '--until', '1']);
    assert.equal(result.code, 1);
    const [first] = jsonLines(result.stdout);
    assert.equal(first!.matched, false);
    assert.match(String(first!.diff), /^-\(72 more lines above\)\n\+\(15 more lines above\)$/m);
  });
});

describe('Pyright in a session', () => {
  test('a session that used the lsp tools ends with no language server running when its sandbox is removed', async () => {
    const tools = toolSetFor(['windowed', 'lsp']);
    const aci = await startContainerSession({ image: TEST_IMAGE, repoDir: repo.dir, repoPath: '/repo', tools, role: ROLE });
    const langservers = () => aci.sandbox.exec('ps -eo args | grep -c "[l]angserver.index.js"', { cwd: '/' }).then((r) => Number(r.output.trim()));
    const removeSandbox = aci.sandbox.dispose.bind(aci.sandbox);
    let atRemoval: number | undefined;
    aci.sandbox.dispose = async () => {
      atRemoval = await langservers();
      await removeSandbox();
    };
    const person = new PersonSource(tools);
    person.type({ tool: 'document_symbols', args: { path: 'ledger/money.py' } });
    person.end();
    const session = new DebugSession({ aci, sources: [person], task: { repoPath: '/repo' } });
    await session.step();
    assert.match(session.steps[0]!.observation, /class Money/);
    assert.equal(await langservers(), 1, 'the lsp tool started Pyright');
    await session.continue();
    await session.finish();
    assert.equal(atRemoval, 0);
  });
});
