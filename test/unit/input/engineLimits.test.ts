/**
 * Input past what the JavaScript engine holds in one string (V8: 2^29 - 24 code units, about
 * 512 MiB) is named in our words: which string, where it starts, why it cannot be read. The
 * files are written a MiB at a time (or gzip streamed) into a temp folder and removed after.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { createGzip } from 'node:zlib';
import { InputError } from '../../../extension/core/errors';
import { openSteps } from '../../../extension/core/trajectory/stepSource';

const MIB = 1 << 20;
const repoRoot = resolve(__dirname, '../../..');

/** `head`, then `mib` MiB of `a`, then `tail`; never more than a MiB in memory. */
function writeRepeated(file: string, head: string, mib: number, tail = ''): string {
  const chunk = Buffer.alloc(MIB, 0x61);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    for (let i = 0; i < mib; i++) writeSync(fd, chunk);
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The same, gzip compressed as it is streamed. */
async function gzipRepeated(file: string, head: string, mib: number): Promise<string> {
  const chunk = Buffer.alloc(MIB, 0x61);
  let left = mib;
  let started = false;
  const source = new Readable({
    read() {
      if (!started) {
        started = true;
        return void this.push(Buffer.from(head));
      }
      if (left-- <= 0) return void this.push(null);
      this.push(chunk);
    },
  });
  await pipeline(source, createGzip({ level: 1 }), createWriteStream(file));
  return file;
}

async function failure(work: Promise<unknown>): Promise<InputError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
  return err;
}

describe('input past the engine limit on one string', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-engine-limits-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a 600 MiB .traj whose string is never closed: read from the byte index, named where the string starts, not in V8 words', async () => {
    const file = writeRepeated(join(dir, 'unterminated.traj'), '{"trajectory":[\n  {"action": "😀", "observation": "', 600);
    try {
      const err = await failure(openSteps(file));
      assert.equal(err.file, file);
      assert.equal(err.where, 'line 2, column 35');
      assert.equal(
        err.problem,
        'a string starts here and runs past 512 MiB (unterminated?), more than the JavaScript engine holds in one string; it cannot be read',
      );
    } finally {
      rmSync(file);
    }
  });

  test('a string that runs to the end of the file past the one-document limit is named where it starts', async () => {
    const file = writeRepeated(join(dir, 'long.traj'), '{"trajectory": [{"action": "ls", "observation": "x"}],\n "info": {"submission": "', 3);
    const err = await failure(openSteps(file, { indexFromBytes: 0, limits: { maxBytes: MIB } }));
    assert.equal(err.where, 'line 2, column 25');
    assert.equal(
      err.problem,
      'a string starts here and runs to the end of the file, 3.0 MiB on, past the 1 MiB limit for one document (unterminated?); it cannot be read',
    );
  });

  test('with the limit raised past the engine, a file read whole (gzip) and a JSONL line say which string cannot be held', async () => {
    // In a child, as a user runs it: these are read whole, so they take the memory the raised limit allows.
    const inspect = (file: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'extension/cli/main.ts'), 'inspect', file], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, SWE_WORKBENCH_MAX_INPUT_MB: '1024' },
      });
    const cases: Array<[string, string, string]> = [
      ['whole.traj.gz', '{"trajectory":[{"action":"', 'line 1, column 26'],
      ['lines.jsonl.gz', '{"trajectory_steps":[]}\n{"trajectory_steps":[{"action":"', 'line 2, column 32'],
    ];
    for (const [name, head, where] of cases) {
      const file = await gzipRepeated(join(dir, name), head, 600);
      const run = inspect(file);
      assert.equal(run.status, 1, run.stderr);
      assert.equal(
        run.stderr.trim(),
        `swe-workbench: ${file}: ${where}: a string starts here and runs past 512 MiB (unterminated?), more than the JavaScript engine holds in one string; it cannot be read`,
      );
    }
  });
});
