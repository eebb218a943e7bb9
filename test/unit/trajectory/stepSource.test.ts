import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { InputError } from '../../../extension/core/errors';
import { indexJsonObject, readJsonRange } from '../../../extension/core/input/jsonIndex';
import { loadTrajectory, rawRecords } from '../../../extension/core/trajectory/load';
import { outlineBootPayload, toStepDetail, toStepSummary } from '../../../extension/views/stepView';
import { wholeBoot } from '../../helpers/stepperBoot';
import type { Step } from '../../../extension/core/trajectory/model';
import { openSteps, type StepSource } from '../../../extension/core/trajectory/stepSource';
import { summarize } from '../../../extension/cli/inspect';
import { writeTrajectory } from '../../../bench/load/largeTrajectory';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** `file`'s steps parsed whole, as `openSteps` reads a file below its indexing size. */
async function wholeSource(file: string): Promise<StepSource> {
  const source = await openSteps(file, { indexFromBytes: Infinity });
  assert.equal(source.mode, 'whole');
  return source;
}

async function sameAsWhole(file: string, expectMode: StepSource['mode']): Promise<void> {
  const whole = (await loadTrajectory(file)).trajectory;
  const source = await openSteps(file, { indexFromBytes: 0 });
  assert.equal(source.mode, expectMode);
  assert.equal(source.stepCount, whole.steps.length);
  const { steps, ...header } = whole;
  assert.deepEqual(source.header, header);
  assert.deepEqual(await source.steps(0, source.stepCount), steps);
  assert.deepEqual(await source.lightSteps(), await (await wholeSource(file)).lightSteps());
  // Asked out of order, one by one, as a viewer jumps around.
  for (const i of [source.stepCount - 1, 0, Math.floor(source.stepCount / 2)]) assert.deepEqual(await source.step(i), steps[i]);
}

async function rejectsAt(work: Promise<unknown>, where: RegExp, problem: RegExp): Promise<void> {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
    assert.match(err.where ?? '', where);
    assert.match(err.problem, problem);
    return true;
  });
}

