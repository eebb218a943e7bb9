import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { command as convert } from '../../../extension/cli/convert';
import { command as inspect } from '../../../extension/cli/inspect';
import { InputError } from '../../../extension/core/errors';
import { trajectoryFacts } from '../../../extension/core/rollouts/trajectoryFacts';
import { exportTrajectory } from '../../../extension/core/trajectory/exporters';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import { runFacts } from '../../../extension/core/trajectory/runFacts';
import { runCli } from '../../helpers/cliRunner';
import { needsShared } from '../../helpers/sharedFolder';
import { sampleTrajectory, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

type Json = Record<string, any>;

const nvidia = needsShared('oracles/atif-v1.7');
const NVIDIA_EXAMPLES = ['exmp01', 'exmp02', 'exmp03', 'exmp04', 'exmp05', 'exmp06'].map((n) => `examples/atof_to_atif/output/${n}_atif.json`);
const TERMINUS = 'harbor/golden/terminus_2/';

const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-atif-versions-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let written = 0;
function writeJson(value: unknown, name = `file-${++written}.json`): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8'));

/** A file of ATIF `version` that uses only what that version has (root `extra` came in v1.1). */
function fileOf(version: string): Json {
  const minor = Number(version.split('.')[1]);
  return {
    schema_version: version,
    session_id: 's-1',
    agent: { name: 'probe', version: '1.0', model_name: 'm' },
    steps: [
      { step_id: 1, source: 'user', message: 'List the files.' },
      {
        step_id: 2,
        source: 'agent',
        message: 'Looking.',
        reasoning_effort: 'high',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { command: 'ls' } }],
        observation: { results: [{ source_call_id: 'c1', content: 'a.py' }, { content: 'a second result' }] },
        metrics: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: 4, extra: { reasoning_tokens: 1 } },
        extra: { producer_key: true },
      },
    ],
    notes: 'kept as written',
    final_metrics: { total_prompt_tokens: 10, total_completion_tokens: 2, total_cached_tokens: 4, total_steps: 2 },
    ...(minor >= 1 ? { extra: { producer: 'probe' } } : {}),
    ...(minor >= 5 ? { agent: { name: 'probe', version: '1.0', tool_definitions: [{ type: 'function', function: { name: 'bash' } }] } } : {}),
  };
}

async function convertFile(file: string, ...extra: string[]): Promise<{ code: number; stderr: string; out: string }> {
  const out = path.join(dir, `out-${++written}.json`);
  const r = await runCli(convert, [file, '--to', 'atif', '--out', out, ...extra]);
  return { code: r.code, stderr: r.stderr, out };
}

