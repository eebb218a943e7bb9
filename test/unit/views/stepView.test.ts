import '../../helpers/families';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { searchSteps, toStepDetail, toStepSummary, toTrajectoryHeader } from '../../../extension/views/stepView';
import { aBashAction, aFormatErrorStep, anAction, aStep, aTrajectory } from '../../builders/trajectory';
import { importTrajectory } from '../../../extension/core/trajectory/load';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_PROBLEM } from '../../../scripts/demo/ledgerDemo';

const repoRoot = path.resolve(__dirname, '../../..');

const steps = [
  aStep({
    thought: 'Look at the schema first.',
    action: anAction({ tool: 'open', raw: 'open src/marshmallow/fields.py 1474', args: { path: 'src/marshmallow/fields.py', line_number: 1474 } }),
    observation: '[File: fields.py (1997 lines total)]',
    source: { pointers: ['/trajectory/0'] },
  }),
  aStep({
    index: 1,
    action: anAction({
      tool: 'edit',
      raw: 'edit 1475:1475\n        return int(round(value.total_seconds() / base_unit.total_seconds()))\nend_of_edit',
      args: {},
    }),
    observation: 'Your proposed edit has introduced new syntax error(s).',
    flags: ['lint-rejected'],
  }),
  aStep({ index: 2, action: aBashAction('python reproduce.py'), observation: 'Traceback (most recent call last):', exitCode: 1 }),
  aFormatErrorStep('no command found', { index: 3, observation: 'Your output was not formatted correctly.' }),
  aStep({
    index: 4,
    action: anAction({ tool: 'submit', raw: 'submit', args: {} }),
    observation: 'diff --git a/src/marshmallow/fields.py',
    flags: ['diverged'],
  }),
];

describe('step views sent to the stepper', () => {
  test('a summary carries the tool, the first action line and the marks', () => {
    assert.deepEqual(toStepSummary(steps[1]!), {
      index: 1,
      tool: 'edit',
      kind: 'edit',
      label: 'edit 1475:1475',
      fullLabel: 'edit 1475:1475\n        return int(round(value.total_seconds() / base_unit.total_seconds()))\nend_of_edit',
      error: true,
      errors: ['lint-rejected'],
      diverged: false,
      flags: ['lint-rejected'],
    });
    assert.equal(toStepSummary(steps[2]!).error, true, 'a non-zero exit code is an error');
    assert.equal(toStepSummary(steps[3]!).error, true, 'a format error is an error');
    assert.equal(toStepSummary(steps[0]!).error, false);
    assert.equal(toStepSummary(steps[4]!).diverged, true);
  });

  test('long first lines are shortened for the timeline', () => {
    const label = toStepSummary(aStep({ action: aBashAction(`echo ${'x'.repeat(200)}`) })).label;
    assert.equal(label.length, 80);
    assert.ok(label.endsWith('…'));
  });

  test('a detail keeps the thought, the arguments and the observation verbatim', () => {
    const detail = toStepDetail(steps[0]!);
    assert.equal(detail.thought, 'Look at the schema first.');
    assert.deepEqual(detail.action.args, { path: 'src/marshmallow/fields.py', line_number: 1474 });
    assert.equal(detail.observation, '[File: fields.py (1997 lines total)]');
    assert.equal(detail.hasSource, true);
  });

  test('search looks through thoughts, actions and observations without case', () => {
    assert.deepEqual(searchSteps(steps, 'TRACEBACK', false), [2]);
    assert.deepEqual(searchSteps(steps, 'TRACEBACK', true), []);
    assert.deepEqual(searchSteps(steps, 'fields.py', false), [0, 4]);
  });

  test('the header lists each tool once, sorted', () => {
    const header = toTrajectoryHeader(aTrajectory({ steps }), 'marshmallow-1867.traj');
    assert.deepEqual(header.tools, ['bash', 'edit', 'open', 'submit']);
    assert.equal(header.stepCount, 5);
    assert.equal(header.exitStatus, 'submitted');
  });
});