describe('steps read on demand from a byte index', () => {
  for (const name of [
    'swe-agent/marshmallow-1867.function_calling.traj',
    'swe-agent/marshmallow-1867.windowed.traj',
    'swe-agent/sweagenttestrepo-1c2844.traj',
    'swe-smith/pandas-dev__pandas.95280573.pr_53856.traj',
  ]) {
    thirdPartyFiles.test(`${name}: the indexed steps and header are the whole-file importer's`, () => sameAsWhole(thirdParty(name), 'indexed'));
  }

  for (const name of ['mini-swe-agent/github_issue.traj.json', 'mini-swe-agent/local.traj.json']) {
    thirdPartyFiles.test(`${name}: a mini-swe-agent message list, indexed, gives the whole-file importer's steps and header`, () =>
      sameAsWhole(thirdParty(name), 'indexed'),
    );
  }

  for (const name of ['swe-agent/function_calling_simple.traj', 'openhands/basic_interactions.json']) {
    thirdPartyFiles.test(`${name}: a shape the index does not take (history only, another format) is read whole, with the same steps`, () =>
      sameAsWhole(thirdParty(name), 'whole'),
    );
  }

  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-steps-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, data: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  test('a generated 1.x run (quotes, backslashes and \\r in observations) gives the same steps indexed as whole', async () => {
    const p = join(dir, 'generated.traj');
    writeTrajectory(p, 12, 0.2);
    await sameAsWhole(p, 'indexed');
  });

  test('the first step is shown from its own bytes before the index is built: its text final, its tool refined from the history', async () => {
    const p = join(dir, 'preview.traj');
    writeTrajectory(p, 4, 0.05);
    const previews: Array<Step | undefined> = [];
    const source = await openSteps(p, { indexFromBytes: 0, onPreview: (step) => previews.push(step) });
    assert.equal(previews.length, 1);
    const [preview] = previews;
    const final = await source.step(0);
    assert.deepEqual(
      { thought: preview!.thought, observation: preview!.observation, raw: preview!.action.raw, state: preview!.state },
      { thought: final.thought, observation: final.observation, raw: final.action.raw, state: final.state },
    );
    // The history's function call names the tool in the final step; the preview read the text with the default tools.
    assert.equal(final.action.tool, 'str_replace_editor');
    assert.deepEqual(final.action.args, { command: 'view', path: '/testbed/src/module_0.py' });
    assert.deepEqual(final.sampling, { temperature: 0 });
    assert.equal(preview!.sampling, undefined);
  });

  test('a multi-call message, a string state and long fields past the kept size (a replay_config, a submission) give the same steps indexed as whole', async () => {
    const long = 'x'.repeat(70 * 1024);
    const calls = [
      { id: 'a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
      { id: 'b', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } },
    ];
    const run = {
      trajectory: [
        { action: 'ls', observation: 'one', thought: long, state: '{"open_file": "n/a", "working_dir": "/repo"}' },
        { action: `echo ${long}`, observation: 'two\r\n', state: '{"open_file": "/repo/a.py", "working_dir": "/repo"}' },
      ],
      history: [
        { role: 'system', content: `system ${long}` },
        { role: 'user', content: 'do it' },
        { role: 'assistant', content: 'ls both', action: 'ls', tool_calls: calls },
        { role: 'tool', content: `files ${long}`, tool_call_ids: ['a'] },
        { role: 'tool', content: '/repo', tool_call_ids: ['b'] },
        { role: 'assistant', content: 'echo', action: `echo ${long}` },
        { role: 'user', content: 'two' },
      ],
      info: { exit_status: 'submitted', swe_agent_version: '0.7.0', submission: `diff ${long}` },
      replay_config: JSON.stringify({ agent: { tools: { bundles: [{ path: 'tools/defaults' }] } }, problem_statement: { text: long } }),
    };
    await sameAsWhole(file('multi.traj', JSON.stringify(run, null, 1)), 'indexed');
  });

  test('a mini-swe-agent run, as a bare list and as its object form, with texts past the kept size, gives the same steps indexed as whole; its raw records are its messages', async () => {
    const long = 'y'.repeat(70 * 1024);
    const messages = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: `Fix it. ${long}` },
      { role: 'assistant', content: 'THOUGHT: look\n\n```mswea_bash_command\nls\n```' },
      { role: 'user', content: `<returncode>2</returncode>\n<output>\n${long}</output>` },
      { role: 'assistant', content: `THOUGHT: done ${long}\n\n\`\`\`mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n\`\`\`` },
      { role: 'user', content: `diff --git a/x b/x\n${long}` },
    ];
    const list = file('mini-list.traj.json', JSON.stringify(messages, null, 2));
    await sameAsWhole(list, 'indexed');
    const info = { exit_status: 'Submitted', submission: `diff ${long}`, mini_version: '1.0.0', model_stats: { instance_cost: 0.5, api_calls: 2 } };
    const run = file('mini-run.traj.json', JSON.stringify({ trajectory_format: 'mini-swe-agent-1', instance_id: 'x__y-1', info, messages }));
    await sameAsWhole(run, 'indexed');
    const source = await openSteps(run, { indexFromBytes: 0 });
    const step = await source.step(0);
    assert.equal(step.exitCode, 2);
    assert.deepEqual(await source.rawRecords(step), [messages[2], messages[3]]);
    const bare = await openSteps(list, { indexFromBytes: 0 });
    assert.deepEqual(await bare.rawRecords(await bare.step(0)), [messages[2], messages[3]]);
    // A list followed by another value is records, read whole as the whole-file loader reads them.
    await sameAsWhole(file('two-lists.json', `${JSON.stringify(messages)}\n${JSON.stringify(messages)}`), 'whole');
  });

  test('below the size threshold, or gzip compressed, a file is read whole', async () => {
    const p = join(dir, 'small.traj');
    writeTrajectory(p, 3, 0.01);
    assert.equal((await openSteps(p)).mode, 'whole');
    const gz = file('small.traj.gz', gzipSync(readFileSync(p)));
    const source = await openSteps(gz, { indexFromBytes: 0 });
    assert.equal(source.mode, 'whole');
    assert.equal(source.stepCount, 3);
  });

  test('a file read whole says so before it is read, so that a page waiting for the first step preview does not wait for the whole file', async () => {
    // A named pipe is read whole; its writer only starts once the answer came, so an answer given after the read comes after the pipe's open timeout.
    const fifo = join(dir, 'piped.traj');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const p = join(dir, 'for-the-pipe.traj');
    writeTrajectory(p, 3, 0.01);
    const previews: Array<Step | undefined> = [];
    let told!: () => void;
    const answered = new Promise<void>((resolve) => {
      told = resolve;
    });
    let settled = false;
    const opening = openSteps(fifo, {
      limits: { openTimeoutMs: 20_000 },
      onPreview: (step) => {
        previews.push(step);
        told();
      },
    }).finally(() => {
      settled = true;
    });
    await answered;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'told while the file is not read yet');
    assert.deepEqual(previews, [undefined]);
    await writeFile(fifo, readFileSync(p));
    const source = await opening;
    assert.equal(source.mode, 'whole');
    assert.equal(source.stepCount, 3);
    assert.deepEqual(previews, [undefined], 'told once');
    // A JSON object the index reads to its end holding no SWE-agent steps (plain OpenAI messages): told no step will come, then read whole.
    const chat = {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: 'done' },
      ],
    };
    const other: Array<Step | undefined> = [];
    const read = await openSteps(file('chat.json', JSON.stringify(chat)), { indexFromBytes: 0, onPreview: (step) => other.push(step) });
    assert.equal(read.mode, 'whole');
    assert.deepEqual(other, [undefined]);
  });

  test('the index locates each value as JSON.parse reads it, whatever the size of each read', async () => {
    const doc = {
      a: 'q"uo\\"te\\\\',
      trajectory: [{ x: 'é\\"', y: [1, { z: '}]' }], w: -1.5e3 }, 7, 'plain', null, { '': true, 'k"ey': 'v' }],
      b: { c: [true, false, null] },
      n: 12,
    };
    const p = file('index.json', `\uFEFF${JSON.stringify(doc, null, 3)}\n`);
    for (const readBytes of [1, 2, 3, 5, 16, 1 << 20]) {
      const index = await indexJsonObject(p, { arrays: ['trajectory'], keepBytes: 8, readBytes });
      assert.deepEqual([...index.keys.keys()], ['a', 'trajectory', 'b', 'n'], `reads of ${readBytes}`);
      for (const [key, value] of index.keys) assert.deepEqual(await readJsonRange(p, value), doc[key as keyof typeof doc], `${key}, reads of ${readBytes}`);
      const elements = index.arrays.get('trajectory')!;
      assert.equal(elements.length, doc.trajectory.length);
      for (const [i, element] of elements.entries()) {
        assert.deepEqual(await readJsonRange(p, element), doc.trajectory[i]);
        for (const [key, field] of element.fields) assert.deepEqual(await readJsonRange(p, field), (doc.trajectory[i] as Record<string, unknown>)[key]);
      }
      assert.deepEqual([...elements[0]!.fields.keys()], ['x', 'y', 'w']);
      assert.deepEqual([...elements[4]!.fields.keys()], ['', 'k"ey']);
    }
  });

  const GOOD = {
    trajectory: [
      { action: 'ls', observation: 'a' },
      { action: 'pwd', observation: 'b' },
    ],
    info: {},
  };
  const pretty = JSON.stringify(GOOD, null, 2);

  /** The whole-file loader's error for `p`: the index must say the same, what and where. */
  async function wholeError(p: string, options = {}): Promise<InputError> {
    const err = await loadTrajectory(p, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof InputError, `the whole-file loader refuses ${p}`);
    return err;
  }

  test('a truncated file, a bracket that does not match, text after the object, nesting past the limit: refused at open as the whole-file loader refuses them', async () => {
    const cases: Array<[string, string, { limits?: { maxDepth: number } }]> = [
      ['truncated.traj', pretty.slice(0, pretty.indexOf('"pwd"') + 3), {}],
      ['bracket.traj', pretty.replace('"a"\n    }', '"a"\n    ]'), {}],
      ['after.traj', `${pretty}\n{}`, {}],
      ['deep.traj', JSON.stringify({ trajectory: [{ action: 'ls', observation: 'a', extra_info: { a: [[[[1]]]] } }] }), { limits: { maxDepth: 5 } }],
      // A bare message list (mini-swe-agent's legacy form), which the index takes too.
      [
        'list-truncated.traj.json',
        JSON.stringify(
          [
            { role: 'system', content: 'hi' },
            { role: 'assistant', content: 'ls' },
          ],
          null,
          2,
        ).slice(0, -8),
        {},
      ],
      ['list-bracket.traj.json', JSON.stringify([{ role: 'system', content: 'hi' }], null, 2).replace(/\]$/, '}'), {}],
    ];
    for (const [name, text, options] of cases) {
      const p = file(name, text);
      const expected = await wholeError(p, options);
      assert.match(expected.where ?? '', /^line \d+, column \d+$/, name);
      await rejectsAt(openSteps(p, { ...options, indexFromBytes: 0 }), new RegExp(`^${expected.where}$`), /./);
      const err = await openSteps(p, { ...options, indexFromBytes: 0 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof InputError);
      assert.equal(err.problem, expected.problem, name);
    }
  });

  test('a fault inside a step is found when the step is read, at the line and column the whole-file loader names', async () => {
    const p = file('bad-step.traj', pretty.replace('"observation": "b"', '"observation": tru'));
    const expected = await wholeError(p);
    const source = await openSteps(p, { indexFromBytes: 0 });
    assert.equal((await source.step(0)).observation, 'a');
    await rejectsAt(source.step(1), new RegExp(`^${expected.where}$`), /invalid JSON/);
  });

  test('a step of the wrong shape names its JSON path', async () => {
    const p = file('shape.traj', JSON.stringify({ ...GOOD, trajectory: [GOOD.trajectory[0], { action: 'pwd', observation: 5 }] }));
    const source = await openSteps(p, { indexFromBytes: 0 });
    await rejectsAt(source.step(1), /^\$\.trajectory\[1\]\.observation$/, /expected a string, got number/);
    await rejectsAt(source.step(2), /^$/, /no step 3: the trajectory has 2/);
    const noAction = file('no-action.traj', JSON.stringify({ ...GOOD, trajectory: [{ observation: 'a' }] }));
    await rejectsAt(openSteps(noAction, { indexFromBytes: 0 }), /^\$\.trajectory\[0\]\.action$/, /expected a string, got undefined/);
  });
});

