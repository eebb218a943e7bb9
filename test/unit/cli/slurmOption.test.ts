import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseShard, shardItems } from '../../../extension/core/runtime/slurmArray';
import { CliError } from '../../../extension/cli/command';
import { scheduleOf, taskArgv } from '../../../extension/cli/slurmOption';

describe('--scheduler slurm: shards and the task command line', () => {
  test('every item lands in exactly one shard, and shards differ in size by one at most', () => {
    for (const [items, n] of [
      [0, 3],
      [1, 4],
      [7, 3],
      [10, 10],
      [11, 4],
    ] as const) {
      const all = Array.from({ length: items }, (_, i) => `item${i}`);
      const shards = Array.from({ length: n }, (_, k) => shardItems(all, k, n));
      assert.deepEqual(
        shards
          .flat()
          .map((e) => e.index)
          .sort((a, b) => a - b),
        all.map((_, i) => i),
      );
      for (const s of shards) for (const e of s) assert.equal(e.item, all[e.index]);
      const sizes = shards.map((s) => s.length);
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${items} items in ${n} shards: ${sizes.join(',')}`);
    }
  });

  test('--shard K/N is checked', () => {
    assert.deepEqual(parseShard('2/5'), { k: 2, n: 5 });
    for (const bad of ['5/5', '1/0', 'a/3', '1', '-1/3']) assert.throws(() => parseShard(bad), /--shard expects K\/N with 0 <= K < N/);
  });

  test('a task runs the command without the scheduler flags, in both spellings, and keeps the rest', () => {
    const argv = [
      'RUN',
      '--image',
      'img',
      '--scheduler',
      'slurm',
      '--shards=8',
      '--sbatch-arg',
      '--qos=low',
      '--sbatch-arg=--account=a',
      '--resume',
      '--time',
      '30',
      '--out',
      'o',
      '--json',
    ];
    assert.deepEqual(taskArgv(['rollouts', 'grade'], argv), ['rollouts', 'grade', 'RUN', '--image', 'img', '--out', 'o', '--json']);
  });

  test('the scheduler options say what they need', () => {
    assert.deepEqual(scheduleOf({}, undefined), { mode: 'local' });
    assert.throws(
      () => scheduleOf({ shards: '4' }, 'o'),
      (e: unknown) => e instanceof CliError && /--shards goes with --scheduler slurm/.test(e.message),
    );
    assert.throws(() => scheduleOf({ scheduler: 'pbs' }, 'o'), /--scheduler expects local or slurm, got 'pbs'/);
    assert.throws(() => scheduleOf({ scheduler: 'slurm' }, undefined), /--scheduler slurm needs --out DIR/);
    assert.throws(() => scheduleOf({ scheduler: 'slurm', shards: '0' }, 'o'), /--shards expects a whole number of at least 1, got '0'/);
    assert.throws(() => scheduleOf({ shard: '0/2' }, undefined), /--shard and --shard-out go together/);
    const s = scheduleOf({ scheduler: 'slurm', 'sbatch-arg': ['--qos=low'], mem: '4G' }, 'out');
    assert.equal(s.mode, 'slurm');
    if (s.mode === 'slurm')
      assert.deepEqual({ shards: s.settings.shards, mem: s.settings.mem, args: s.settings.sbatchArgs }, { shards: 4, mem: '4G', args: ['--qos=low'] });
  });
});
