import '../../helpers/families';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FOLDED_LINES, MAX_STEP_RANGE, STEPPER_BOOT_ELEMENT, StepperBootSchema, stepsAct } from '../../../extension/protocol/stepper';
import { safeParse } from '../../../extension/protocol/ipc';
import { previewBootPayload } from '../../../extension/views/stepView';
import { wholeBoot } from '../../helpers/stepperBoot';
import { renderWebviewHtml } from '../../../extension/vscode/webview/webviewHtml';
import { keyMove } from '../../../webview/stepper/navigation';
import { STEP_BUTTONS, buttonForKey, type StepButton } from '../../../webview/stepper/stepDetailView';
import { aBashAction, aStep, aTrajectory } from '../../builders/trajectory';

const steps = Array.from({ length: 620 }, (_, i) =>
  aStep({ index: i, action: aBashAction(`python -m pytest tests/test_${i}.py -q`), observation: `${i} passed`, ...(i === 7 ? { flags: ['diverged'] } : {}) }),
);
const trajectory = aTrajectory({ steps });
const page = {
  cspSource: 'https://file+.vscode-resource.example',
  title: 'run.traj',
  view: 'stepper',
  styleUris: [],
  scriptUri: 'https://file+.vscode-resource.example/media/dist/stepper.js',
};

/** The text of the embedded element, as the webview's getElementById(...).textContent reads it. */
function embeddedText(html: string): string {
  const open = `<script type="application/json" id="${STEPPER_BOOT_ELEMENT}">`;
  const start = html.indexOf(open);
  assert.ok(start >= 0, 'the page embeds the payload');
  return html.slice(start + open.length, html.indexOf('</script>', start));
}

describe('the stepper boot payload', () => {
  test('carries the header, the first range of summaries and the step the view will show', () => {
    const boot = wholeBoot(trajectory, 'run.traj', 7, false);
    assert.ok(boot.ok);
    assert.equal(boot.header.stepCount, 620);
    assert.equal(boot.summaries.length, MAX_STEP_RANGE);
    assert.deepEqual([boot.summaries[7]?.label, boot.summaries[7]?.diverged], ['python -m pytest tests/test_7.py -q', true]);
    assert.deepEqual([boot.detail?.index, boot.detail?.observation, boot.reveal], [7, '7 passed', false]);
    assert.equal(safeParse(StepperBootSchema, JSON.parse(JSON.stringify(boot))).success, true);
  });

  test('a step past the end shows the last one; an empty trajectory has no detail', () => {
    const past = wholeBoot(trajectory, 'run.traj', 5000, true);
    assert.equal(past.ok && past.detail?.index, 619);
    const empty = wholeBoot(aTrajectory({ steps: [] }), 'empty.traj', 0, false);
    assert.ok(empty.ok);
    assert.deepEqual([empty.header.stepCount, empty.summaries, empty.detail], [0, [], undefined]);
  });

  test('trajectory text cannot close the element or add a script: it reads back unchanged', () => {
    const hostile = '</script><script>alert(1)</script><!-- <SCRIPT>';
    const boot = wholeBoot(aTrajectory({ steps: [aStep({ action: aBashAction(`echo '${hostile}'`), observation: hostile })] }), '</script>.traj', 0, false);
    const html = renderWebviewHtml({ ...page, embedded: { id: STEPPER_BOOT_ELEMENT, value: boot } }, 'n0nce');
    assert.equal([...html.matchAll(/<script/gi)].length, 2, 'the payload element and the nonce script only');
    assert.equal([...html.matchAll(/<\/script>/gi)].length, 2);
    assert.match(html, /<script type="module" nonce="n0nce" src="[^"]+"><\/script>/);
    const read = JSON.parse(embeddedText(html)) as typeof boot;
    assert.deepEqual(read, JSON.parse(JSON.stringify(boot)));
    assert.equal(read.ok && read.detail?.observation, hostile);
  });
});