describe('ATIF v1.0 to v1.7 through convert --to atif', () => {
  for (let minor = 0; minor <= 7; minor++) {
    const version = `ATIF-v1.${minor}`;
    test(`${version}: written as v1.7 with every field as it was, and as ${version} itself unchanged`, async () => {
      const original = fileOf(version);
      const file = writeJson(original);
      const latest = await convertFile(file);
      assert.equal(latest.code, 0, latest.stderr);
      assert.deepEqual(readJson(latest.out), { ...original, schema_version: 'ATIF-v1.7' });
      const same = await convertFile(file, '--atif-version', version);
      assert.deepEqual(readJson(same.out), original);
      assert.equal(latest.stderr, '', 'a version this reader knows opens without a warning');
    });
  }

  nvidia.test("NVIDIA's six v1.7 files: every field back, as they were", async () => {
    for (const example of NVIDIA_EXAMPLES) {
      const file = nvidia.path(example);
      const { code, stderr, out } = await convertFile(file);
      assert.equal(code, 0, stderr);
      assert.deepEqual(readJson(out), readJson(file), example);
      const { trajectory: t } = await loadTrajectory(file);
      assert.equal(t.meta.formatVersion, 'ATIF-v1.7');
    }
  });

  thirdPartyFiles.test("Harbor's own files (v1.5 and v1.6) come back as they were under their own version", async () => {
    for (const name of readdirSync(thirdParty(TERMINUS)).filter((f) => f.endsWith('.json') && f.includes('.trajectory'))) {
      const file = thirdParty(TERMINUS + name);
      const { code, stderr, out } = await convertFile(file, '--alone', '--atif-version', readJson(file).schema_version);
      assert.equal(code, 0, stderr);
      assert.deepEqual(readJson(out), readJson(file), name);
    }
  });

  test('an older version is refused when it would lose something, each loss named with its path', async () => {
    const v17 = fileOf('ATIF-v1.7');
    v17.steps[1].llm_call_count = 1;
    v17.steps[1].metrics.prompt_token_ids = [1, 2];
    const file = writeJson(v17);
    await assert.rejects(
      convertFile(file, '--atif-version', 'ATIF-v1.3'),
      (err: Error) =>
        /cannot write ATIF-v1\.3 without losing/.test(err.message) &&
        err.message.includes('$.steps[1].llm_call_count (ATIF-v1.7)') &&
        err.message.includes('$.steps[1].metrics.prompt_token_ids (ATIF-v1.4)') &&
        err.message.includes('$.agent.tool_definitions (ATIF-v1.5)'),
    );
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith(`out-${written}`)),
      [],
      'nothing is written',
    );
    await assert.rejects(convertFile(file, '--atif-version', 'ATIF-v2.0'), /cannot write "ATIF-v2\.0": expected one of ATIF-v1\.0 to ATIF-v1\.7/);
  });

  test('--atif-version belongs to --to atif', async () => {
    const file = writeJson(fileOf('ATIF-v1.7'));
    await assert.rejects(
      runCli(convert, [file, '--to', 'canonical', '--out', path.join(dir, 'x.json'), '--atif-version', 'ATIF-v1.6']),
      /--atif-version is for --to atif/,
    );
  });

  test('a trajectory from another format is written as v1.7 and refused as v1.0, which has no root extra for its task', () => {
    const t = importTrajectory(fileOf('ATIF-v1.7'), { file: 'x' });
    const forked = { ...t, steps: t.steps.slice(0, 1), task: { instanceId: 'ledger-1' } };
    assert.equal(JSON.parse(exportTrajectory(forked, 'atif')).schema_version, 'ATIF-v1.7');
    assert.throws(() => exportTrajectory(forked, 'atif', { version: 'ATIF-v1.0' }), /\$\.extra \(ATIF-v1\.1\)/);
  });
});

describe('a newer minor version opens with one warning; a new major version is refused', () => {
  function v18(): Json {
    const t = fileOf('ATIF-v1.7');
    t.schema_version = 'ATIF-v1.8';
    t.run_labels = ['nightly'];
    t.steps[1].tool_calls[0].timeout_s = 30;
    t.steps[1].confidence = 0.9;
    t.steps[0].confidence = 0.5;
    return t;
  }

  test('ATIF-v1.8: read as v1.7, one warning naming each field not understood once', async () => {
    const file = writeJson(v18());
    const { trajectory: t } = await loadTrajectory(file);
    assert.equal(t.meta.formatVersion, 'ATIF-v1.8');
    assert.equal(t.meta.warnings?.length, 1);
    const [warning] = t.meta.warnings!;
    assert.match(warning!, /^ATIF-v1\.8 is newer than ATIF-v1\.7, the newest ATIF version this reader knows: read as ATIF-v1\.7; 3 fields not understood/);
    assert.ok(warning!.includes('(run_labels, steps[*].confidence, steps[*].tool_calls[*].timeout_s), kept as they are and written back'), warning);
    assert.deepEqual(t.steps[0]!.calls ?? [t.steps[0]!.action].map((a) => a.args), [{ command: 'ls' }]);
    const shown = await runCli(inspect, [file]);
    assert.equal(shown.stdout.split('\n').filter((l) => l.startsWith('warning  ')).length, 1);
  });

  test('converted to ATIF, the fields not understood are written back unchanged, under the version that has them', async () => {
    const original = v18();
    const file = writeJson(original);
    const { code, stderr, out } = await convertFile(file);
    assert.equal(code, 0);
    assert.match(stderr, /warning: ATIF-v1\.8 is newer/);
    assert.deepEqual(readJson(out), original);
    await assert.rejects(convertFile(file, '--atif-version', 'ATIF-v1.7'), (err: Error) => err.message.includes('steps[*].confidence (not in ATIF-v1.7)'));
  });

  test('ATIF-v2.0 is refused, located at schema_version, saying it is a new major version', () => {
    const t = fileOf('ATIF-v1.7');
    t.schema_version = 'ATIF-v2.0';
    assert.throws(
      () => importTrajectory(t, { file: 'run.json' }),
      (err: unknown) =>
        err instanceof InputError &&
        err.where === '$.schema_version' &&
        /^ATIF-v2\.0 is a newer major version of ATIF: this reader knows ATIF-v1\.0 to ATIF-v1\.7/.test(err.problem),
    );
    t.schema_version = 'v1.7';
    assert.throws(() => importTrajectory(t, { file: 'run.json' }), /run\.json: \$\.schema_version: expected an ATIF version such as "ATIF-v1\.7"/);
  });
});

