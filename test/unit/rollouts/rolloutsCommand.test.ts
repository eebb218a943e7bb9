import '../../helpers/families';
import { InputError } from '../../../extension/core/errors';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../../extension/cli/command';
import { command } from '../../../extension/cli/rollouts';
import { runCli } from '../../helpers/cliRunner';
import { patchFor } from '../../fixtures/rollouts/runWriter';
import { FAILING_TEST, G7, W101, W202, makeRolloutFolder, suiteRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const run = (argv: string[]) => runCli(command, argv);

describe('swe-workbench rollouts', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let root: string;
  thirdPartyFiles.before(() => {
    folder = makeRolloutFolder();
    root = join(folder.root, 'run');
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test('prints one aligned row per rollout, a summary, and unreadable inputs on stderr', async () => {
    const { code, stdout, stderr } = await run(['list', root]);
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID +INSTANCE +ATTEMPT +FORMAT +STEPS +EXIT +RESOLVED +REWARD +FAILURE +TOKENS +COST +SECONDS$/);
    assert.equal(lines.length, 1 + 15 + 1 + 3);
    assert.equal(lines[16], '15 rollouts, 4 instances, 5/14 evaluated resolved, 3 mixed groups');
    // The run's generator gave two instances the same patch graded both ways: named, rollout by rollout.
    assert.deepEqual(lines.slice(17), [
      'the tests, not the patch, decided these (check for flaky tests or a report joined to the wrong rollout):',
      `  ${G7}: identical patch graded both ways: resolved attempt_1/${G7}/${G7}.traj; not resolved attempt_4/deepswe.jsonl:3`,
      `  ${W101}: identical patch graded both ways: resolved attempt_1/${W101}/${W101}.traj, attempt_4/deepswe.jsonl:1; not resolved attempt_2/${W101}/${W101}.traj`,
    ]);
    const row = lines.find((l) => l.startsWith('attempt_4/deepswe.jsonl:2 '))!;
    assert.deepEqual(row.split(/ {2,}/), [
      'attempt_4/deepswe.jsonl:2',
      W202,
      '4',
      'r2e-gym',
      '40',
      'max_step_limit',
      'false',
      '0',
      'max-steps',
      '285200',
      '-',
      '20',
    ]);
    // Every column starts at the same offset on every row.
    const failureAt = lines[0]!.indexOf('FAILURE');
    for (const l of lines.slice(1, 16)) assert.match(l.slice(failureAt), /^[a-z-]+ /, l);
    assert.match(stderr, /^2 unreadable input\(s\):\n {2}attempt_2\/broken\.traj: line \d+, column \d+: (invalid JSON|unexpected end of JSON)/);
    assert.match(stderr, /\n {2}rllm\/episodes\.jsonl:3: line 3, column \d+: unexpected end of JSON/);
  });

  thirdPartyFiles.test('--group prints solve rate, pass@k for the asked k, and the mixed flag', async () => {
    const { stdout } = await run(['list', root, '--group', '--k', '1,2,4']);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^INSTANCE +ROLLOUTS +EVALUATED +RESOLVED +SOLVE +PASS@1 +PASS@2 +PASS@4 +MIXED +FAILURES$/);
    const w101 = lines.find((l) => l.startsWith(W101))!.split(/ {2,}/);
    // pass@2 = 1 - C(2,2)/C(4,2) = 5/6, shown to 3 places.
    assert.deepEqual(w101.slice(0, 9), [W101, '4', '4', '2', '0.5', '0.5', '0.833', '1', 'yes']);
    assert.equal(w101[9], 'resolved:2 submitted-wrong:1 budget-exceeded:1');
  });

  thirdPartyFiles.test('--group without --k: pass@k for every k up to the group size, none past it', async () => {
    const { stdout } = await run(['list', root, '--group']);
    const lines = stdout.trimEnd().split('\n');
    // The run's groups hold 4 rollouts (S3's 3): pass@1..4, every column with a number for W101.
    assert.match(lines[0]!, /^INSTANCE +ROLLOUTS +EVALUATED +RESOLVED +SOLVE +PASS@1 +PASS@2 +PASS@3 +PASS@4 +MIXED +FAILURES$/);
    const w101 = lines.find((l) => l.startsWith(W101))!.split(/ {2,}/);
    assert.deepEqual(w101.slice(5, 9), ['0.5', '0.833', '1', '1']);
    const recipe = (await run(['list', root, '--group', '--recipe', 'swe-bench'])).stdout.split('\n');
    assert.match(recipe[0]!, / PASS@1 +PASS@2 +PASS@3 +PASS@4 +MIXED /);
  });

  thirdPartyFiles.test('--json holds the records, the groups and the errors', async () => {
    const { stdout } = await run(['list', root, '--json', '--filter', 'instance=acme__widgets-101', '--sort=-steps']);
    const out = JSON.parse(stdout) as {
      rollouts: Array<{ id: string; steps: number; failure: string; evidence: { tests?: string[] }; evaluationFile: string | null }>;
      groups: Array<{ instance: string; passAtK: number[]; mixed: boolean }>;
      errors: unknown[];
    };
    assert.deepEqual(
      out.rollouts.map((r) => r.steps),
      [12, 9, 8, 6],
    );
    const wrong = out.rollouts.find((r) => r.failure === 'submitted-wrong')!;
    assert.deepEqual(wrong.evidence.tests, [FAILING_TEST]);
    assert.equal(wrong.evaluationFile, `attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b/${W101}/report.json`);
    assert.deepEqual(
      out.groups.map((g) => [g.instance, g.passAtK.length, g.mixed]),
      [[W101, 4, true]],
    );
    assert.equal(out.errors.length, 2);
  });

  thirdPartyFiles.test('--search keeps the rollouts that mention the text and prints where', async () => {
    const { stdout } = await run(['list', root, '--search', 'E999 IndentationError']);
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1 + 1 + 3 + 1);
    assert.match(lines[1]!, /^attempt_2\/acme__gadgets-7\/acme__gadgets-7\.traj +acme__gadgets-7 /);
    assert.deepEqual(
      lines.slice(2, 5).map((l) => l.split(': ')[0]),
      // The lint-rejected edits are indexes 1..3, steps 2..4 as a person counts them.
      [2, 3, 4].map((s) => `attempt_2/acme__gadgets-7/acme__gadgets-7.traj  step ${s} observation`),
    );
  });

  thirdPartyFiles.test('--cache makes the second run read nothing', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'swe-workbench-cli-cache-'));
    try {
      await run(['list', root, '--json', '--cache', cache]);
      const { stdout } = await run(['list', root, '--json', '--cache', cache]);
      const stats = (JSON.parse(stdout) as { stats: { filesRead: number; filesCached: number; files: number } }).stats;
      assert.deepEqual([stats.filesRead, stats.filesCached], [0, stats.files]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  thirdPartyFiles.test('bad input is a usage error that says what and where', async () => {
    await assert.rejects(
      run(['list', root, '--filter', 'steps>>1']),
      (err: unknown) => err instanceof CliError && /filter: column 7: expected a value after '>', got '>'/.test(err.message),
    );
    // A missing folder is an input error (exit 1, as in inspect), not a usage error.
    await assert.rejects(
      run(['list', join(root, 'missing')]),
      (err: unknown) => err instanceof InputError && !(err instanceof CliError) && /missing: no such folder/.test(err.message),
    );
    await assert.rejects(
      run([]),
      (err: unknown) => err instanceof CliError && /expected a subcommand \(list, export, forced, grade, replay, rescore\) and a folder/.test(err.message),
    );
    await assert.rejects(run(['list']), (err: unknown) => err instanceof CliError && /rollouts list: expected one folder, got 0/.test(err.message));
    await assert.rejects(run(['list', root, '--k', '0']), /--k expects positive integers/);
  });

  thirdPartyFiles.test("each mode takes only its own options: another mode's option names the mode it belongs to", async () => {
    const refused = async (argv: string[], message: RegExp) =>
      assert.rejects(run(argv), (err: unknown) => err instanceof CliError && err.exitCode === 2 && message.test(err.message));
    await refused(['list', root, '--out', 'sft.jsonl'], /^rollouts list has no option --out: it is an option of rollouts export, grade, replay, rescore\n/);
    await refused(['export', root, '--out', 'x.jsonl', '--group'], /^rollouts export has no option --group: it is an option of rollouts list\n/);
    await refused(['forced', root, '--recipe', 'skyrl'], /^rollouts forced has no option --recipe: it is an option of rollouts list, export\n/);
    await refused(['grade', root, '--write-preds', 'p'], /^rollouts grade has no option --write-preds: it is an option of rollouts forced\n/);
    await refused(['list', root, '--forced-submission'], /^rollouts list has no option --forced-submission: see rollouts forced\n/);
  });

  thirdPartyFiles.test('the single-command forms docs/cli.md promised print what their subcommand prints', async () => {
    for (const [legacy, current] of [
      [
        [root, '--group', '--k', '1,2'],
        ['list', root, '--group', '--k', '1,2'],
      ],
      [
        [root, '--json', '--filter', `instance=${W101}`],
        ['list', root, '--json', '--filter', `instance=${W101}`],
      ],
      [
        [root, '--forced-submission', '--json'],
        ['forced', root, '--json'],
      ],
    ] as const) {
      const [was, is] = [await run([...legacy]), await run([...current])];
      assert.deepEqual([was.code, was.stdout], [is.code, is.stdout], legacy.join(' '));
      assert.ok(is.stdout.length > 0);
    }
    const out = join(folder.root, 'legacy.jsonl');
    const exported = JSON.parse((await run([root, `--export=${out}`, '--keep', 'resolved', '--json'])).stdout);
    assert.equal(exported.file, out);
    assert.ok(exported.written > 0);
  });

  test('--help lists the four modes; each mode has its own help', async () => {
    assert.match((await run(['--help'])).stdout, /^ {2}list DIR .*\n {2}export DIR .*\n {2}forced DIR .*\n {2}grade DIR /m);
    const grade = await run(['grade', '--help']);
    assert.equal(grade.code, 0);
    assert.match(grade.stdout, /^usage: swe-workbench rollouts grade DIR --image IMAGE --repo REPO --instances FILE/);
    assert.doesNotMatch(grade.stdout, /--keep|--recipe/);
  });
});

