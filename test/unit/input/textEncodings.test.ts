/**
 * UTF-16 and UTF-32 files with a byte order mark (PowerShell's `Out-File` writes UTF-16 LE) are
 * read as their UTF-8 twin is read: plain, gzip and zstd, whole or from the byte index, JSON and
 * JSONL, with the same errors at the same lines and columns.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { InputError } from '../../../extension/core/errors';
import { indexJsonObject, readJsonRange } from '../../../extension/core/input/jsonIndex';
import { inputLines, readInputText } from '../../../extension/core/input/readInput';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { openSteps } from '../../../extension/core/trajectory/stepSource';

type Encoding = 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';
const ENCODINGS: Encoding[] = ['utf-16le', 'utf-16be', 'utf-32le', 'utf-32be'];

/** `text` in `encoding`, after its byte order mark. */
function encode(text: string, encoding: Encoding): Buffer {
  const withBom = `\uFEFF${text}`;
  if (encoding === 'utf-16le') return Buffer.from(withBom, 'utf16le');
  if (encoding === 'utf-16be') return Buffer.from(withBom, 'utf16le').swap16();
  const points = [...withBom].map((c) => c.codePointAt(0)!);
  const out = Buffer.alloc(points.length * 4);
  points.forEach((p, i) => (encoding === 'utf-32le' ? out.writeUInt32LE(p, i * 4) : out.writeUInt32BE(p, i * 4)));
  return out;
}

function zstd(data: Buffer): Buffer {
  const r = spawnSync('zstd', ['-q', '-c'], { input: data });
  assert.equal(r.status, 0, 'the zstd tool is installed');
  return r.stdout;
}

const COMPRESSIONS: Array<[string, (data: Buffer) => Buffer]> = [
  ['', (data) => data],
  ['.gz', (data) => gzipSync(data)],
  ['.zst', zstd],
];

// Accents, CJK, an emoji (a surrogate pair in UTF-16, one code point in UTF-32), quotes and escapes.
const RUN = {
  trajectory: [
    { action: 'cat café.py', observation: 'print("naïve 😀")\n# 日本語 \\ "q"', thought: 'ünïcödé' },
    { action: 'submit', observation: '𝄞 done' },
  ],
  history: [
    { role: 'system', content: 'système' },
    { role: 'user', content: 'corrige le bogue 🐛' },
  ],
  info: { exit_status: 'submitted', submission: 'diff --git a/é b/é' },
};
const TEXT = JSON.stringify(RUN, null, 2);

async function failure(work: Promise<unknown>): Promise<InputError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof InputError, `an InputError, got ${String(err)}`);
  return err;
}

