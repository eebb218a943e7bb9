import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { alignRuns, normaliseAction, type NormalisedAction } from '../../../extension/core/trajectory/alignSteps';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Action, Trajectory } from '../../../extension/core/trajectory/model';
import { W101, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';
import { repoRoot, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** Each scaffold's action for one shell command line, as its importer reads it. */
const sweAgentTool = (line: string, tool: string, args: Record<string, unknown>): Action => ({ raw: line, tool, args });
const bash = (command: string): Action => ({ raw: command, tool: 'bash', args: { command } });
const r2eBash = (cmd: string): Action => ({
  raw: `<function=execute_bash>\n<parameter=cmd>${cmd}</parameter>\n</function>`,
  tool: 'execute_bash',
  args: { cmd },
});
const openHandsRun = (command: string): Action => ({
  raw: command,
  tool: 'run',
  args: { command, is_input: false, blocking: false, hidden: false, confirmation_state: 'confirmed' },
});
const norm = (actions: Action[], repo = '/repo') => actions.map((a) => normaliseAction(a, repo));
/** A run of plain shell commands, one per name. */
const run = (...commands: string[]): NormalisedAction[] => norm(commands.map(bash));
const stepsOf = (t: Trajectory) => t.steps.map((s) => normaliseAction(s.action, t.task.repoPath));

describe('aligning runs of one task by action', () => {
  test('normalised: the same command with other whitespace or quoting, in the repository or cd-ed into it', () => {
    const key = (a: Action, repo?: string) => normaliseAction(a, repo).key;
    assert.equal(key(bash('python  -m pytest\n-q')), key(bash('python -m pytest -q')));
    assert.equal(key(bash(`grep -n 'def allocate' ledger/money.py`)), key(bash('grep -n "def allocate" ledger/money.py')));
    assert.equal(key(bash('cd /testbed && python reproduce.py'), '/testbed'), key(bash('python reproduce.py'), '/repo'));
    assert.equal(key(bash('cat /testbed/src/a.py'), '/testbed'), key(bash('cat src/a.py'), '/repo'));
    assert.notEqual(key(bash('python reproduce.py')), key(bash('python reproduce.py --odd')));
  });

  test('mixed scaffolds: one command line as SWE-agent, mini-swe-agent, R2E-Gym and OpenHands write it is one action', () => {
    const line = 'open "src/widgets/resize.py" 10';
    const forms = [sweAgentTool(line, 'open', { path: 'src/widgets/resize.py', line_number: 10 }), bash(line), r2eBash(line), openHandsRun(line)];
    const keys = forms.map((a) => normaliseAction(a, '/testbed').key);
    assert.deepEqual(new Set(keys).size, 1, keys.join(' | '));
    assert.equal(normaliseAction(forms[0]!).kind, 'view', 'a shell line opening a file views it');
    assert.equal(normaliseAction(forms[2]!).target, 'src/widgets/resize.py');
    // The same file at another line is another action, alike but not the same.
    assert.notEqual(normaliseAction(sweAgentTool('open "src/widgets/resize.py" 15', 'open', { path: 'src/widgets/resize.py', line_number: 15 })).key, keys[0]);
  });

  test('mixed scaffolds: the editors of SWE-agent, OpenHands and R2E-Gym are one tool; every way of submitting is a submission', () => {
    const view = [
      normaliseAction(
        { raw: 'str_replace_editor view /testbed/src/a.py', tool: 'str_replace_editor', args: { command: 'view', path: '/testbed/src/a.py' } },
        '/testbed',
      ),
      normaliseAction(
        { raw: '', tool: 'str_replace_editor', args: { command: 'view', path: '/workspace/src/a.py', impl_source: 'oh_aci', thought: '' } },
        '/workspace',
      ),
      normaliseAction(
        {
          raw: '<function=file_editor>\n<parameter=command>view</parameter>\n<parameter=path>/testbed/src/a.py</parameter>\n</function>',
          tool: 'file_editor',
          args: { command: 'view', path: '/testbed/src/a.py' },
        },
        '/testbed',
      ),
    ];
    assert.equal(new Set(view.map((v) => v.key)).size, 1, view.map((v) => v.key).join(' | '));
    const submissions: Action[] = [
      { raw: 'submit', tool: 'submit', args: {} },
      { raw: '<function=finish>\n<parameter=command>submit</parameter>\n</function>', tool: 'finish', args: { command: 'submit' } },
      { raw: 'Done; submit.', tool: 'finish', args: { final_thought: 'Done; submit.', outputs: {} } },
      bash('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached'),
    ];
    assert.deepEqual(
      submissions.map((a) => normaliseAction(a).key),
      ['submit', 'submit', 'submit', 'submit'],
    );
  });

  test('a step one run inserted is a gap in the other, and the rest still pairs up', () => {
    assert.deepEqual(
      alignRuns([run('ls', 'cat x', 'pytest'), run('ls', 'pip install y', 'cat x', 'pytest')]).rows.map((r) => r.steps),
      [
        [0, 0],
        [null, 1],
        [1, 2],
        [2, 3],
      ],
    );
  });

  test('shared prefix: three runs with the same first steps part at the first step that differs', () => {
    const runs = [
      run('ls', 'grep -n CENTS money.py', 'sed -i s/100/1000/ money.py', 'pytest'),
      run('ls', 'grep -n CENTS money.py', 'sed -i s/100/1000/ money.py', 'pytest'),
      run('ls', 'grep -n CENTS money.py', 'rm money.py'),
    ];
    const { rows, firstDivergence } = alignRuns(runs);
    assert.equal(firstDivergence, 2);
    assert.deepEqual(
      rows.map((r) => r.steps),
      [
        [0, 0, 0],
        [1, 1, 1],
        [2, 2, 2],
        [3, 3, null],
      ],
    );
    assert.deepEqual(
      rows.map((r) => r.same),
      [true, true, false, false],
    );
  });

  test('runs that do the same throughout have no divergence', () => {
    const same = run('ls', 'pytest');
    assert.equal(alignRuns([same, same]).firstDivergence, null);
  });

  test('repeated blocks: a run that repeats its first five actions later is matched on the first time it took them', () => {
    const block = ['open src/w.py', 'python reproduce.py', 'grep -rn resize src', 'sed -i s/a/b/ src/w.py', 'pytest -q'];
    const once = run(...block, 'submit');
    const twice = run(...block, ...block, 'git diff');
    const { rows, firstDivergence } = alignRuns([once, twice]);
    assert.equal(firstDivergence, 5, 'they part after the five shared actions, at row 6');
    assert.deepEqual(
      rows.slice(0, 5).map((r) => r.steps),
      [0, 1, 2, 3, 4].map((k) => [k, k]),
    );
    assert.deepEqual(
      rows.map((r) => r.steps[1]),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      'every step of the repeating run in order',
    );
  });

  test('repeated blocks after a first step that differs: ties go to the earliest match', () => {
    const { rows, firstDivergence } = alignRuns([run('ls', 'cat x', 'pytest'), run('cat x', 'pytest', 'cat x', 'pytest')]);
    assert.equal(firstDivergence, 0);
    assert.deepEqual(
      rows.map((r) => r.steps),
      [
        [0, null],
        [1, 0],
        [2, 1],
        [null, 2],
        [null, 3],
      ],
    );
  });

  test('a fork taken after step 1 parts at row 2, and the runs meet again at the submission', () => {
    const original = run('grep -n allocate money.py', "sed -n '75,92p' money.py", 'grep -c def tests.py', 'submit');
    const fork = run('grep -n allocate money.py', 'python3 -c "print(1)"', 'submit');
    const { rows, firstDivergence } = alignRuns([original, fork]);
    assert.equal(firstDivergence, 1);
    assert.deepEqual(rows[0]!.steps, [0, 0]);
    assert.deepEqual(rows.at(-1), { steps: [3, 2], same: true });
  });
});

describe('aligning recorded runs', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'swe-workbench-align-'));
    writeTrainingRun(folder);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  const load = async (file: string, record?: number) => (await loadTrajectory(file, record === undefined ? {} : { record })).trajectory;
  const demo = (name: string) => load(path.join(repoRoot, 'demo/trajectories', name));

  test('the acme__widgets-101 group (SWE-agent twice, mini-swe-agent, R2E-Gym) shares its first five actions and parts at row 6', async () => {
    const runs = await Promise.all([
      load(path.join(folder, `attempt_1/${W101}/${W101}.traj`)),
      load(path.join(folder, `attempt_2/${W101}/${W101}.traj`)),
      load(path.join(folder, `attempt_3/${W101}/${W101}.traj.json`)),
      load(path.join(folder, 'attempt_4/deepswe.jsonl'), 0),
    ]);
    const { rows, firstDivergence } = alignRuns(runs.map(stepsOf));
    assert.equal(firstDivergence, 5);
    assert.deepEqual(
      rows.slice(0, 5).map((r) => r.steps),
      [0, 1, 2, 3, 4].map((k) => [k, k, k, k]),
    );
    // Attempt 2, mini-swe-agent and R2E-Gym open the file again at line 15 and reproduce: those pair up too.
    assert.deepEqual(rows[5]!.steps.slice(1), [5, 5, 5]);
    assert.ok(rows[5]!.steps[0] === null || rows[5]!.steps[0] === 5);
  });

  test('the demo: the five formats of one episode take the same actions throughout', async () => {
    const runs = await Promise.all(
      ['swe-agent.traj', 'mini-swe-agent.traj.json', 'r2e-gym.jsonl', 'openhands.jsonl', 'canonical.json'].map((f) => demo(`ledger-allocate.${f}`)),
    );
    const { rows, firstDivergence } = alignRuns(runs.map(stepsOf));
    assert.equal(firstDivergence, null);
    assert.equal(rows.length, 6);
  });

  test('the demo: a fork by hand after step 1 parts at row 2, the policy fork after step 2 at row 3, whatever format the original is in', async () => {
    const byHand = stepsOf(await demo('fork-at-1.by-hand.traj'));
    const byPolicy = stepsOf(await demo('fork-at-2.by-policy.traj'));
    for (const original of ['swe-agent.traj', 'mini-swe-agent.traj.json', 'r2e-gym.jsonl', 'openhands.jsonl']) {
      const recorded = stepsOf(await demo(`ledger-allocate.${original}`));
      assert.equal(alignRuns([recorded, byHand]).firstDivergence, 1, `${original} and the fork by hand`);
      assert.equal(alignRuns([byHand, recorded]).firstDivergence, 1, `the fork by hand and ${original}`);
      assert.equal(alignRuns([recorded, byPolicy]).firstDivergence, 2, `${original} and the policy's fork`);
    }
  });

  thirdPartyFiles.test(
    'the two marshmallow-1867 recordings (windowed and function calling) write the same reproduction script and part at step 7, the edit of fields.py',
    async () => {
      const runs = await Promise.all(
        ['swe-agent/marshmallow-1867.windowed.traj', 'swe-agent/marshmallow-1867.function_calling.traj'].map((f) => load(thirdParty(f))),
      );
      const { rows, firstDivergence } = alignRuns(runs.map(stepsOf));
      assert.equal(firstDivergence, 6);
      assert.deepEqual(rows[6]!.steps, [6, 6]);
      // Both end with the same run of commands and the submit, paired step for step.
      assert.deepEqual(
        rows.slice(-3).map((r) => r.steps),
        [
          [8, 8],
          [9, 9],
          [10, 10],
        ],
      );
      assert.ok(rows.slice(-3).every((r) => r.same));
    },
  );
});