/** A v1.7 parent with two subagents embedded and one in a file of its own. */
function withSubagents(): Json {
  const sub = (id: string, says: string): Json => ({
    schema_version: 'ATIF-v1.7',
    trajectory_id: id,
    agent: { name: 'researcher', version: '0.3' },
    steps: [
      { step_id: 1, source: 'user', message: `Find ${says}.` },
      { step_id: 2, source: 'agent', message: `Found ${says}.`, llm_call_count: 2, reasoning_effort: 'low', metrics: { prompt_tokens: 7 } },
    ],
  });
  return {
    schema_version: 'ATIF-v1.7',
    session_id: 'run-1',
    trajectory_id: 'root',
    agent: { name: 'orchestrator', version: '1.0' },
    steps: [
      { step_id: 1, source: 'user', message: 'Compare the two.' },
      {
        step_id: 2,
        source: 'agent',
        message: 'Delegating.',
        llm_call_count: 0,
        tool_calls: [{ tool_call_id: 'd1', function_name: 'delegate', arguments: {} }],
        observation: {
          results: [
            {
              source_call_id: 'd1',
              subagent_trajectory_ref: [{ trajectory_id: 'sub-a', session_id: 'run-1' }, { trajectory_id: 'sub-b' }, { trajectory_path: 'sub-c.json' }],
            },
          ],
        },
      },
    ],
    subagent_trajectories: [sub('sub-a', 'A'), sub('sub-b', 'B')],
  };
}

