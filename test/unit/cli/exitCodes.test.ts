import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

const repoRoot = path.resolve(__dirname, '../../..');
const MAIN = path.join(repoRoot, 'extension/cli/main.ts');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The exit-code table of docs/cli.md, row by row, through the real binary. */
describe('exit codes: 0 success, 1 input or runtime error, 2 usage', () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-exit-'));
    writeFileSync(at('ok.traj'), JSON.stringify({ trajectory: [{ action: 'ls', observation: 'x' }], info: { exit_status: 'submitted' } }));
    writeFileSync(
      at('big.traj'),
      JSON.stringify({ trajectory: Array.from({ length: 5000 }, (_, i) => ({ action: `echo ${i}`, observation: 'y'.repeat(50) })) }),
    );
    writeFileSync(at('foreign.json'), JSON.stringify({ name: 'x', version: '1.0.0', dependencies: {} }));
    writeFileSync(at('instance.json'), JSON.stringify({ instance_id: 'x', FAIL_TO_PASS: ['t.py::test_a'], PASS_TO_PASS: [] }));
    writeFileSync(at('empty.log'), '');
    writeFileSync(at('jest.log'), 'PASS src/a.test.js\nTests:       1 passed, 1 total\n');
    mkdirSync(at('empty-run'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const rows: Array<[number, string, () => string[], RegExp?]> = [
    [0, 'inspect of a trajectory', () => ['inspect', at('ok.traj')]],
    [0, 'a command with --help', () => ['rollouts', '--help']],
    [1, 'a missing file', () => ['inspect', at('absent.traj')], /absent\.traj: no such file/],
    [1, 'a folder given as a file', () => ['inspect', dir], /is a folder, not a file/],
    [1, 'a file that is not a trajectory', () => ['inspect', at('foreign.json')], /not a trajectory: it looks like an npm package\.json/],
    [
      1,
      'an empty test log',
      () => ['reward', '--test-output', at('empty.log'), '--instance', at('instance.json')],
      /no tests recognised: the test output is empty/,
    ],
    [
      1,
      'jest output given to reward',
      () => ['reward', '--test-output', at('jest.log'), '--instance', at('instance.json')],
      /this is jest output, which is not graded/,
    ],
    [1, 'a run folder with nothing to read', () => ['rollouts', at('empty-run')], /no \.json, \.jsonl or \.traj files/],
    [1, 'a missing run folder', () => ['rollouts', at('absent-run')], /absent-run: no such folder/],
    [2, 'no command', () => []],
    [2, 'an unknown command', () => ['nope'], /unknown command 'nope'/],
    [2, 'an unknown option', () => ['inspect', '--nope', at('ok.traj')], /Unknown option '--nope'/],
    [2, 'a missing argument', () => ['inspect'], /expected exactly one FILE/],
    [2, 'a filter that does not parse', () => ['rollouts', at('absent-run'), '--filter', 'steps>>1'], /filter: column 7/],
    [
      2,
      'an invalid option value',
      () => ['reward', '--test-output', at('empty.log'), '--instance', at('instance.json'), '--format', 'jest'],
      /--format expects one of/,
    ],
  ];
  for (const [code, name, args, message] of rows) {
    test(`${code}: ${name}`, () => {
      const r = cli(args());
      assert.equal(r.code, code, r.stderr);
      if (message) assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  test('a reader that closes the pipe early ends the command quietly with its own code', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'inspect', at('big.traj')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
