import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { command as doctor } from '../../../extension/cli/doctor';
import type { CheckResult } from '../../../extension/core/doctor/doctor';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';

describe('swe-workbench doctor against the real engine', () => {
  test('the running engine and the base image pass, with the version the engine reports', async () => {
    const r = await runCli(doctor, ['--image', TEST_IMAGE]);
    assert.equal(r.code, 0, r.stdout);
    const version = execFileSync('docker', ['version', '--format', '{{.Server.Version}} (API {{.Server.APIVersion}})'], { encoding: 'utf8' }).trim();
    assert.match(r.stdout, new RegExp(`^OK +Docker engine +Docker ${version.replace(/[.()+]/g, '\\$&')} at unix://`, 'm'));
    assert.match(r.stdout, new RegExp(`^OK +image ${TEST_IMAGE} +sha256:[0-9a-f]{12}, \\d+ MB$`, 'm'));
    assert.match(r.stdout, /^ready: every required check passed$/m);
  });

  test('an image the engine does not have fails with exit 1 and how to get it', async () => {
    const r = await runCli(doctor, ['--image', 'swe-workbench/not-there:0', '--json']);
    assert.equal(r.code, 1);
    const image = (JSON.parse(r.stdout) as CheckResult[]).find((c) => c.id === 'image');
    assert.deepEqual(
      [image?.status, image?.detail, image?.fix],
      ['fail', 'not in the engine', 'docker pull swe-workbench/not-there:0, or set sweWorkbench.docker.image / --image to an image the engine has'],
    );
  });

  test('an engine that is not there fails first; the image is not checked', async () => {
    const r = await runCli(doctor, ['--docker-host', 'unix:///nonexistent/docker.sock']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^FAIL +Docker engine +no engine answers at unix:\/\/\/nonexistent\/docker\.sock/m);
    assert.match(r.stdout, /^ +fix: start one: sudo bash scripts\/start-docker\.sh/m);
    assert.match(r.stdout, /^SKIP +image swe-workbench\/base:bookworm +needs the Docker engine$/m);
  });
});