describe('swe-workbench inspect over the byte index', () => {
  for (const name of ['swe-agent/marshmallow-1867.function_calling.traj', 'swe-smith/pandas-dev__pandas.95280573.pr_53856.traj']) {
    thirdPartyFiles.test(`${name}: the summary of the indexed file is the summary of the file parsed whole`, async () => {
      const file = thirdParty(name);
      const indexed = await openSteps(file, { indexFromBytes: 0 });
      assert.equal(indexed.mode, 'indexed');
      assert.equal(await summarize(indexed), await summarize(await wholeSource(file)));
    });
  }
});

describe('the stepper over the byte index', () => {
  for (const name of [
    'swe-agent/marshmallow-1867.windowed.traj',
    'swe-agent/marshmallow-1867.function_calling.traj',
    'swe-smith/pandas-dev__pandas.95280573.pr_53856.traj',
  ]) {
    thirdPartyFiles.test(
      `${name}: the steps without observations, the boot payload, every step's detail and raw records are those of the file parsed whole`,
      async () => {
        const file = thirdParty(name);
        const loaded = await loadTrajectory(file);
        const whole = await wholeSource(file);
        const source = await openSteps(file, { indexFromBytes: 0 });
        assert.equal(source.mode, 'indexed');
        const light = await source.lightSteps();
        assert.deepEqual(light, await whole.lightSteps());
        assert.ok(light.every((s) => s.observation === ''));
        const trajectory = { ...source.header, steps: light };
        // The indexed boot carries no summaries (the page asks for them); with them it is the whole file's.
        const summaries = (await source.steps(0, source.stepCount)).map(toStepSummary);
        assert.deepEqual(outlineBootPayload({ trajectory, summaries }, await source.step(3), name, false), wholeBoot(loaded.trajectory, name, 3, false));
        for (const step of loaded.trajectory.steps) {
          assert.deepEqual(toStepDetail(await source.step(step.index), trajectory), toStepDetail(step, loaded.trajectory));
          assert.deepEqual(await source.rawRecords(step), rawRecords(loaded, step));
        }
      },
    );
  }
});
