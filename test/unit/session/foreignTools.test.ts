import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asWorkbenchAction } from '../../../extension/core/session/foreignTools';
import { RecordingSource } from '../../../extension/core/session/actionSources';
import { toolSetFor } from '../../../extension/core/aci/standardTools';
import { importTrajectory } from '../../../extension/core/trajectory/load';

describe("other agents' tool names in a replay", () => {
  test("R2E-Gym's execute_bash and OpenHands' run become bash with the command; finish becomes submit", () => {
    assert.deepEqual(asWorkbenchAction({ raw: '<function=execute_bash>…', tool: 'execute_bash', args: { cmd: 'ls -a' } }), { raw: '<function=execute_bash>…', tool: 'bash', args: { command: 'ls -a' } });
    assert.deepEqual(asWorkbenchAction({ raw: 'ls', tool: 'run', args: { command: 'ls', is_input: false, blocking: false } }), { raw: 'ls', tool: 'bash', args: { command: 'ls' } });
    assert.deepEqual(asWorkbenchAction({ raw: 'done', tool: 'finish', args: { final_thought: 'done' } }).tool, 'submit');
    assert.deepEqual(asWorkbenchAction({ raw: 'x', tool: 'file_editor', args: { command: 'view', path: '/testbed/a.py' } }), { raw: 'x', tool: 'str_replace_editor', args: { command: 'view', path: '/testbed/a.py' } });
  });

  test('a run without a command, and the workbench\'s own tools, are left as recorded', () => {
    const odd = { raw: '', tool: 'run', args: {} };
    assert.equal(asWorkbenchAction(odd), odd);
    const open = { raw: 'open "a.py"', tool: 'open', args: { path: 'a.py' } };
    assert.equal(asWorkbenchAction(open), open);
  });

  test('replaying an R2E-Gym record hands the session bash and submit actions', async () => {
    const record = { trajectory_steps: [{ step_idx: 0, thought: 't', action: '<function=execute_bash>\n<parameter=cmd>grep -c x y</parameter>\n</function>', observation: '1' }, { step_idx: 1, thought: 'done', action: '<function=finish>\n<parameter=command>submit</parameter>\n</function>', observation: '' }] };
    const t = importTrajectory(record, { file: 'r.jsonl' });
    const source = new RecordingSource(t.steps, toolSetFor());
    const first = await source.next([]);
    assert.deepEqual(first?.action.tool === 'bash' && first.action.args, { command: 'grep -c x y' });
    const second = await source.next([t.steps[0]!]);
    assert.equal(second?.action.tool, 'submit');
  });
});
