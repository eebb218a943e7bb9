import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { DEFAULT_R2E_IMAGE, r2eGymImage } from '../../../extension/core/scaffolds/r2e-gym/image';
import { testDocker } from '../../helpers/docker';

test("the R2E-Gym image has R2E-Gym's interpreter and chardet, and runs without network", async () => {
  const { tag } = await r2eGymImage.ensure({ docker: testDocker() });
  assert.equal(tag, DEFAULT_R2E_IMAGE);
  const out = spawnSync(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      tag,
      '/root/.venv/bin/python',
      '-c',
      'import chardet; print(chardet.detect("caf\\u00e9 cr\\u00e8me br\\u00fbl\\u00e9e".encode("utf-8"))["encoding"])',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(out.status, 0, out.stderr);
  assert.equal(out.stdout, 'utf-8\n');
});

test('the R2E-Gym image leaves an existing image alone and says so', async () => {
  const docker = testDocker();
  await r2eGymImage.ensure({ docker });
  const expectedId = (await docker.getImage(DEFAULT_R2E_IMAGE).inspect()).Id;
  const progress: string[] = [];
  const result = await r2eGymImage.ensure({ docker, onProgress: (l) => progress.push(l) });
  assert.deepEqual(result, { tag: DEFAULT_R2E_IMAGE, imageId: expectedId, built: false });
  assert.deepEqual(progress, [`${DEFAULT_R2E_IMAGE} exists (${expectedId}); not rebuilding`]);
});