describe('ATIF v1.7 subagents', () => {
  test('each opens as a trajectory of its own from its parent, embedded by trajectory_id or in a file by trajectory_path', async () => {
    const file = writeJson(withSubagents(), 'parent.json');
    writeJson({ ...withSubagents().subagent_trajectories[0], trajectory_id: undefined, session_id: 'c' }, 'sub-c.json');
    const { trajectory: parent } = await loadTrajectory(file);
    assert.match(
      parent.steps[0]!.observation,
      /\[subagent trajectory: trajectory sub-a, session run-1\]\n\[subagent trajectory: trajectory sub-b\]\n\[subagent trajectory: sub-c\.json\]/,
    );
    assert.equal(parent.steps[0]!.llmCalls, 0);
    const b = await loadTrajectory(file, { subagent: 'sub-b' });
    assert.deepEqual([b.trajectory.meta.scaffold, b.trajectory.steps[0]!.thought], ['researcher@0.3', 'Found B.']);
    assert.equal(b.trajectory.steps[0]!.source?.pointers[0], '/subagent_trajectories/1/steps/1', "its steps are found in the parent's file");
    const c = await loadTrajectory(file, { subagent: 'sub-c.json' });
    assert.equal(c.file, path.join(dir, 'sub-c.json'));
    await assert.rejects(loadTrajectory(file, { subagent: 'sub-z' }), /parent\.json: no subagent trajectory 'sub-z': it names sub-a, sub-b, sub-c\.json/);
    const shown = await runCli(inspect, [file, '--subagent', 'sub-a']);
    assert.match(shown.stdout, /2 LLM calls \(metrics summed\), reasoning effort low/);
  });

  test("v1.7's rules for references and embedded trajectories, each refused where it breaks", () => {
    const refused = (change: (t: Json) => void, where: string, problem: RegExp) => {
      const t = withSubagents();
      change(t);
      assert.throws(
        () => importTrajectory(t, { file: 'run.json' }),
        (err: unknown) => err instanceof InputError && err.where === where && problem.test(err.problem),
        where,
      );
    };
    const ref = '$.steps[1].observation.results[0].subagent_trajectory_ref';
    refused(
      (t) => (t.steps[1].observation.results[0].subagent_trajectory_ref[1] = { session_id: 'x' }),
      `${ref}[1]`,
      /session_id alone does not resolve since ATIF-v1\.7/,
    );
    refused(
      (t) => (t.steps[1].observation.results[0].subagent_trajectory_ref[1].trajectory_id = 'sub-z'),
      `${ref}[1].trajectory_id`,
      /no embedded subagent trajectory has trajectory_id 'sub-z' \(subagent_trajectories holds sub-a, sub-b\)/,
    );
    refused((t) => delete t.subagent_trajectories[1].trajectory_id, '$.subagent_trajectories[1].trajectory_id', /needs a trajectory_id/);
    refused(
      (t) => (t.subagent_trajectories[1].trajectory_id = 'sub-a'),
      '$.subagent_trajectories[1].trajectory_id',
      /'sub-a' is also the trajectory_id of subagent_trajectories\[0\]/,
    );
    refused((t) => (t.subagent_trajectories[1].steps[1].step_id = 5), '$.subagent_trajectories[1].steps[1].step_id', /expected 2/);
    refused((t) => (t.steps[1].metrics = { prompt_tokens: 1 }), '$.steps[1].metrics', /llm_call_count 0 made no model call/);
    // Up to v1.6 a reference named its run by session_id, which was required.
    const v16 = withSubagents();
    delete v16.subagent_trajectories;
    delete v16.trajectory_id;
    v16.schema_version = 'ATIF-v1.6';
    v16.steps[1].llm_call_count = undefined;
    v16.steps[1].observation.results[0].subagent_trajectory_ref = [{ session_id: 'only' }];
    assert.equal(importTrajectory(JSON.parse(JSON.stringify(v16)), { file: 'x' }).meta.formatVersion, 'ATIF-v1.6');
  });

  test('a v1.6 file whose reference resolves only by session_id is written as v1.6, not v1.7', async () => {
    const v16 = { ...fileOf('ATIF-v1.6') };
    v16.steps[1].observation.results[0].subagent_trajectory_ref = [{ session_id: 'only' }];
    const file = writeJson(v16);
    await assert.rejects(convertFile(file), /a reference by session_id alone .*Write ATIF-v1\.6 instead/);
    const { code, out } = await convertFile(file, '--atif-version', 'ATIF-v1.6');
    assert.equal(code, 0);
    assert.deepEqual(readJson(out), v16);
  });
});

