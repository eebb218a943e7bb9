/**
 * A recording made by R2E-Gym's own tools and code (its tools in the container, its `Action`,
 * `DockerRuntime.run` and `Observation`, the JSONL record its agent writes) on a repository no
 * other test uses, replayed by `swe-workbench replay`: every step matches; with one file of the
 * repository changed, the replay reports the first step whose observation depends on it.
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../extension/cli/replay';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { runCli } from '../helpers/cliRunner';
import { ensureR2eTestImage, installOracleTools, missingOracles, oracleSteps, writeGeneratedRepo } from './r2eOracle';

const xml = (name: string, params: Record<string, string>) =>
  `<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join('')}</function>`;

/** An episode as a model would write it: look around, reproduce, fix, check, finish. */
const EPISODE = [
  xml('search', { search_term: 'def add' }),
  xml('file_editor', { command: 'view', path: '/testbed/inventory/small.py' }),
  xml('execute_bash', { cmd: 'python3 -c "from inventory.small import add; print(add(2, 2))"' }),
  xml('file_editor', { command: 'view', path: '/testbed/inventory/items.py' }),
  xml('file_editor', { command: 'view', path: '/testbed/inventory/items.py', view_range: '[20, 40]' }),
  xml('file_editor', { command: 'str_replace', path: '/testbed/inventory/small.py', old_str: '    return a + b', new_str: '    return int(a) + int(b)' }),
  xml('file_editor', { command: 'create', path: '/testbed/check_add.py', file_text: 'from inventory.small import add\nprint(add("2", 3))\n' }),
  xml('execute_bash', { cmd: 'python3 check_add.py && git status --short' }),
  xml('execute_bash', { cmd: 'python3 -m pytest -q check_add.py 2>&1 | tail -3; exit 0' }),
  xml('file_editor', { command: 'undo_edit', path: '/testbed/inventory/small.py' }),
  xml('execute_bash', { cmd: 'python3 check_add.py' }),
  xml('finish', { command: 'submit', result: 'fixed add' }),
];

// Each test says why it is not run (counted on the summary when ../shared/oracles is absent); hooks do nothing then.
const skip = missingOracles();

describe('replaying an R2E-Gym recording made by R2E-Gym itself', () => {
  let hostDir: string;
  let image: string;
  let recordingFile: string;

  before(async () => {
    if (skip) return;
    image = await ensureR2eTestImage();
    hostDir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-r2e-replay-'));
    await writeGeneratedRepo(path.join(hostDir, 'repo'));
    const sandbox = await DockerSandbox.create({
      image,
      repoDir: path.join(hostDir, 'repo'),
      repoPath: '/testbed',
      labels: { 'swe-workbench.test': 'r2e-replay' },
    });
    try {
      await installOracleTools(sandbox.id);
      const steps = await oracleSteps(sandbox.id, EPISODE);
      const record = {
        trajectory_steps: steps.map((s, i) => ({
          step_idx: i,
          thought: `step ${i}`,
          action: s.action,
          observation: s.observation,
          done: i === steps.length - 1,
          info: {},
        })),
        problem_statement: 'add() should accept numbers written as text',
        docker_image: image,
        exit_reason: 'agent',
        output_patch: '',
        ds: { instance_id: 'inventory-1' },
      };
      recordingFile = path.join(hostDir, 'inventory.jsonl');
      await writeFile(recordingFile, JSON.stringify(record) + '\n');
    } finally {
      await sandbox.dispose();
    }
  });

  after(async () => {
    if (skip) return;
    if (hostDir) await rm(hostDir, { recursive: true, force: true });
  });

  test('every step matches, and the scaffold is named with its evidence', { skip }, async () => {
    const result = await runCli(replayCommand, [recordingFile, '--image', image, '--repo', path.join(hostDir, 'repo'), '--json']);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index?: number; matched?: boolean; diff?: string; summary?: Record<string, unknown> });
    const unmatched = lines.filter((l) => l.matched === false);
    assert.deepEqual(unmatched, [], result.stdout);
    const summary = lines.at(-1)!.summary!;
    assert.equal(summary.matched, EPISODE.length);
    assert.equal(summary.stop, 'submitted');
    assert.deepEqual(summary.scaffold, {
      name: 'r2e-gym',
      version: '69bc953',
      reason: 'an R2E-Gym JSONL record (`trajectory_steps` with `<function=...>` actions)',
    });
    assert.match(result.stderr, /scaffold r2e-gym@69bc953/);
    assert.equal(result.code, 0);
  });

  test('a changed repository is caught at the first step that reads the change', { skip }, async () => {
    const changed = path.join(hostDir, 'changed');
    await cp(path.join(hostDir, 'repo'), changed, { recursive: true });
    // items.py is first shown at step 3 (the search at step 0 counts only .py files mentioning `def add`).
    const items = await readFile(path.join(hostDir, 'repo/inventory/items.py'), 'utf8');
    await writeFile(path.join(changed, 'inventory/items.py'), items.replace('import json', 'import json  # changed'));
    const result = await runCli(replayCommand, [recordingFile, '--image', image, '--repo', changed, '--json']);
    const summary = (JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { summary: { firstDivergence: number } }).summary;
    assert.equal(summary.firstDivergence, 3, result.stdout);
    assert.equal(result.code, 1);
  });
});