describe('UTF-16 and UTF-32 input', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-encodings-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, data: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, data);
    return p;
  };

  test('a trajectory in each encoding, plain, gzip or zstd, is read as its UTF-8 twin', async () => {
    const expected = (await loadTrajectory(file('run.traj', TEXT))).trajectory;
    assert.equal(expected.steps[0]!.observation, RUN.trajectory[0]!.observation);
    for (const encoding of ENCODINGS) {
      for (const [suffix, compress] of COMPRESSIONS) {
        const p = file(`run.${encoding}.traj${suffix}`, compress(encode(TEXT, encoding)));
        assert.deepEqual((await loadTrajectory(p)).trajectory, expected, `${encoding}${suffix}`);
        const { text, compression } = await readInputText(p);
        assert.equal(text, TEXT, `${encoding}${suffix}`);
        assert.equal(compression, suffix === '.gz' ? 'gzip' : suffix === '.zst' ? 'zstd' : undefined);
      }
    }
  });

  test('a JSONL file in each encoding is read line by line, every record as in UTF-8', async () => {
    const lines = [JSON.stringify({ trajectory_steps: [{ action: 'é', observation: '😀' }] }), '', JSON.stringify({ n: '日本' })];
    const jsonl = `${lines.join('\n')}\n`;
    for (const encoding of ENCODINGS) {
      for (const [suffix, compress] of COMPRESSIONS) {
        const p = file(`lines.${encoding}.jsonl${suffix}`, compress(encode(jsonl, encoding)));
        const read: Array<[number, string]> = [];
        for await (const l of inputLines(p)) {
          assert.equal(l.encoding, encoding);
          read.push([l.line, l.text]);
        }
        assert.deepEqual(
          read,
          lines.map((text, i) => [i + 1, text]),
          `${encoding}${suffix}`,
        );
      }
    }
  });

  test('an error in a UTF-16 or UTF-32 file names the line and column its UTF-8 twin names', async () => {
    // After an emoji (two UTF-16 code units, one UTF-32 code point) on the same line: the column counts it as the parser does.
    const broken = TEXT.replace('"submitted"', '"submitted" "x"');
    const truncated = TEXT.slice(0, TEXT.indexOf('𝄞') + 4);
    for (const [name, text] of [
      ['broken', broken],
      ['truncated', truncated],
    ] as const) {
      const expected = await failure(loadTrajectory(file(`${name}.traj`, text)));
      assert.match(expected.where ?? '', /^line \d+, column \d+$/);
      for (const encoding of ENCODINGS) {
        for (const [suffix, compress] of COMPRESSIONS) {
          const p = file(`${name}.${encoding}.traj${suffix}`, compress(encode(text, encoding)));
          const err = await failure(loadTrajectory(p));
          assert.equal(`${err.where}: ${err.problem}`, `${expected.where}: ${expected.problem}`, `${name} ${encoding}${suffix}`);
        }
      }
    }
  });

  test('from the byte index, a file in each encoding gives the steps and header of its UTF-8 twin, and its errors at the same places', async () => {
    const expected = (await loadTrajectory(file('indexed.traj', TEXT))).trajectory;
    const { steps, ...header } = expected;
    for (const encoding of ENCODINGS) {
      const p = file(`indexed.${encoding}.traj`, encode(TEXT, encoding));
      const source = await openSteps(p, { indexFromBytes: 0 });
      assert.equal(source.mode, 'indexed', encoding);
      assert.deepEqual(source.header, header, encoding);
      assert.deepEqual(await source.steps(0, source.stepCount), steps, encoding);
      assert.deepEqual(await source.rawRecords(steps[1]!), [RUN.trajectory[1]], encoding);
    }
    // Found at open (the file ends early) and when a step is read (a fault inside it): the index counts code units, not bytes.
    const truncated = TEXT.slice(0, TEXT.indexOf('𝄞') + 4);
    const badStep = TEXT.replace('"observation": "𝄞 done"', '"observation": "𝄞 done" tru');
    const truncatedError = await failure(loadTrajectory(file('t.traj', truncated)));
    const badStepError = await failure(loadTrajectory(file('b.traj', badStep)));
    for (const encoding of ENCODINGS) {
      const atOpen = await failure(openSteps(file(`t.${encoding}.traj`, encode(truncated, encoding)), { indexFromBytes: 0 }));
      assert.equal(`${atOpen.where}: ${atOpen.problem}`, `${truncatedError.where}: ${truncatedError.problem}`, encoding);
      const source = await openSteps(file(`b.${encoding}.traj`, encode(badStep, encoding)), { indexFromBytes: 0 });
      const atRead = await failure(source.step(1));
      assert.equal(atRead.where, badStepError.where, encoding);
      assert.match(atRead.problem, /invalid JSON/);
    }
  });

  test('the index reads each value of a UTF-16 or UTF-32 file whatever the size of each read, a code unit or a surrogate pair cut between two', async () => {
    const doc = { a: 'q"uo\\"te😀', trajectory: [{ x: 'é\\"𝄞', y: [1, { z: '}]' }] }, 'plain', { 'k"😀': 'v' }], n: 12 };
    const text = `${JSON.stringify(doc, null, 3)}\n`;
    for (const encoding of ENCODINGS) {
      const p = file(`cut.${encoding}.json`, encode(text, encoding));
      for (const readBytes of [1, 3, 5, 7, 1 << 20]) {
        const index = await indexJsonObject(p, { arrays: ['trajectory'], keepBytes: 4, readBytes });
        const label = `${encoding}, reads of ${readBytes}`;
        assert.deepEqual([...index.keys.keys()], ['a', 'trajectory', 'n'], label);
        for (const [key, value] of index.keys) assert.deepEqual(await readJsonRange(p, value), doc[key as keyof typeof doc], `${key}, ${label}`);
        const elements = index.arrays.get('trajectory')!;
        for (const [i, element] of elements.entries()) assert.deepEqual(await readJsonRange(p, element), doc.trajectory[i], label);
        assert.deepEqual([...elements[2]!.fields.keys()], ['k"😀'], label);
      }
    }
  });
});
