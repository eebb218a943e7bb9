import '../../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { command as rollouts } from '../../../extension/cli/rollouts';
import { CliError } from '../../../extension/cli/command';
import { InputError } from '../../../extension/core/errors';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { runCli } from '../../helpers/cliRunner';

const good = (id: string) =>
  JSON.stringify({
    trajectory: [{ action: 'ls', observation: 'a.py' }],
    info: { exit_status: 'submitted', submission: 'diff' },
    replay_config: { problem_statement: { id } },
  });
const FOREIGN: Record<string, string> = {
  'chatbot.json': JSON.stringify({
    history: [
      { role: 'user', content: 'hi' },
      { role: 'bot', content: 'hello' },
    ],
  }),
  'build.json': JSON.stringify({ uid: 'b1', steps: [{ name: 'compile' }, { name: 'link' }] }),
  'episode.json': JSON.stringify({ id: 'e', trajectories: [{ steps: [{ name: 'compile' }] }] }),
};

describe('inspect and rollouts share one importer and one verdict', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-verdict-'));
    for (const [name, text] of Object.entries(FOREIGN)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'ok.traj'), good('acme__a-1'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('near-miss JSON is refused with the closest format and what it lacks, not opened with 0 steps', async () => {
    await assert.rejects(
      loadTrajectory(join(dir, 'chatbot.json')),
      /chatbot\.json: \$: not a trajectory: closest to swe-agent, but it lacks messages with chat roles .*found role "bot"/,
    );
    await assert.rejects(
      loadTrajectory(join(dir, 'build.json')),
      /build\.json: \$: not a trajectory: closest to rllm, but it lacks steps holding any of action, observation.*the first step has keys name/,
    );
    await assert.rejects(loadTrajectory(join(dir, 'episode.json')), /not a trajectory: closest to rllm/);
  });

  test('rollouts lists each file inspect refuses, with the words inspect uses', async () => {
    const index = await indexRollouts(dir);
    assert.deepEqual(
      index.rollouts.map((r) => r.instance),
      ['acme__a-1'],
    );
    for (const name of Object.keys(FOREIGN)) {
      const refused = await loadTrajectory(join(dir, name)).then(
        () => undefined,
        (err: InputError) => err.problem,
      );
      const listed = index.errors.find((e) => e.file === name);
      assert.ok(refused, `inspect refuses ${name}`);
      assert.equal(listed?.message, refused, name);
    }
  });
});

describe('rollouts says what it could not read', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-skips-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('symlinked files and folders are followed; broken links and loops are listed; compressed files are read', async () => {
    const root = join(dir, 'run');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'linked.traj'), good('acme__linked-1'));
    writeFileSync(join(root, 'sub/plain.traj'), good('acme__plain-1'));
    writeFileSync(join(root, 'packed.jsonl.gz'), gzipSync(`${good('acme__gz-1')}\n${good('acme__gz-2')}\n`));
    symlinkSync(join(elsewhere, 'linked.traj'), join(root, 'file-link.traj'));
    symlinkSync(elsewhere, join(root, 'folder-link'));
    symlinkSync(join(dir, 'nowhere.traj'), join(root, 'broken.traj'));
    symlinkSync(root, join(root, 'sub/up'));
    const index = await indexRollouts(root);
    assert.deepEqual(index.rollouts.map((r) => r.instance).sort(), ['acme__gz-1', 'acme__gz-2', 'acme__linked-1', 'acme__linked-1', 'acme__plain-1']);
    const errors = Object.fromEntries(index.errors.map((e) => [e.file, e.message]));
    assert.match(errors['broken.traj'] ?? '', /symbolic link to a path that cannot be read \(its target does not exist\)/);
    assert.match(errors['sub/up'] ?? '', /symbolic link to a folder already indexed/);
  });

  test('nothing readable is exit 1 with the reasons; an empty folder too', async () => {
    const bad = join(dir, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'a.traj'), '{"trajectory": [');
    writeFileSync(join(bad, 'b.json'), FOREIGN['build.json']!);
    const r = await runCli(rollouts, [bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /2 unreadable input\(s\):\n {2}a\.traj: line 1, column 17: unexpected end of JSON/);
    assert.match(r.stderr, /nothing could be read: 2 unreadable input\(s\), 0 rollouts/);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const e = await runCli(rollouts, [empty]);
    assert.equal(e.code, 1);
    assert.match(e.stderr, /no \.json, \.jsonl or \.traj files/);
    const predictionsOnly = join(dir, 'predictions-only');
    mkdirSync(predictionsOnly);
    writeFileSync(join(predictionsOnly, 'preds.jsonl'), JSON.stringify({ instance_id: 'acme__p-1', model_name_or_path: 'm', model_patch: '' }) + '\n');
    const p = await runCli(rollouts, [predictionsOnly]);
    assert.equal(p.code, 1, p.stdout + p.stderr);
    assert.match(p.stderr, /0 rollouts: the 1 file\(s\) read hold no trajectory \(only predictions or evaluation reports\)/);
  });

  test('the filter is parsed before any file is read or any cache written', async () => {
    const run = join(dir, 'filtered');
    const cache = join(dir, 'cache');
    mkdirSync(run);
    writeFileSync(join(run, 'ok.traj'), good('acme__f-1'));
    await assert.rejects(runCli(rollouts, [run, '--cache', cache, '--filter', 'steps>>1']), (err: unknown) => err instanceof CliError && err.exitCode === 2);
    assert.equal(existsSync(cache) && readdirSync(cache).length > 0, false, 'no cache written');
    // The folder does not even need to exist for a filter error to be reported first.
    await assert.rejects(
      runCli(rollouts, [join(dir, 'absent'), '--filter', 'nosuchfield=1']),
      (err: unknown) => err instanceof CliError && err.exitCode === 2 && /unknown field/i.test(err.message),
    );
  });

  test('60k parentheses or 100k nots are a located usage error, not a stack overflow', async () => {
    for (const filter of ['('.repeat(60_000) + 'steps>1' + ')'.repeat(60_000), 'not '.repeat(100_000) + 'steps>1']) {
      await assert.rejects(
        runCli(rollouts, [dir, '--filter', filter]),
        (err: unknown) => err instanceof CliError && err.exitCode === 2 && /filter: column \d+: nested deeper than 100 levels/.test(err.message),
      );
    }
  });
});
