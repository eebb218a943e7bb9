import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BUG_FILES, loadBugArtifact, saveBugArtifact } from '../../../extension/core/bugs/bugArtifact';
import { InputError } from '../../../extension/core/errors';
import { resolveRecipe } from '../../../extension/core/reward/recipeFiles';
import { bugArtifact } from '../../builders/bugArtifact';

const repoRoot = path.resolve(__dirname, '../../..');
const MAIN = path.join(repoRoot, 'extension/cli/main.ts');
const BUG = path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close');

// A read that still blocks on a FIFO fails here instead of hanging the run.
const GUARD = { timeout: 60_000 };

function cli(args: string[], env: Record<string, string> = {}): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status, stderr: r.stderr };
}

async function rejectsWith(work: Promise<unknown>, expected: { file: string; problem: RegExp }): Promise<void> {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
    assert.equal(err.file, expected.file);
    assert.match(err.problem, expected.problem);
    return true;
  });
}

/** Files a person names on the command line (task, recipe, bug folder, predicted patch) go through the input layer. */
describe('user-named files through the input layer', () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  const fifo = (name: string) => {
    assert.equal(spawnSync('mkfifo', [at(name)]).status, 0);
    return at(name);
  };
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-user-files-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('run --task with malformed JSON names the file, line and column (exit 1)', GUARD, () => {
    writeFileSync(at('task.json'), '{\n  "image": "x",\n  "repo": ]\n}\n');
    const r = cli(['run', '--task', at('task.json'), '--policy-url', 'http://127.0.0.1:9', '--out', at('out.traj')]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /task\.json: line 3, column 11: invalid JSON/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });

  test('run --task on a FIFO with no writer ends with the timeout message (exit 1)', GUARD, () => {
    const task = fifo('task-pipe.json');
    const r = cli(['run', '--task', task, '--policy-url', 'http://127.0.0.1:9', '--out', at('out.traj')], { SWE_WORKBENCH_PIPE_TIMEOUT_S: '0.3' });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /task-pipe\.json: no writer opened the pipe within 0\.3 s/);
  });

  test('a recipe file that is a FIFO with no writer ends with the timeout message', GUARD, async () => {
    const recipe = fifo('recipe-pipe.yaml');
    await rejectsWith(resolveRecipe(recipe, { limits: { openTimeoutMs: 300 } }), { file: recipe, problem: /no writer opened the pipe within 0\.3 s/ });
  });

  test('an oversized recipe file names the limit; malformed JSON in one names line and column', async () => {
    const big = at('big.json');
    writeFileSync(big, JSON.stringify({ name: 'n', version: 1, extends: 'ppo', note: 'x'.repeat(4000) }));
    await rejectsWith(resolveRecipe(big, { limits: { maxBytes: 1024 } }), { file: big, problem: /larger than the 1\.0 KiB limit for one document/ });
    const bad = at('bad.json');
    writeFileSync(bad, '{\n  "name": "n",\n  "version": ,\n}');
    await assert.rejects(resolveRecipe(bad), (err: unknown) => err instanceof InputError && err.file === bad && err.where === 'line 3, column 14');
  });

  test('a bug folder file over the limit or a FIFO with no writer is named with the problem', GUARD, async () => {
    const bug = at('bug');
    await saveBugArtifact(bug, bugArtifact());
    writeFileSync(path.join(bug, BUG_FILES.testScript), '#!/bin/sh\n' + '# padding\n'.repeat(500));
    await rejectsWith(loadBugArtifact(bug, { limits: { maxBytes: 1024 } }), {
      file: path.join(bug, BUG_FILES.testScript),
      problem: /larger than the 1\.0 KiB limit/,
    });
    rmSync(path.join(bug, BUG_FILES.bugInjectDiff));
    assert.equal(spawnSync('mkfifo', [path.join(bug, BUG_FILES.bugInjectDiff)]).status, 0);
    await rejectsWith(loadBugArtifact(bug, { limits: { openTimeoutMs: 300 } }), {
      file: path.join(bug, BUG_FILES.bugInjectDiff),
      problem: /no writer opened the pipe within 0\.3 s/,
    });
  });

  test('bug higher-order --pred-patch: a FIFO with no writer ends with the timeout message, a missing file is exit 1', GUARD, () => {
    mkdirSync(at('repo'));
    const args = (patch: string) => [
      'bug',
      'higher-order',
      BUG,
      '--pred-patch',
      patch,
      '--out',
      at('next'),
      '--image',
      'none',
      '--repo',
      at('repo'),
      '--local',
    ];
    const piped = cli(args(fifo('pred.diff')), { SWE_WORKBENCH_PIPE_TIMEOUT_S: '0.3' });
    assert.equal(piped.code, 1, piped.stderr);
    assert.match(piped.stderr, /pred\.diff: no writer opened the pipe within 0\.3 s/);
    const missing = cli(args(at('absent.diff')));
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /absent\.diff: no such file/);
  });
});
