import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';
import { writeLargeRolloutRun } from '../../helpers/largeRolloutRun';

const repoRoot = path.resolve(__dirname, '../../..');

/**
 * dockerode brings ssh2 (whose poly1305 takes a 16 MB heap as it loads), gRPC and protobufjs:
 * the index worker and the commands that only read recordings install every family and must not
 * pay for them.
 */
test('installing the families and indexing a run loads no Docker client; connecting does', () => {
  const run = writeLargeRolloutRun(5, 2);
  after(() => run.cleanup());
  const script = `
    const loaded = () => Object.keys(require.cache).some((f) => f.includes('/node_modules/dockerode/'));
    require('./extension/families').installScaffoldFamilies();
    require('./extension/core/rollouts/rolloutIndex').indexRollouts(${JSON.stringify(run.root)}).then((index) => {
      const before = loaded();
      require('./extension/core/runtime/dockerConnection').connectDocker({ host: 'tcp://127.0.0.1:9' });
      console.log(JSON.stringify({ rows: index.rollouts.length, before, after: loaded() }));
    });`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), { rows: 10, before: false, after: true });
});
