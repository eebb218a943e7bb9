import '../../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command } from '../../../extension/cli/rollouts';
import { CancelledError } from '../../../extension/core/errors';
import { exportSft } from '../../../extension/core/rollouts/curation';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { runCli } from '../../helpers/cliRunner';
import { writeLargeRolloutRun } from '../../helpers/largeRolloutRun';
import { sweAgentTraj, workSteps, writeJson } from '../../fixtures/rollouts/runWriter';
import { G7, W101, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';

interface Line {
  id: string;
  instance: string;
  messages: { role: string; content: string; weight?: number; tool_calls?: unknown[] }[];
  loss_mask: number[];
  metadata: { resolved: boolean | null; git_history: { step: number; command: string }[]; recipe?: { name: string; version: string; reward: number | null } };
}
const readLines = (file: string): Line[] =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('curation: SFT export of selected rollouts', () => {
  let root: string;
  let outDir: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-curation-'));
    outDir = mkdtempSync(join(tmpdir(), 'swe-workbench-curation-out-'));
    writeTrainingRun(root);
    // A fifth W101 attempt that reads the upstream fix from git history before editing.
    const steps = [
      { thought: 'What changed upstream?', action: 'git log --oneline -5 -- src/widgets', observation: 'a1b2c3d Fix odd widths' },
      { thought: 'Show it.', action: 'cd /testbed && git diff HEAD~1 -- src/widgets/resize.py', observation: '-    return w, w // ratio' },
      ...workSteps(2),
    ];
    writeJson(root, `attempt_5/${W101}/${W101}.traj`, sweAgentTraj({ instance: W101, steps, exit: 'submitted', patch: '', namedInConfig: true }));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  });

  test('git history reads are found in git log, git show and git diff against HEAD~, not in a plain git diff', async () => {
    const run = mkdtempSync(join(tmpdir(), 'swe-workbench-git-history-'));
    try {
      const actions = ['git diff', 'git status', 'git show HEAD:src/a.py', 'git --no-pager log -p', 'git diff HEAD^ src'];
      const steps = actions.map((action) => ({ thought: 'Look.', action, observation: '' }));
      writeJson(run, `attempt_1/${W101}/${W101}.traj`, sweAgentTraj({ instance: W101, steps, exit: 'submitted', patch: '', namedInConfig: true }));
      const file = join(outDir, 'git-history.jsonl');
      await exportSft(run, (await indexRollouts(run)).rollouts, file);
      assert.deepEqual(
        readLines(file).map((l) => l.metadata.git_history.map((g) => g.step)),
        [[2, 3, 4]],
      );
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });

  test('--export writes the filtered rollouts as chat messages: assistant turns trained, observations masked', async () => {
    const file = join(outDir, 'w101.jsonl');
    const { stdout } = await runCli(command, ['export', root, '--filter', `instance=${W101}`, '--out', file]);
    assert.match(stdout, /^wrote 5 of 5 selected rollouts to .*w101\.jsonl \(\d+ bytes\)$/m);
    const lines = readLines(file);
    assert.equal(lines.length, 5);
    const first = lines.find((l) => l.id === `attempt_1/${W101}/${W101}.traj`)!;
    assert.deepEqual(
      first.messages.map((m) => m.role),
      ['system', 'user', ...Array.from({ length: 6 }, () => ['assistant', 'user']).flat()],
    );
    assert.deepEqual(
      first.loss_mask,
      first.messages.map((m) => (m.role === 'assistant' ? 1 : 0)),
    );
    assert.ok(first.messages.filter((m) => m.role === 'assistant').every((m) => m.weight === 1));
    assert.equal(first.messages[2]!.content, 'Let me look at the resize code.\n\nopen "src/widgets/resize.py" 10');
    assert.equal(first.messages[5]!.content, 'width=7 height=3 expected height=4');
  });

  test('a user turn kept in its place (a summarisation handoff) is exported as a user message, not trained on', async () => {
    const run = mkdtempSync(join(tmpdir(), 'swe-workbench-curation-atif-'));
    try {
      const call = (id: string, command: string, content: string) => ({
        tool_calls: [{ tool_call_id: id, function_name: 'bash', arguments: { command } }],
        observation: { results: [{ source_call_id: id, content }] },
      });
      writeFileSync(
        join(run, 'trial.json'),
        JSON.stringify({
          schema_version: 'ATIF-v1.6',
          session_id: 's-1',
          agent: { name: 'terminus-2', version: '1.0', model_name: 'm' },
          steps: [
            { step_id: 1, source: 'user', message: 'Fix the widths.' },
            { step_id: 2, source: 'agent', message: 'Look first.', ...call('c1', 'ls', 'a.py') },
            { step_id: 3, source: 'user', message: 'Summary so far: a.py holds the widths. Continue.' },
            { step_id: 4, source: 'agent', message: 'Edit it.', ...call('c2', 'sed -i s/1/2/ a.py', '') },
          ],
        }),
      );
      const file = join(outDir, 'atif.jsonl');
      const { code, stderr } = await runCli(command, ['export', run, '--out', file]);
      assert.equal(code, 0, stderr);
      const [line] = readLines(file);
      assert.deepEqual(
        line!.messages.map((m) => [m.role, m.weight]),
        [
          ['user', undefined],
          ['assistant', 1],
          ['tool', undefined],
          ['user', undefined],
          ['assistant', 1],
          ['tool', undefined],
        ],
      );
      assert.equal(line!.messages[3]!.content, 'Summary so far: a.py holds the widths. Continue.');
      assert.deepEqual(line!.loss_mask, [0, 1, 0, 0, 1, 0]);
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });

  test('the git-history reader is flagged in the summary and its line, and no-git-history leaves it out', async () => {
    const file = join(outDir, 'flagged.jsonl');
    const { stdout } = await runCli(command, ['export', root, '--filter', `instance=${W101}`, '--out', file]);
    assert.match(
      stdout,
      /^1 rollout\(s\) read git history:\n {2}attempt_5\/acme__widgets-101\/acme__widgets-101\.traj {2}step 1: git log --oneline -5 -- src\/widgets$/m,
    );
    const flagged = readLines(file).find((l) => l.id.startsWith('attempt_5/'))!;
    assert.deepEqual(
      flagged.metadata.git_history.map((g) => g.step),
      [0, 1],
    );
    const kept = join(outDir, 'kept.jsonl');
    const out = JSON.parse(
      (await runCli(command, ['export', root, '--filter', `instance=${W101}`, '--out', kept, '--keep', 'no-git-history', '--json'])).stdout,
    );
    assert.equal(out.written, 4);
    assert.deepEqual(out.skipped, { 'read git history': 1 });
  });

  test('--keep mixed,resolved: the resolved rollouts of the groups with passes and failures', async () => {
    const file = join(outDir, 'mixed.jsonl');
    const out = JSON.parse((await runCli(command, ['export', root, '--out', file, '--keep', 'mixed,resolved,max-turns=8', '--json'])).stdout);
    // Resolved: W101 #1 (6 steps) and #4 (9), G7 #1 (9), S3 #1 (4) and S3 #3 (5); W202 is never solved (not mixed).
    // max-turns=8 leaves out W101 #4 and G7 #1.
    assert.deepEqual(
      readLines(file)
        .map((l) => l.id)
        .sort(),
      [`attempt_1/${W101}/${W101}.traj`, 'rllm/episodes.jsonl:1', 'rllm/episodes.jsonl:4'],
    );
    assert.equal(out.skipped['more than 8 turns'], 2);
  });

  test('with a recipe, the rollouts it masks are left out', async () => {
    const file = join(outDir, 'recipe.jsonl');
    const out = JSON.parse((await runCli(command, ['export', root, '--filter', `instance=${G7}`, '--recipe', 'swe-bench', '--out', file, '--json'])).stdout);
    assert.equal(out.written, 3);
    assert.deepEqual(out.skipped, { "masked: container error: exit status 'RuntimeError'": 1 });
    assert.deepEqual(
      readLines(file).map((l) => l.metadata.recipe),
      [1, 0, 0].map((reward) => ({ name: 'swe-bench', version: '1', reward })),
    );
  });

  test('a cancelled export leaves the target as it was and no partial file', async () => {
    const file = join(outDir, 'cancelled.jsonl');
    writeFileSync(file, 'the previous export\n');
    const index = await indexRollouts(root);
    const controller = new AbortController();
    await assert.rejects(
      exportSft(index.root, index.rollouts, file, { signal: controller.signal, onProgress: (p) => p.done === 3 && controller.abort('cancelled') }),
      CancelledError,
    );
    assert.equal(readFileSync(file, 'utf8'), 'the previous export\n');
    assert.deepEqual(
      readdirSync(outDir).filter((f) => f.includes('partial')),
      [],
    );
  });

  test('a bad preset, --keep outside export and export without --out are usage errors', async () => {
    await assert.rejects(
      runCli(command, ['export', root, '--out', join(outDir, 'x.jsonl'), '--keep', 'mixed,shortest']),
      /unknown filter 'shortest'; one of mixed/,
    );
    await assert.rejects(runCli(command, ['export', root, '--out', join(outDir, 'x.jsonl'), '--keep', 'max-turns=many']), /max-turns takes a whole number/);
    await assert.rejects(runCli(command, ['list', root, '--keep', 'mixed']), /rollouts list has no option --keep: it is an option of rollouts export/);
    await assert.rejects(runCli(command, ['export', root]), /--out is required/);
    assert.equal(existsSync(join(outDir, 'x.jsonl')), false);
  });

  test('10,000 rollouts export line for line', async () => {
    const large = writeLargeRolloutRun();
    try {
      const file = join(outDir, 'large.jsonl');
      const index = await indexRollouts(large.root);
      const summary = await exportSft(index.root, index.rollouts, file);
      assert.equal(summary.written, 10_000);
      const text = readFileSync(file, 'utf8');
      assert.equal(text.split('\n').length - 1, 10_000);
      assert.equal(summary.bytes, Buffer.byteLength(text));
    } finally {
      large.cleanup();
    }
  });
});