describe('the boot payload of a file still being indexed', () => {
  test("shows what the first step's own bytes settle and leaves out what the index may read otherwise", () => {
    const step = aStep({
      thought: 'Open it.',
      action: { raw: 'open src/app.py', tool: 'open', args: { path: 'src/app.py' } },
      observation: '[File: src/app.py (3 lines total)]',
      executionTime: 0.5,
      formatError: 'read with the default tools',
      calls: [{ action: aBashAction('ls'), observation: 'x' }],
      state: { openFile: 'src/app.py', workingDir: '/repo', diff: 'diff --git a/x b/x' },
      source: { pointers: ['/trajectory/0'] },
    });
    const boot = previewBootPayload(step, 'swe-agent', 'big.traj');
    assert.ok(boot.ok && boot.detail);
    assert.equal(boot.indexing, true);
    assert.deepEqual(boot.summaries, []);
    const { detail } = boot;
    assert.deepEqual(
      [detail.index, detail.thought, detail.action.raw, detail.observation, detail.executionTime, detail.workingDir, detail.diff],
      [0, 'Open it.', 'open src/app.py', '[File: src/app.py (3 lines total)]', 0.5, '/repo', 'diff --git a/x b/x'],
    );
    // The tool, a format error, parallel calls, the open file and the raw record wait for the index.
    assert.deepEqual([detail.action.tool, detail.action.args, detail.formatError, detail.calls, detail.hasSource], [null, {}, undefined, [], false]);
    assert.equal('openFile' in detail, false);
    assert.equal(safeParse(StepperBootSchema, JSON.parse(JSON.stringify(boot))).success, true);
  });

  test('a long observation is carried cut to the lines the page shows folded, with its size; a short one or a submitted patch whole', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}: ${'x'.repeat(60)}`);
    const long = lines.join('\n');
    const boot = wholeBoot(aTrajectory({ steps: [aStep({ observation: long })] }), 'run.traj', 0, false);
    assert.ok(boot.ok && boot.detail);
    assert.equal(boot.detail.observation, lines.slice(0, FOLDED_LINES).join('\n'));
    assert.deepEqual(boot.detail.observationCut, { lines: 3000, chars: long.length });
    assert.equal(safeParse(StepperBootSchema, JSON.parse(JSON.stringify(boot))).success, true);
    // The preview of a file being indexed too; one long line is cut by its size.
    const line = 'y'.repeat(200_000);
    const preview = previewBootPayload(aStep({ observation: line }), 'swe-agent', 'big.traj');
    assert.ok(preview.ok && preview.detail);
    assert.deepEqual([preview.detail.observation.length, preview.detail.observationCut], [16 * 1024, { lines: 1, chars: 200_000 }]);
    // Under 64 KiB, nothing is cut; nor is the patch a submit step shows as a diff.
    const short = lines.slice(0, 900).join('\n');
    const whole = wholeBoot(aTrajectory({ steps: [aStep({ observation: short })] }), 'run.traj', 0, false);
    assert.ok(whole.ok && whole.detail);
    assert.deepEqual([whole.detail.observation, whole.detail.observationCut], [short, undefined]);
    const patch = `diff --git a/x b/x\n${long}`;
    const submitted = wholeBoot(
      aTrajectory({ steps: [aStep({ action: { raw: 'submit', tool: 'submit', args: {} }, observation: patch })] }),
      'run.traj',
      0,
      false,
    );
    assert.ok(submitted.ok && submitted.detail);
    assert.deepEqual([submitted.detail.observation, submitted.detail.observationCut], [patch, undefined]);
  });
});

describe('the step buttons', () => {
  test('each has its own key, none taken by navigation, search, go to or the errors filter', () => {
    const buttons = Object.keys(STEP_BUTTONS) as StepButton[];
    const keys = buttons.map((b) => STEP_BUTTONS[b].key);
    assert.equal(new Set(keys).size, keys.length);
    for (const key of keys) assert.equal(keyMove(key), undefined, key);
    assert.deepEqual(
      keys.filter((k) => ['/', 'g', 'e'].includes(k)),
      [],
    );
    assert.deepEqual(
      buttons.map((b) => buttonForKey(STEP_BUTTONS[b].key)),
      buttons,
    );
  });

  test('the host accepts exactly the actions the buttons send', () => {
    for (const action of ['showDiff', 'fork', 'replayTo']) assert.equal(safeParse(stepsAct.params, { action, index: 3 }).success, true, action);
    assert.equal(safeParse(stepsAct.params, { action: 'openRaw', index: 3 }).success, false);
    assert.equal(safeParse(stepsAct.params, { action: 'fork', index: -1 }).success, false);
  });
});
