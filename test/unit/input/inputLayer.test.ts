import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { InputError } from '../../../extension/core/errors';
import { parseJsonDocument, readJsonDocument } from '../../../extension/core/input/jsonDocument';
import { inputLines, readInputText } from '../../../extension/core/input/readInput';
import { loadTrajectory } from '../../../extension/core/trajectory/load';

const TRAJ = JSON.stringify({ trajectory: [{ action: 'ls', observation: 'a.py' }], info: { exit_status: 'submitted' } });

function zstd(data: string): Buffer {
  const r = spawnSync('zstd', ['-q', '-c'], { input: data });
  assert.equal(r.status, 0, 'the zstd tool is installed');
  return r.stdout;
}

async function rejectsWith(work: Promise<unknown>, where: { file?: string; where?: string | RegExp; problem: RegExp }): Promise<void> {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
    if (where.file !== undefined) assert.equal(err.file, where.file);
    if (where.where instanceof RegExp) assert.match(err.where ?? '', where.where);
    else if (where.where !== undefined) assert.equal(err.where, where.where);
    assert.match(err.problem, where.problem);
    return true;
  });
}

describe('the input layer', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-input-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, data: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  test('gzip and zstd are read transparently, JSON and JSONL alike', async () => {
    for (const [name, data] of [
      ['run.traj.gz', gzipSync(TRAJ)],
      ['run.traj.zst', zstd(TRAJ)],
      ['mislabelled.traj', gzipSync(TRAJ)],
    ] as const) {
      const loaded = await loadTrajectory(file(name, data));
      assert.equal(loaded.format, 'swe-agent', name);
      assert.equal(loaded.trajectory.steps[0]?.observation, 'a.py', name);
    }
    const jsonl = `${TRAJ}\n${TRAJ.replace('a.py', 'b.py')}\n`;
    const loaded = await loadTrajectory(file('run.jsonl.zst', zstd(jsonl)), { record: 1 });
    assert.equal(loaded.trajectory.steps[0]?.observation, 'b.py');
    assert.equal(loaded.records, 2);
  });

  test('a truncated gzip or zstd file is named as truncated', async () => {
    const big = JSON.stringify({ trajectory: Array.from({ length: 2000 }, (_, i) => ({ action: `ls ${i}`, observation: `${i}`.repeat(50) })) });
    const gz = gzipSync(big);
    await rejectsWith(readInputText(file('cut.traj.gz', gz.subarray(0, gz.length >> 1))), { problem: /gzip data ends early: the file looks truncated/ });
    const zst = zstd(big);
    await rejectsWith(readInputText(file('cut.traj.zst', zst.subarray(0, zst.length >> 1))), { problem: /zstd data ends early: the file looks truncated/ });
  });

  test('a file over the size limit names the file and the limit, before reading it (plain) or as soon as it passes it (compressed)', async () => {
    const big = file('big.traj', 'x'.repeat(3000));
    await rejectsWith(readInputText(big, { limits: { maxBytes: 1024 } }), { file: big, problem: /larger than the 1\.0 KiB limit for one document/ });
    const bomb = file('bomb.traj.gz', gzipSync(' '.repeat(1 << 20)));
    await rejectsWith(readInputText(bomb, { limits: { maxBytes: 4096 } }), { file: bomb, problem: /larger than the 4\.0 KiB limit/ });
  });

  test('a JSONL line over the limit is reported by line and skipped without being held', async () => {
    const p = file('long.jsonl', `{"a":1}\n${'"' + 'y'.repeat(5000) + '"'}\n{"b":2}\n`);
    const lines = [];
    for await (const l of inputLines(p, { limits: { maxBytes: 1000 } })) lines.push({ line: l.line, tooLong: l.tooLong, text: l.text });
    assert.deepEqual(lines, [
      { line: 1, tooLong: false, text: '{"a":1}' },
      { line: 2, tooLong: true, text: '' },
      { line: 3, tooLong: false, text: '{"b":2}' },
    ]);
    await rejectsWith(loadTrajectory(p, { record: 1, limits: { maxBytes: 1000 } }), { where: 'line 2', problem: /larger than the 1000 bytes limit/ });
  });

  test('a named pipe with no writer fails after the timeout, saying so', async () => {
    const fifo = join(dir, 'nobody.traj');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    await rejectsWith(loadTrajectory(fifo, { limits: { openTimeoutMs: 300 } }), { file: fifo, problem: /no writer opened the pipe within 0\.3 s/ });
  });

  test('a named pipe with a writer is read as a stream (its size on disk is 0)', async () => {
    const fifo = join(dir, 'writer.traj');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const source = file('source.traj.gz', gzipSync(TRAJ));
    const writer = spawn('sh', ['-c', 'sleep 0.2; cat "$1" > "$2"', 'sh', source, fifo]);
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    const loaded = await loadTrajectory(fifo, { limits: { openTimeoutMs: 20_000 } });
    assert.equal(loaded.trajectory.steps.length, 1);
    await exited;
  });

  test('a folder, a missing file and a symlink loop each name the path', async () => {
    mkdirSync(join(dir, 'folder.traj'));
    await rejectsWith(loadTrajectory(join(dir, 'folder.traj')), {
      file: join(dir, 'folder.traj'),
      problem: /^is a folder, not a file, and not a recording folder \(openhands-v1\)$/,
    });
    await rejectsWith(readJsonDocument(join(dir, 'absent.json')), { file: join(dir, 'absent.json'), problem: /^no such file$/ });
    spawnSync('ln', ['-s', join(dir, 'loop-b'), join(dir, 'loop-a')]);
    spawnSync('ln', ['-s', join(dir, 'loop-a'), join(dir, 'loop-b')]);
    await rejectsWith(loadTrajectory(join(dir, 'loop-a')), { problem: /symlink loop/ });
  });

  test('JSON errors are a line and a column; a BOM inside is named; a leading BOM is read', async () => {
    await rejectsWith(readJsonDocument(file('bad.json', '{\n  "a": 1,\n  "b": ]\n}')), { where: 'line 3, column 8', problem: /invalid JSON/ });
    await rejectsWith(readJsonDocument(file('bom-inside.json', '[1,\n\uFEFF2]')), { where: 'line 2, column 1', problem: /byte order mark \(U\+FEFF\)/ });
    assert.deepEqual((await readJsonDocument(file('bom.json', '\uFEFF{"a":1}'))).value, { a: 1 });
    await rejectsWith(readJsonDocument(file('nul.json', '{"a":\u0000}')), {
      where: 'line 1, column 6',
      problem: /control character \(U\+0000\), so binary data/,
    });
  });

  test('nesting past the depth limit is refused at its line and column, before any recursive reader', async () => {
    const deep = `{"a":\n${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    assert.throws(
      () => parseJsonDocument(deep, 'deep.json'),
      (err: unknown) => err instanceof InputError && err.where === 'line 2, column 512' && /nested deeper than 512 levels/.test(err.problem),
    );
    // Brackets inside strings are text, not nesting, also after escaped quotes and backslashes.
    assert.deepEqual(parseJsonDocument(JSON.stringify({ s: '['.repeat(10_000) }), 'ok.json'), { s: '['.repeat(10_000) });
    const tricky = { a: 'say \\"[[[', b: 'ends in a backslash \\', c: '"'.repeat(3) + '['.repeat(600) };
    assert.deepEqual(parseJsonDocument(JSON.stringify(tricky), 'ok.json'), tricky);
    // A string that ends in an escaped backslash closes there: the brackets after it are nesting.
    const afterBackslash = `{"s": "x\\\\",\n "t": ${'['.repeat(600)}${']'.repeat(600)}}`;
    assert.throws(
      () => parseJsonDocument(afterBackslash, 'deep.json'),
      (err: unknown) => err instanceof InputError && err.where === 'line 2, column 518',
    );
    await rejectsWith(loadTrajectory(file('deep.traj', deep)), { where: /^line 2, column 512$/, problem: /nested deeper/ });
  });
});
