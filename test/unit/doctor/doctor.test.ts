import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { doctorExitCode, formatDoctor, type CheckResult } from '../../../extension/core/doctor/doctor';
import { compareVersions } from '../../../extension/core/doctor/dottedVersion';
import { checkCodeServer, checkDisk, checkPolicy, checkPyright } from '../../../extension/core/doctor/hostChecks';
import { PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';

const repoRoot = path.resolve(__dirname, '../../..');
/** The code-server version setup installs, as its script names it: the doctor looks for that one. */
const CODE_SERVER_VERSION = /^CODE_SERVER_VERSION="([^"]+)"$/m.exec(readFileSync(path.join(repoRoot, 'scripts/setup-code-server.sh'), 'utf8'))![1]!;

describe('doctor: the policy server, asked for real', () => {
  let server: PolicyServer;
  before(async () => {
    server = await new PolicyServer([], { models: ['qwen-coder', 'llama-swe'], maxModelLen: 32768 }).listen();
  });
  after(() => server.close());

  test('a server that lists the model is OK, with its context length', async () => {
    const r = await checkPolicy({ policyUrl: server.url, model: 'qwen-coder' });
    assert.deepEqual([r.status, r.detail], ['ok', `${server.url} serves qwen-coder (context 32768 tokens)`]);
  });

  test('a model the server does not list fails, naming the ones it does and the setting to change', async () => {
    const r = await checkPolicy({ policyUrl: server.url, model: 'gpt-4o' });
    assert.equal(r.status, 'fail');
    assert.match(r.detail, /does not serve model 'gpt-4o'; it serves: qwen-coder, llama-swe/);
    assert.match(r.fix ?? '', /sweWorkbench\.policy\.model/);
    assert.equal(r.required, false, 'only live runs need the policy');
  });

  test('no model named while the server has several: fails and asks for one', async () => {
    const r = await checkPolicy({ policyUrl: server.url });
    assert.equal(r.status, 'fail');
    assert.match(r.detail, /several models \(qwen-coder, llama-swe\)/);
  });

  test('a server that is not listening fails with how to start one', async () => {
    const closed = await new PolicyServer([]).listen();
    const url = closed.url;
    await closed.close();
    const r = await checkPolicy({ policyUrl: url, model: 'x' }, 2000);
    assert.equal(r.status, 'fail');
    assert.match(r.detail, /could not be reached/);
    assert.match(r.fix ?? '', /vllm serve/);
  });

  test('no URL at all is a warning, not a failure', async () => {
    const r = await checkPolicy({});
    assert.deepEqual([r.status, r.required], ['warn', false]);
    assert.match(r.fix ?? '', /sweWorkbench\.policy\.url/);
  });
});