describe('what an ATIF v1.7 file adds to the stepper', () => {
  const v18 = {
    schema_version: 'ATIF-v1.8',
    session_id: 's',
    agent: { name: 'probe', version: '1' },
    steps: [
      { step_id: 1, source: 'user', message: 'Go.' },
      { step_id: 2, source: 'agent', message: 'Planning.', llm_call_count: 3, reasoning_effort: 'high', plan_id: 'p1' },
      { step_id: 3, source: 'agent', message: 'Dispatching.', llm_call_count: 0 },
    ],
  };

  test('the header says once that a newer version was read, naming what it did not understand; a step says its model calls and reasoning effort', () => {
    const t = importTrajectory(v18, { file: 'run.json' });
    const header = toTrajectoryHeader(t, 'run.json');
    assert.equal(header.warnings?.length, 1);
    assert.match(header.warnings![0]!, /^ATIF-v1\.8 is newer than ATIF-v1\.7.*\(steps\[\*\]\.plan_id\)/);
    const [planning, dispatching] = t.steps.map((s) => toStepDetail(s, t));
    assert.deepEqual([planning!.llmCalls, planning!.reasoningEffort], ['3 LLM calls (metrics summed)', 'high']);
    assert.deepEqual([dispatching!.llmCalls, dispatching!.reasoningEffort], ['no LLM call (deterministic)', undefined]);
  });

  test('a step that delegated names the trajectories it opens: an embedded one by id, another by its file', () => {
    const doc = {
      schema_version: 'ATIF-v1.7',
      session_id: 's',
      agent: { name: 'orchestrator', version: '1' },
      steps: [
        {
          step_id: 1,
          source: 'agent',
          message: 'Delegating.',
          observation: { results: [{ subagent_trajectory_ref: [{ trajectory_id: 'sub-a' }, { trajectory_path: 'sub-b.json' }] }] },
        },
      ],
      subagent_trajectories: [{ trajectory_id: 'sub-a', agent: { name: 'r', version: '1' }, steps: [{ step_id: 1, source: 'user', message: 'x' }] }],
    };
    const t = importTrajectory(doc, { file: 'run.json' });
    assert.deepEqual(toStepDetail(t.steps[0]!, t).subagents, ['sub-a', 'sub-b.json']);
  });

  test('a file of a version it knows has no warning, and a step that does not say has no model-call line', () => {
    const t = importTrajectory(
      { ...v18, schema_version: 'ATIF-v1.7', steps: v18.steps.map(({ plan_id: _, ...s }: Record<string, unknown>) => s) },
      { file: 'run.json' },
    );
    assert.equal(toTrajectoryHeader(t, 'run.json').warnings, undefined);
    const first = importTrajectory({ ...v18, schema_version: 'ATIF-v1.6', steps: [{ step_id: 1, source: 'agent', message: 'x' }] }, { file: 'x' }).steps[0]!;
    assert.equal(toStepDetail(first).llmCalls, undefined);
  });

  test("a run that keeps the task only in its first user message shows it as the agent was told it, never 'not recorded'", async () => {
    const file = path.join(repoRoot, 'demo/trajectories/ledger-allocate.mini-swe-agent.traj.json');
    const t = importTrajectory(JSON.parse(await readFile(file, 'utf8')), { file });
    const header = toTrajectoryHeader(t, 'ledger-allocate.mini-swe-agent.traj.json');
    assert.equal(header.problemStatement, undefined);
    assert.equal(header.instructions, `Please solve this issue: ${DEMO_PROBLEM}`);
    // A problem statement recorded apart wins; the instructions are then not repeated.
    const stated = toTrajectoryHeader({ ...t, task: { ...t.task, problemStatement: 'Fix it.' } }, 'x');
    assert.deepEqual([stated.problemStatement, stated.instructions], ['Fix it.', undefined]);
  });
});