describe("a run split over files (Terminus-2's linear history) opens as one", () => {
  /** Harbor's two files as Terminus-2 2.0.0 names them in its logs folder, and as it writes them since 6c9ba3f: ATIF-v1.7. */
  function terminusRun(version: string): string {
    const run = mkdtempSync(path.join(dir, 'terminus-'));
    for (const [from, to] of [
      ['hello-world-context-summarization-linear-history.trajectory.json', 'trajectory.json'],
      ['hello-world-context-summarization-linear-history.trajectory.cont-1.json', 'trajectory.cont-1.json'],
    ] as const) {
      const doc = readJson(thirdParty(TERMINUS + from));
      writeFileSync(path.join(run, to), JSON.stringify({ ...doc, schema_version: version }));
    }
    return path.join(run, 'trajectory.json');
  }

  thirdPartyFiles.test("Harbor's own files: 12 steps, the second file's marked, its copied head marked as context", async () => {
    const file = thirdParty(TERMINUS + 'hello-world-context-summarization-linear-history.trajectory.json');
    const { trajectory: t } = await loadTrajectory(file);
    assert.deepEqual(t.meta.segments, [
      'hello-world-context-summarization-linear-history.trajectory.json',
      'hello-world-context-summarization-linear-history.trajectory.cont-1.json',
    ]);
    assert.equal(t.steps.length, 4 + 8);
    assert.deepEqual(
      t.steps.map((s) => [s.flags?.includes('atif-continuation-1') ?? false, s.flags?.includes('atif-copied-context') ?? false]),
      [...Array(4).fill([false, false]), ...Array(4).fill([true, true]), ...Array(4).fill([true, false])],
    );
    assert.deepEqual(
      t.outcome.modelStats,
      { instanceCost: 0.029804999999999998, tokensSent: 7802, tokensReceived: 1030 },
      "the last file's totals count the run",
    );
    const alone = await loadTrajectory(file, { alone: true });
    assert.equal(alone.trajectory.steps.length, 4);
  });

  thirdPartyFiles.test('the same run written as ATIF-v1.7 by Terminus-2 2.0.0 opens and converts', async () => {
    const file = terminusRun('ATIF-v1.7');
    const { trajectory: t } = await loadTrajectory(file);
    assert.equal(t.steps.length, 12);
    assert.equal(t.meta.warnings, undefined);
    const { code, stderr, out } = await convertFile(file);
    assert.equal(code, 0, stderr);
    const written = readJson(out);
    assert.equal(written.continued_trajectory_ref, undefined, 'one file now holds the whole run');
    assert.equal(written.steps.filter((s: Json) => s.is_copied_context).length, 4);
    const back = (await loadTrajectory(out)).trajectory;
    assert.deepEqual(
      back.steps.map((s) => s.thought),
      t.steps.map((s) => s.thought),
    );
  });

  test('copied context is left out of token totals and of the step count a reward reads', async () => {
    const first = fileOf('ATIF-v1.7');
    delete first.final_metrics;
    first.continued_trajectory_ref = 'next.json';
    const next = fileOf('ATIF-v1.7');
    delete next.final_metrics;
    next.steps[1].is_copied_context = true;
    next.steps.push({ step_id: 3, source: 'agent', message: 'Done.', metrics: { prompt_tokens: 100, completion_tokens: 5 } });
    writeJson(next, 'next.json');
    const { trajectory: t } = await loadTrajectory(writeJson(first, 'first.json'));
    assert.equal(t.steps.length, 3);
    assert.deepEqual([runFacts(t).tokensIn, runFacts(t).tokensOut], [110, 7], 'the copied step counted once, where it was taken');
    const facts = trajectoryFacts(t);
    assert.deepEqual([facts.steps, facts.tokens], [2, 117]);
  });

  test('a continuation that is not there, or that loops, is refused at continued_trajectory_ref', async () => {
    const first = fileOf('ATIF-v1.7');
    first.continued_trajectory_ref = 'missing.json';
    await assert.rejects(
      loadTrajectory(writeJson(first, 'a.json')),
      /a\.json: \$\.continued_trajectory_ref: the run continues in 'missing\.json', which is not there/,
    );
    first.continued_trajectory_ref = 'b.json';
    writeJson({ ...fileOf('ATIF-v1.7'), continued_trajectory_ref: 'a.json' }, 'b.json');
    await assert.rejects(loadTrajectory(writeJson(first, 'a.json')), /b\.json: \$\.continued_trajectory_ref: 'a\.json' is .*a file of this run already read/);
  });
});

describe("the same rule for mini-swe-agent's trajectory_format", () => {
  const run = (): Json => readJson(sampleTrajectory('mini-swe-agent-1.1.tool-calls.traj.json'));

  test('mini-swe-agent-1.2 opens as 1.1 with one warning; 1 and 1.1 open without', async () => {
    const { trajectory: t } = await loadTrajectory(writeJson({ ...run(), trajectory_format: 'mini-swe-agent-1.2' }));
    assert.deepEqual(t.meta.warnings, [
      'mini-swe-agent-1.2 is newer than mini-swe-agent-1.1, the newest mini-swe-agent trajectory_format version this reader knows: read as mini-swe-agent-1.1; a field it does not know is left unread',
    ]);
    assert.equal(t.steps.length, (await loadTrajectory(sampleTrajectory('mini-swe-agent-1.1.tool-calls.traj.json'))).trajectory.steps.length);
    assert.equal((await loadTrajectory(sampleTrajectory('mini-swe-agent-1.1.tool-calls.traj.json'))).trajectory.meta.warnings, undefined);
  });

  test('mini-swe-agent-2 is refused at $.trajectory_format as a new major version', async () => {
    const file = writeJson({ ...run(), trajectory_format: 'mini-swe-agent-2' });
    await assert.rejects(
      loadTrajectory(file),
      (err: unknown) => err instanceof InputError && err.where === '$.trajectory_format' && /^mini-swe-agent-2 is a newer major version/.test(err.problem),
    );
  });
});