describe('doctor: files and disks of this machine', () => {
  test('free space: enough passes; more than the disk holds fails with a fix; an unreadable path is a warning', async () => {
    const [ok] = await checkDisk([tmpdir()], 1);
    assert.equal(ok?.status, 'ok');
    assert.match(ok?.detail ?? '', /^\d+\.\d GiB free of \d+\.\d GiB$/);
    const [full] = await checkDisk([tmpdir()], 1024 ** 5);
    assert.deepEqual([full?.status, full?.required], ['fail', true]);
    assert.match(full?.fix ?? '', /docker image prune/);
    const [missing] = await checkDisk(['/no/such/folder'], 1);
    assert.deepEqual([missing?.status, missing?.required], ['warn', false]);
  });

  test('two folders on one disk are reported once', async () => {
    const a = mkdtempSync(path.join(tmpdir(), 'doctor-a-'));
    const b = mkdtempSync(path.join(tmpdir(), 'doctor-b-'));
    assert.equal((await checkDisk([a, b], 1)).length, 1);
    rmSync(a, { recursive: true });
    rmSync(b, { recursive: true });
  });

  test('code-server: an empty tools folder, an interrupted install, and a complete one', () => {
    const tools = mkdtempSync(path.join(tmpdir(), 'doctor-tools-'));
    try {
      const empty = checkCodeServer(tools);
      assert.deepEqual([empty.status, empty.required], ['warn', false]);
      assert.match(empty.fix ?? '', new RegExp(`SWE_WORKBENCH_TOOLS=${tools}`));
      mkdirSync(path.join(tools, `code-server-${CODE_SERVER_VERSION}`));
      assert.match(checkCodeServer(tools).detail, /incomplete/);
      writeFileSync(path.join(tools, `code-server-${CODE_SERVER_VERSION}`, '.complete'), '');
      writeFileSync(path.join(tools, 'code-server'), '#!/bin/sh\n');
      assert.equal(checkCodeServer(tools).status, 'ok');
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });

  test('code-server: the one this runs in, from another tools folder than the one asked about, counts as installed', () => {
    const asked = mkdtempSync(path.join(tmpdir(), 'doctor-tools-'));
    const other = mkdtempSync(path.join(tmpdir(), 'doctor-other-tools-'));
    try {
      const install = path.join(other, `code-server-${CODE_SERVER_VERSION}`);
      const remoteCli = path.join(install, 'node_modules/code-server/lib/vscode/bin/remote-cli');
      mkdirSync(remoteCli, { recursive: true });
      // Not complete yet: an interrupted install in the other folder is not taken for one.
      assert.equal(checkCodeServer(asked, ['/usr/bin', remoteCli]).status, 'warn');
      writeFileSync(path.join(install, '.complete'), '');
      const found = checkCodeServer(asked, ['/usr/bin', remoteCli]);
      assert.equal(found.status, 'ok');
      assert.equal(found.detail, `${CODE_SERVER_VERSION} in ${install}, the one running here (${asked} has none; SWE_WORKBENCH_TOOLS=${other} names it)`);
      assert.equal(checkCodeServer(asked, ['relative/code-server-1.0.0']).status, 'warn');
    } finally {
      rmSync(asked, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('run from the sources, Pyright is the npm package, with its version', () => {
    const r = checkPyright();
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/pyright/package.json'), 'utf8')) as { version: string };
    assert.deepEqual([r.status, r.detail], ['ok', `${version}, the npm package, at ${realpathSync(path.join(repoRoot, 'node_modules/pyright'))}`]);
  });

  test('a bundle checks the Pyright it carries beside it, never a node_modules further up', () => {
    // An installed extension: its bundle in dist/, inside a folder that itself holds the npm package
    // (as a checkout would), so only a check of the carried copy can fail here.
    const extension = mkdtempSync(path.join(tmpdir(), 'swe-workbench-installed-'));
    try {
      mkdirSync(path.join(extension, 'node_modules/pyright'), { recursive: true });
      writeFileSync(path.join(extension, 'node_modules/pyright/package.json'), '{"version":"9.9.9"}');
      writeFileSync(path.join(extension, 'node_modules/pyright/langserver.index.js'), '');
      const bundle = path.join(extension, 'dist/extension.js');
      const carried = path.join(extension, 'dist/node_modules/pyright');

      const missing = checkPyright(bundle);
      assert.equal(missing.status, 'fail');
      assert.equal(missing.detail, `this installation of SWE Workbench has no Pyright: ${carried}/langserver.index.js is missing`);
      // Words for someone who installed an extension, not for a checkout's node modules.
      assert.match(missing.fix ?? '', /^reinstall the SWE Workbench extension \(its \.vsix carries Pyright\)/);
      assert.doesNotMatch(missing.fix ?? '', /npm ci/);

      mkdirSync(carried, { recursive: true });
      writeFileSync(path.join(carried, 'package.json'), '{"version":"1.1.414"}');
      writeFileSync(path.join(carried, 'langserver.index.js'), '');
      const found = checkPyright(bundle);
      assert.deepEqual([found.status, found.detail], ['ok', `1.1.414, carried by SWE Workbench, at ${carried}`]);
    } finally {
      rmSync(extension, { recursive: true, force: true });
    }
  });
});

describe('doctor: the verdict', () => {
  const result = (status: CheckResult['status'], required: boolean): CheckResult => ({ id: 'disk', title: 't', status, required, detail: 'd', fix: 'f' });

  test('only a failed required check makes the exit code 1', () => {
    assert.equal(doctorExitCode([result('ok', true), result('fail', false), result('warn', true)]), 0);
    assert.equal(doctorExitCode([result('ok', true), result('fail', true)]), 1);
  });

  test('the text names each problem with its fix and ends with the verdict', () => {
    const text = formatDoctor([
      { id: 'image', title: 'image x:1', status: 'fail', required: true, detail: 'not in the engine', fix: 'docker pull x:1' },
      { id: 'pyright', title: 'Pyright', status: 'ok', required: true, detail: '1.1' },
    ]);
    assert.equal(text, 'FAIL  image x:1  not in the engine\n      fix: docker pull x:1\nOK    Pyright    1.1\n\nnot ready: 1 required check failed');
  });

  test('engine API versions compare by number, not as text', () => {
    assert.equal(compareVersions('1.41', '1.41'), 0);
    assert.equal(compareVersions('1.9', '1.41'), -1);
    assert.equal(compareVersions('1.43', '1.41'), 1);
  });
});
