// Which SWE-agent version printed a recording, decided by what its steps show.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectScaffold, describeChoice } from '../../../extension/core/scaffolds/registry';
import { readVersionEvidence } from '../../../extension/core/scaffolds/swe-agent/versionEvidence';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { aStep, aTrajectory, anAction } from '../../builders/trajectory';
import { needsShared } from '../../helpers/sharedFolder';

const thirdParty = needsShared('fixtures/third-party');

/** A SWE-agent 1.x recording with the windowed bundles, stating `label` when given. */
function windowedRun(steps: Step[], label?: string): Trajectory {
  return aTrajectory({
    format: 'swe-agent',
    steps: steps.map((s, index) => ({ ...s, index })),
    meta: { toolBundles: ['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting'], pty: true, ...(label ? { formatVersion: label } : {}) },
  });
}

/** What a 1.x viewer prints for a window of `nLines` lines starting at 1-based line `first`. */
function window(nLines: number, first: number): string {
  const last = Math.min(first + 99, nLines);
  const lines = Array.from({ length: last - first + 1 }, (_, k) => `${first + k}:    return x + ${first + k}`);
  return [
    `[File: /testbed/tallyho/steps.py (${nLines} lines total)]`,
    ...(first > 1 ? [`(${first - 1} more lines above)`] : []),
    ...lines,
    ...(last < nLines ? [`(${nLines - last} more lines below)`] : []),
  ].join('\r\n');
}

const goto = (line: number, observation: string) =>
  aStep({ action: anAction({ raw: `goto ${line}`, tool: 'goto', args: { line_number: line } }), observation });
const open = (path: string, observation: string) => aStep({ action: anAction({ raw: `open "${path}"`, tool: 'open', args: { path } }), observation });
const scrollDown = (observation: string) => aStep({ action: anAction({ raw: 'scroll_down', tool: 'scroll_down', args: {} }), observation });

describe("a SWE-agent recording's version, from its observations", () => {
  test("a run from the main branch labelled 1.1.0: the window at the file's end is 3ea751c0's", () => {
    // goto 330 of 332 lines: 3ea751c0 starts the window at line 233, 1.1.0 one line earlier.
    const main = windowedRun([open('tallyho/steps.py', window(332, 1)), goto(330, window(332, 233))], '1.1.0');
    const choice = detectScaffold(main);
    assert.deepEqual([choice.version, choice.undecided], ['3ea751c0', undefined]);
    assert.equal(
      choice.reason,
      'the file says swe_agent_version 1.1.0; step 2 (`goto 330`) shows the window from line 233 of 332, as SWE-agent 3ea751c0 places it (1.1.0: from line 232)',
    );
    const released = windowedRun([open('tallyho/steps.py', window(332, 1)), goto(330, window(332, 232))], '1.1.0');
    assert.equal(detectScaffold(released).version, '1.1.0', "1.1.0's own window keeps its label");
  });

  test('a scroll to the end is judged from the window before it', () => {
    const run = windowedRun([goto(200, window(332, 183)), scrollDown(window(332, 232))]);
    const read = readVersionEvidence(run);
    assert.equal(read.version, '1.1.0');
    assert.match(read.reason, /step 2 \(`scroll_down`\) shows the window from line 232 of 332, as SWE-agent 1.1.0 places it \(3ea751c0: from line 233\)/);
  });

  test('windows away from the end tell nothing: the candidates stay, the label first, and the person is told', () => {
    const run = windowedRun([open('tallyho/steps.py', window(332, 1)), goto(150, window(332, 134))], '1.1.0');
    const choice = detectScaffold(run);
    assert.deepEqual([choice.version, choice.undecided], ['1.1.0', ['1.1.0', '3ea751c0']]);
    assert.match(
      describeChoice(choice),
      /; no step read tells 1\.1\.0, 3ea751c0 apart: a replay tells them apart at the first step they print differently \(1\.1\.0 until then\)\)$/,
    );
  });

  test("create's new file: one line in 1.0, none from 1.1 on", () => {
    const created = (lines: 0 | 1) =>
      aStep({
        action: anAction({ raw: 'create x.py', tool: 'create', args: { filename: 'x.py' } }),
        observation: `[File: /testbed/x.py (${lines} lines total)]${lines ? '\n1:' : ''}`,
      });
    const unlabelled = (step: Step) => aTrajectory({ format: 'swe-agent', steps: [step], meta: { pty: true } });
    assert.deepEqual(readVersionEvidence(unlabelled(created(1))).undecided, ['1.0.1', '1.0.0']);
    assert.deepEqual(readVersionEvidence(unlabelled(created(0))).undecided, ['3ea751c0', '1.1.0']);
  });

  thirdParty.test("SWE-agent's own 0.x windowed demonstration words its lint rejection as the paper's release did: 0.2", async () => {
    const { trajectory } = await loadTrajectory(thirdParty.path('swe-agent/marshmallow-1867.windowed.traj'));
    const choice = detectScaffold(trajectory);
    assert.equal(choice.version, '0.2');
    assert.match(choice.reason, /step 7 \(`edit 1475:1475`\) words its lint rejection "\.\.\.retry your edit commmand\." \(sic\), as SWE-agent 0\.2 does$/);
  });
});
