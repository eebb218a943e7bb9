import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { relaunchPlan } from '../../../extension/cli/relaunchPlan';
import { INDEX_HEAP_FLAGS, INDEX_MALLOC_ENV } from '../../../extension/core/rollouts/indexHeap';
import { writeLargeRolloutRun } from '../../helpers/largeRolloutRun';
import { runCliProcess } from '../../helpers/cliRunner';

const node = (over: Partial<Parameters<typeof relaunchPlan>[1]> = {}) => ({
  execPath: '/usr/bin/node',
  execArgv: ['--import', 'tsx'],
  argv: ['/usr/bin/node', '/opt/swe-workbench/dist/cli.js', 'rollouts', 'list', 'run dir'],
  env: {},
  execve: () => undefined,
  ...over,
});

const [SEMI, GROWING] = INDEX_HEAP_FLAGS as [string, string];
const FLAGS = INDEX_HEAP_FLAGS.join(' ');

describe('the CLI relaunches with the index heap bound', () => {
  test('the plan runs the same script and arguments, the flags before the other Node options, with the allocator setting', () => {
    assert.deepEqual(relaunchPlan(INDEX_HEAP_FLAGS, node({ env: { HOME: '/root' } }), INDEX_MALLOC_ENV), {
      args: ['/usr/bin/node', SEMI, GROWING, '--import', 'tsx', '/opt/swe-workbench/dist/cli.js', 'rollouts', 'list', 'run dir'],
      env: { HOME: '/root', MALLOC_MMAP_THRESHOLD_: '131072' },
      added: [SEMI, GROWING, 'MALLOC_MMAP_THRESHOLD_=131072'],
    });
  });

  test("a user's own allocator setting is kept", () => {
    const plan = relaunchPlan(INDEX_HEAP_FLAGS, node({ env: { MALLOC_MMAP_THRESHOLD_: '65536' } }), INDEX_MALLOC_ENV);
    assert.ok('args' in plan);
    assert.deepEqual([plan.env, plan.added], [{ MALLOC_MMAP_THRESHOLD_: '65536' }, [SEMI, GROWING]]);
  });

  test("a user's own setting, on the command line or in NODE_OPTIONS, is kept: only the others are added", () => {
    const plan = relaunchPlan(INDEX_HEAP_FLAGS, node({ execArgv: ['--max-semi-space-size=8'] }));
    assert.ok('args' in plan);
    assert.deepEqual(plan.args.slice(0, 3), ['/usr/bin/node', GROWING, '--max-semi-space-size=8']);
    assert.deepEqual(
      relaunchPlan(INDEX_HEAP_FLAGS, node({ env: { NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=64 --heap-growing-percent=10' } })),
      {
        skip: '--max-semi-space-size and --heap-growing-percent are already set',
      },
    );
    // A flag that only starts the same way is not the same flag.
    const near = relaunchPlan(INDEX_HEAP_FLAGS, node({ execArgv: ['--max-semi-space-size-x=8', '--heap-growing-percent=10'] }));
    assert.ok('added' in near);
    assert.deepEqual(near.added, [SEMI]);
  });

  test('a Node that cannot exec runs the program as it is', () => {
    assert.deepEqual(relaunchPlan(INDEX_HEAP_FLAGS, node({ execve: undefined })), { skip: 'this Node cannot exec (no process.execve)' });
  });

  const run = writeLargeRolloutRun(20, 2);
  after(() => run.cleanup());

  test('`rollouts list` runs once, bounded, and prints the whole table to the same streams', async () => {
    const r = await runCliProcess(['rollouts', 'list', run.root, '--json'], { SWE_WORKBENCH_DEBUG: '1', NODE_OPTIONS: '', MALLOC_MMAP_THRESHOLD_: undefined });
    assert.equal(r.code, 0, r.stderr);
    const canExec = typeof (process as { execve?: unknown }).execve === 'function';
    const said = r.stderr.split('\n').filter((l) => l.includes('relaunch'));
    assert.deepEqual(
      said,
      canExec
        ? // The relaunched program finds the flag set and goes on: one relaunch, not a loop.
          [
            `swe-workbench: relaunched with ${FLAGS} MALLOC_MMAP_THRESHOLD_=131072`,
            `swe-workbench: not relaunched with ${FLAGS}: --max-semi-space-size and --heap-growing-percent are already set`,
          ]
        : [`swe-workbench: not relaunched with ${FLAGS}: this Node cannot exec (no process.execve)`],
    );
    const { rollouts } = JSON.parse(r.stdout) as { rollouts: Array<{ instance: string }> };
    assert.equal(rollouts.length, 40);
    assert.equal(new Set(rollouts.map((row) => row.instance)).size, 20);
  });

  test('a user setting in NODE_OPTIONS is kept, the other flag added, and other commands are not relaunched', async () => {
    const own = await runCliProcess(['rollouts', 'list', run.root, '--json'], {
      SWE_WORKBENCH_DEBUG: '1',
      NODE_OPTIONS: '--max-semi-space-size=16',
      MALLOC_MMAP_THRESHOLD_: undefined,
    });
    assert.equal(own.code, 0, own.stderr);
    const canExec = typeof (process as { execve?: unknown }).execve === 'function';
    assert.deepEqual(
      own.stderr.split('\n').filter((l) => l.includes('relaunch')),
      canExec
        ? [
            `swe-workbench: relaunched with ${GROWING} MALLOC_MMAP_THRESHOLD_=131072`,
            `swe-workbench: not relaunched with ${FLAGS}: --max-semi-space-size and --heap-growing-percent are already set`,
          ]
        : [`swe-workbench: not relaunched with ${FLAGS}: this Node cannot exec (no process.execve)`],
    );
    const inspect = await runCliProcess(['inspect', '--help'], { SWE_WORKBENCH_DEBUG: '1', NODE_OPTIONS: '' });
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.doesNotMatch(inspect.stderr, /relaunch/);
  });
});