describe('swe-workbench rollouts --recipe', () => {
  const folder = suiteRolloutFolder();
  const root = () => folder.run;

  thirdPartyFiles.test('the table shows reward, advantage and each mask with its reason; a masked reward is no number', async () => {
    const { stdout } = await run(['list', root(), '--recipe', 'skyrl', '--advantage', 'rloo', '--filter', `instance=${W202}`]);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID +INSTANCE +ATTEMPT +STEPS +FAILURE +REWARD +ADVANTAGE +OUTCOME$/);
    assert.deepEqual(
      lines
        .find((l) => l.startsWith('attempt_2/'))!
        .split(/ {2,}/)
        .slice(4),
      ['stuck-loop', 'masked', '-', 'masked: stuck in a loop'],
    );
    // The one scored W202 rollout is alone in its group: RLOO has no baseline, advantage 0.
    assert.deepEqual(
      lines
        .find((l) => l.startsWith('attempt_3/'))!
        .split(/ {2,}/)
        .slice(4),
      ['format-error', '0', '0', 'scored'],
    );
    // The recipe's line counts the rows the filter shows, as the table's line does: W202's four, not the run's.
    assert.match(
      stdout,
      /^recipe skyrl v1, RLOO: .*: 4 of 15 rollouts: 1 scored, 3 masked \(context window exceeded x1; stuck in a loop x1; step limit reached x1\), 0 not scored; 0 of 1 groups give a gradient$/m,
    );
    // --json counts the same rows: the recipe's statistics follow the filter, the run's count beside them.
    const json = JSON.parse((await run(['list', root(), '--json', '--recipe', 'skyrl', '--advantage', 'rloo', '--filter', `instance=${W202}`])).stdout);
    assert.equal(json.recipe.runRollouts, 15);
    assert.deepEqual(
      [json.recipe.statistics.rollouts, json.recipe.statistics.scored, json.recipe.statistics.masked, json.recipe.statistics.groups],
      [4, 1, 3, 1],
    );
    assert.deepEqual(json.recipe.statistics.maskReasons, { 'context window exceeded': 1, 'stuck in a loop': 1, 'step limit reached': 1 });
    const whole = (await run(['list', root(), '--recipe', 'skyrl', '--advantage', 'rloo'])).stdout;
    assert.match(whole, /^recipe skyrl v1, RLOO: .*\): 11 scored, 4 masked \(.*stuck in a loop x1.*\), 0 not scored; 3 of 4 groups give a gradient$/m);
  });

  thirdPartyFiles.test("--json carries each rollout's score and why, and the groups the recipe computed", async () => {
    const out = JSON.parse((await run(['list', root(), '--json', '--recipe', 'swe-bench', '--advantage', 'drgrpo', '--filter', `instance=${G7}`])).stdout);
    assert.equal(out.recipe.name, 'swe-bench');
    assert.equal(out.recipe.estimator, 'drgrpo');
    const crashed = out.rollouts.find((r: { attempt: number }) => r.attempt === 3).recipe;
    assert.equal(crashed.outcome, 'masked');
    assert.equal(crashed.advantage, null);
    // A mask is never a number: no reward value, the mask with its reason instead.
    assert.equal(crashed.value, null);
    assert.match(crashed.mask.reason, /^container error/);
    // G7 keeps [1, 0, 0]: Dr. GRPO 1 - 1/3.
    const first = out.rollouts.find((r: { attempt: number }) => r.attempt === 1).recipe;
    assert.equal(Number(first.advantage.toFixed(6)), 0.666667);
    assert.match(first.why, /^Dr\. GRPO: r - mean.*reward 1, n = 3, mean 0\.3333/);
    assert.deepEqual(
      out.recipeGroups.map((g: { instance: string; included: number; masked: number; mixed: boolean }) => [g.instance, g.included, g.masked, g.mixed]),
      [[G7, 3, 1, true]],
    );
  });

  thirdPartyFiles.test('--group with a recipe: per-group mean, std, pass@k, mixed and the masks', async () => {
    const { stdout } = await run(['list', root(), '--group', '--recipe', 'deepswe', '--k', '1,2']);
    const w202 = stdout
      .split('\n')
      .find((l) => l.startsWith(W202))!
      .split(/ {2,}/);
    assert.deepEqual(w202, [W202, '4', '2', '2', '0', '0', '0', '0', 'no', 'no', 'context window exceeded x1; step limit reached x1']);
  });

  thirdPartyFiles.test('swe-rl with --instances: each submission compared with the gold patch, the missing one -1', async () => {
    const instances = join(folder.root, 'instances.json');
    writeFileSync(instances, JSON.stringify([{ instance_id: W101, patch: patchFor('src/widgets/resize.py'), FAIL_TO_PASS: [], PASS_TO_PASS: [] }]));
    const out = JSON.parse(
      (await run(['list', root(), '--json', '--recipe', 'swe-rl', '--advantage', 'drgrpo', '--instances', instances, '--filter', `instance=${W101}`])).stdout,
    );
    // Attempts 1, 2 and 4 submitted the gold patch itself (ratio 1), attempt 3 nothing (malformed: -1).
    // Mean (1 + 1 - 1 + 1) / 4 = 0.5; Dr. GRPO: 0.5, 0.5, -1.5, 0.5.
    const byAttempt = (a: number) => out.rollouts.find((r: { attempt: number }) => r.attempt === a).recipe;
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => [byAttempt(a).value, byAttempt(a).advantage]),
      [
        [1, 0.5],
        [1, 0.5],
        [-1, -1.5],
        [1, 0.5],
      ],
    );
    await assert.rejects(run(['list', root(), '--recipe', 'skyrl', '--instances', instances]), /--instances goes with a swe-rl recipe/);
  });

  thirdPartyFiles.test('ssr-injector with --bug-checks: the inconsistent bug gets -1 and the advantages across the bugs follow', async () => {
    const checks = join(folder.root, 'bug-checks.json');
    writeFileSync(checks, JSON.stringify({ [W202]: [{ name: 'inverse-mutation', passed: false, detail: 'no file alone breaks a test', durationMs: 12 }] }));
    const out = JSON.parse((await run(['list', root(), '--json', '--recipe', 'ssr-injector', '--advantage', 'drgrpo', '--bug-checks', checks])).stdout);
    // Bugs G7 0.4, S3 -0.2, W101 0.1 (solve rates, as without the file), W202 -1 instead of -0.8: mean -0.175.
    const bug = (i: string) => out.recipeGroups.find((g: { instance: string }) => g.instance === i).bugReward;
    assert.equal(bug(W202).value, -1);
    assert.deepEqual(bug(W202).terms[0], { name: 'consistency', value: 0, rule: 'SSR: all seven consistency checks pass; failed: inverse-mutation' });
    const w202 = out.rollouts.find((r: { instance: string; attempt: number }) => r.instance === W202 && r.attempt === 1).recipe;
    assert.equal(Number(w202.advantage.toFixed(6)), -0.825);
    const g7 = out.rollouts.find((r: { instance: string; attempt: number }) => r.instance === G7 && r.attempt === 1).recipe;
    assert.equal(Number(g7.advantage.toFixed(6)), 0.575);
  });

  thirdPartyFiles.test('--bug-checks goes with ssr-injector, and must name an instance of the run', async () => {
    const checks = join(folder.root, 'other-bugs.json');
    writeFileSync(checks, JSON.stringify({ 'elsewhere__repo-1': false }));
    await assert.rejects(run(['list', root(), '--recipe', 'skyrl', '--bug-checks', checks]), /--bug-checks goes with an ssr-injector recipe/);
    await assert.rejects(
      run(['list', root(), '--recipe', 'ssr-injector', '--bug-checks', checks]),
      /other-bugs\.json: names none of the run's instances \(elsewhere__repo-1\)/,
    );
  });

  thirdPartyFiles.test('a bad estimator or a lone --advantage is a usage error', async () => {
    await assert.rejects(run(['list', root(), '--recipe', 'skyrl', '--advantage', 'ppo']), /--advantage expects one of grpo, drgrpo, rloo, got 'ppo'/);
    await assert.rejects(run(['list', root(), '--advantage', 'rloo']), /--advantage goes with --recipe/);
  });
});
