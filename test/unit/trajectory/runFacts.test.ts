import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { openFileAfter, outcomeText, runFacts } from '../../../extension/core/trajectory/runFacts';
import { stepChange } from '../../../extension/core/trajectory/stepChange';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

describe("a run's header facts", () => {
  thirdPartyFiles.test('the SWE-smith pandas run: $0.2483, 157,229 tokens in, 797 out, 17 calls, as the file records', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    const facts = runFacts(t);
    assert.equal(facts.cost, 0.24830985);
    assert.equal(facts.tokensIn, 157229);
    assert.equal(facts.tokensOut, 797);
    assert.equal(facts.calls, 17);
    assert.equal(outcomeText(t.outcome), 'not graded, exit: submitted');
  });

  thirdPartyFiles.test('all-zero model stats on a run that took steps are not recorded: unknown, not free', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.windowed.traj'));
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 });
    assert.deepEqual(runFacts(t), {});
  });

  thirdPartyFiles.test('the windowed (0.x) run records state before each action: the file open after step 6 is the one it opened', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.windowed.traj'));
    assert.equal(t.meta.stateTiming, 'before-action');
    assert.equal(t.steps[5]!.state?.openFile, '/marshmallow-code__marshmallow/reproduce.py');
    assert.equal(openFileAfter(t, 5), '/marshmallow-code__marshmallow/src/marshmallow/fields.py');
    assert.equal(openFileAfter(t, 0), '/marshmallow-code__marshmallow/reproduce.py');
    const fc = (await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.function_calling.traj'))).trajectory;
    assert.equal(fc.meta.stateTiming, undefined);
    assert.equal(openFileAfter(fc, 5), '/testbed/src/marshmallow/fields.py');
  });
});

describe("a step's diff when the recording keeps none", () => {
  thirdPartyFiles.test('a str_replace is rebuilt from its arguments at the line its observation shows', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    const change = stepChange(t, 10);
    assert.equal(change.kind, 'edit');
    if (change.kind !== 'edit') return;
    assert.match(
      change.diff,
      /^diff --git a\/pandas\/io\/sql\.py b\/pandas\/io\/sql\.py\n--- a\/pandas\/io\/sql\.py\n\+\+\+ b\/pandas\/io\/sql\.py\n@@ -1047,/,
    );
    assert.match(change.diff, /^-\s+if isinstance\(ser\._values, ArrowExtensionArray\):$/m);
    assert.match(change.diff, /^\+\s+import pyarrow as pa$/m);
  });

  thirdPartyFiles.test('a created file is a new-file diff; the submit step opens the final patch', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    const created = stepChange(t, 6);
    assert.equal(created.kind, 'edit');
    assert.match(
      created.kind === 'edit' ? created.diff : '',
      /^new file mode 100644\n--- \/dev\/null\n\+\+\+ b\/reproduce_error\.py\n@@ -0,0 \+1,\d+ @@\n\+import pandas as pd$/m,
    );
    const submit = stepChange(t, 16);
    assert.deepEqual(submit.kind === 'submission' && submit.diff, t.outcome.submission);
  });

  thirdPartyFiles.test('a command, a view and a line-range edit say why not', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.windowed.traj'));
    const run = stepChange(t, 2);
    assert.equal(run.kind, 'none');
    assert.match(run.kind === 'none' ? run.reason : '', /^Step 3 ran a command and the recording keeps no workspace diff/);
    const edit = stepChange(t, 6);
    assert.match(edit.kind === 'none' ? edit.reason : '', /a line-range edit names lines, not what they held/);
    const find = stepChange(t, 4);
    assert.match(find.kind === 'none' ? find.reason : '', /^Step 5 \(a search action\) changes no file/);
  });
});

describe('model stats that were not counted', () => {
  thirdPartyFiles.test('zero tokens beside 11 calls: tokens and cost unknown, the calls kept', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.function_calling.traj'));
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 11 });
    const { calls, cost, tokensIn, tokensOut } = runFacts(t);
    assert.deepEqual({ calls, cost, tokensIn, tokensOut }, { calls: 11, cost: undefined, tokensIn: undefined, tokensOut: undefined });
  });

  test('a free local model: zero cost beside counted tokens is a real zero', () => {
    const facts = runFacts({ steps: [], outcome: { modelStats: { instanceCost: 0, tokensSent: 900, tokensReceived: 40, apiCalls: 2 } } });
    assert.deepEqual(facts, { cost: 0, tokensIn: 900, tokensOut: 40, calls: 2 });
  });
});
