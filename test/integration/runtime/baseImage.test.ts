import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ensureBaseImage } from '../../../extension/core/runtime/baseImage';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';

const repoRoot = resolve(__dirname, '../../..');

test('ensureBaseImage leaves an existing image alone and says so', async () => {
  const progress: string[] = [];
  const expectedId = (await testDocker().getImage(TEST_IMAGE).inspect()).Id;
  const result = await ensureBaseImage({ tag: TEST_IMAGE, onProgress: (l) => progress.push(l) });
  assert.deepEqual(result, { tag: TEST_IMAGE, imageId: expectedId, built: false });
  assert.deepEqual(progress, [`${TEST_IMAGE} exists (${expectedId}); not rebuilding`]);
});

test('the base image has the tools the sandboxes rely on', async () => {
  const out = spawnSync(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      TEST_IMAGE,
      'sh',
      '-c',
      'for t in bash python3 git flake8 rg patch ps tar base64; do command -v $t >/dev/null || echo missing $t; done; python3 -m pytest --version',
    ],
    { encoding: 'utf8' },
  );
  assert.match(out.stdout, /^pytest 7\.\d+\.\d+\n$/);
});

test('`swe-workbench image build` skips an existing tag', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'extension/cli/main.ts', 'image', 'build', '--tag', TEST_IMAGE], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^${TEST_IMAGE.replace(/[/.]/g, '\\$&')} already exists \\(sha256:[0-9a-f]{64}\\); nothing to do`));
});

test('`swe-workbench image` with an unknown subcommand explains its usage', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'extension/cli/main.ts', 'image', 'pull'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown image subcommand 'pull'/);
  assert.match(r.stderr, /usage: swe-workbench image build/);
});
