/**
 * The hostile-input corpus: every file is written at test time into a temp folder (the large
 * ones streamed, a megabyte at a time), from a few real third-party recordings and logs.
 * Each case says which command it runs and what an honest answer is.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { thirdPartyFolder } from '../../helpers/sharedFolder';

/** The third-party fixtures (../shared/fixtures/third-party, or its setting), skipped with a counted reason when absent. */
export const thirdParty = thirdPartyFolder();
export const THIRD_PARTY = thirdParty.dir;

export type Expect =
  /** Usable input: exit 0 (what could not be read still listed on stderr). */
  | { code: 0; stdout?: RegExp; stderr?: RegExp }
  /** Unusable input: a non-zero exit with a message saying what and where. */
  | { code: 1 | 2; stderr: RegExp };

export interface HostileCase {
  name: string;
  command: 'inspect' | 'reward' | 'rollouts';
  args: string[];
  expect: Expect;
  /** Run through bash (process substitution). */
  shell?: boolean;
}

export const GIB = 1 << 30;
const MIB = 1 << 20;

/** Writes `total` bytes made by `chunk(i)` (one MiB each), never holding more than one chunk. */
function writeStreamed(file: string, head: string, total: number, chunk: Buffer, tail = ''): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    for (let written = 0; written < total; written += chunk.length) writeSync(fd, chunk);
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
}

async function gzipBomb(file: string, total: number): Promise<void> {
  const block = Buffer.alloc(MIB, 0x20);
  let left = total;
  const source = new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      left -= block.length;
      this.push(block);
    },
  });
  await pipeline(source, createGzip({ level: 1 }), createWriteStream(file));
}

const instance = JSON.stringify({ instance_id: 'acme__t-1', FAIL_TO_PASS: ['tests/t.py::test_a'], PASS_TO_PASS: ['tests/t.py::test_b'] });
const COMPLETE_LOG = 'tests/t.py::test_a PASSED [ 50%]\ntests/t.py::test_b PASSED [100%]\n============ 2 passed in 0.03s ============\n';
const traj = (steps: unknown[], info: Record<string, unknown> = { exit_status: 'submitted' }) => JSON.stringify({ trajectory: steps, info });
const ESC = '\u001b';

export async function buildCorpus(dir: string): Promise<HostileCase[]> {
  mkdirSync(dir, { recursive: true });
  const at = (name: string) => join(dir, name);
  const write = (name: string, data: string | Buffer) => {
    writeFileSync(at(name), data);
    return at(name);
  };
  const cases: HostileCase[] = [];
  const inspect = (name: string, file: string, expect: Expect, extra: string[] = []) =>
    cases.push({ name, command: 'inspect', args: [file, ...extra], expect });
  const reward = (name: string, log: string, expect: Expect, inst = at('instance.json')) =>
    cases.push({ name, command: 'reward', args: ['--test-output', log, '--instance', inst], expect });
  write('instance.json', instance);

  // Truncations of a real SWE-agent recording at many points: a line and column, "truncated".
  const real = readFileSync(join(THIRD_PARTY, 'swe-agent/marshmallow-1867.windowed.traj'), 'utf8');
  for (const fraction of [0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999]) {
    const cut = Math.floor(real.length * fraction);
    inspect(`the real .traj cut at ${(fraction * 100).toFixed(1)}%`, write(`cut-${fraction}.traj`, real.slice(0, cut)), {
      code: 1,
      stderr: /line \d+, column \d+: (unexpected end of JSON|invalid JSON)/,
    });
  }
  inspect('the real .traj whole', join(THIRD_PARTY, 'swe-agent/marshmallow-1867.windowed.traj'), { code: 0, stdout: /format {3}swe-agent/ });
  // Wrong types and foreign JSON.
  inspect('an action that is a number', write('wrong-type.traj', traj([{ action: 7, observation: 'x' }])), { code: 1, stderr: /\$\.trajectory\[0\]\.action/ });
  inspect('instance_cost 1e400', write('inf.traj', `{"trajectory":[{"action":"ls","observation":"x"}],"info":{"model_stats":{"instance_cost":1e400}}}`), {
    code: 1,
    stderr: /instance_cost: a number too large for a 64-bit float/,
  });
  inspect(
    'a chat with a "bot" role',
    write(
      'chatbot.json',
      JSON.stringify({
        history: [
          { role: 'user', content: 'hi' },
          { role: 'bot', content: 'x' },
        ],
      }),
    ),
    { code: 1, stderr: /closest to swe-agent/ },
  );
  inspect('build steps named like rLLM steps', write('build.json', JSON.stringify({ uid: 'u', steps: [{ name: 'compile' }, { name: 'link' }] })), {
    code: 1,
    stderr: /closest to rllm/,
  });
  inspect('a package.json', write('package.json', JSON.stringify({ name: 'x', version: '1', scripts: {} })), { code: 1, stderr: /npm package\.json/ });
  inspect('random binary', write('random.traj', Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 2654435761) >>> 24))), {
    code: 1,
    stderr: /random\.traj: line \d+, column \d+/,
  });
  inspect('an empty file', write('empty.traj', ''), { code: 1, stderr: /empty file/ });
  inspect('a leading BOM', write('bom.traj', '\uFEFF' + traj([{ action: 'ls', observation: 'x' }])), { code: 0 });
  inspect('a BOM inside', write('bom-inside.traj', '{"trajectory":\n\uFEFF[]}'), { code: 1, stderr: /line 2, column 1: invalid JSON: a byte order mark/ });
  // PowerShell's Out-File writes UTF-16 LE with a byte order mark; read as UTF-8 would be.
  inspect('UTF-16 LE with a BOM', write('utf16.traj', Buffer.from('\uFEFF' + traj([{ action: 'ls', observation: 'é 😀' }]), 'utf16le')), {
    code: 0,
    stdout: /format {3}swe-agent/,
  });
  inspect('100k levels of nesting', write('deep.traj', `{"trajectory":${'['.repeat(100_000)}${']'.repeat(100_000)}}`), {
    code: 1,
    stderr: /deep\.traj: line 1, column \d+: JSON nested deeper than 512 levels/,
  });
  inspect('100k levels in a JSONL line', write('deep.jsonl', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}\n`), {
    code: 1,
    stderr: /deep\.jsonl: line 1, column \d+: JSON nested deeper/,
  });
  inspect('a folder', dir, { code: 1, stderr: /is a folder, not a file/ });
  symlinkSync(at('loop-b'), at('loop-a'));
  symlinkSync(at('loop-a'), at('loop-b'));
  inspect('a symlink loop', at('loop-a'), { code: 1, stderr: /loop-a: too many levels of symbolic links/ });
  spawnSync('mkfifo', [at('fifo.traj')]);
  inspect('a FIFO with no writer', at('fifo.traj'), { code: 1, stderr: /no writer opened the pipe within 5 s/ });
  // Terminal injection: content, keys and the file name itself.
  const hostile = traj([{ action: `ls${ESC}]0;pwned\u0007`, observation: `${ESC}[2J${ESC}[H` }], {
    exit_status: `Submitted\r${ESC}[32mresolved`,
    [`k${ESC}[31m`]: 1,
  });
  inspect('escape sequences in content', write('inject.traj', hostile), { code: 0, stdout: /\\u001b\]0;pwned\\u0007/ });
  inspect('escape sequences in content, as JSON', at('inject.traj'), { code: 0 }, ['--json']);
  inspect('escape sequences in the file name', write(`name${ESC}[2J.traj`, '{'), { code: 1, stderr: /name\\u001b\[2J\.traj/ });
  // Compression and pipes.
  spawnSync('sh', ['-c', `gzip -c "$1" > "$2"`, 'sh', join(THIRD_PARTY, 'swe-agent/marshmallow-1867.windowed.traj'), at('real.traj.gz')]);
  inspect('a .traj.gz', at('real.traj.gz'), { code: 0, stdout: /format {3}swe-agent/ });
  cases.push({
    name: 'inspect <(zcat run.traj.gz)',
    command: 'inspect',
    args: [`<(zcat ${at('real.traj.gz')})`],
    expect: { code: 0, stdout: /\/dev\/fd\/\d+\nformat {3}swe-agent/ },
    shell: true,
  });
  const whole = readFileSync(at('real.traj.gz'));
  inspect('a .traj.gz cut short', write('cut.traj.gz', whole.subarray(0, whole.length >> 1)), {
    code: 1,
    stderr: /gzip data ends early|unexpected end of JSON/,
  });
  // zstd, as training runs store rollouts: written by the zstd tool (Node 20's zlib has none).
  const zstd = spawnSync('zstd', ['-q', '-f', join(THIRD_PARTY, 'swe-agent/marshmallow-1867.windowed.traj'), '-o', at('real.traj.zst')]);
  if (zstd.status !== 0) throw new Error(`the zstd tool is needed to write the .zst cases: ${zstd.error?.message ?? zstd.stderr.toString()}`);
  inspect('a .traj.zst', at('real.traj.zst'), { code: 0, stdout: /format {3}swe-agent/ });
  const wholeZst = readFileSync(at('real.traj.zst'));
  inspect('a .traj.zst cut short', write('cut.traj.zst', wholeZst.subarray(0, wholeZst.length >> 1)), {
    code: 1,
    stderr: /cut\.traj\.zst: zstd data ends early: the file looks truncated/,
  });
  await gzipBomb(at('bomb.traj.gz'), GIB);
  inspect('a gzip bomb of 1 GiB', at('bomb.traj.gz'), { code: 1, stderr: /bomb\.traj\.gz: larger than the 128 MiB limit/ });
  // 1 GiB inputs: a .traj (indexed by offsets, so the limit falls on its one step, located) and a .jsonl of one line (streamed).
  writeStreamed(at('huge.traj'), '{"trajectory":[{"action":"', GIB, Buffer.alloc(MIB, 0x61), '","observation":""}]}');
  inspect('a 1 GiB .traj', at('huge.traj'), { code: 1, stderr: /huge\.traj: line 1, column 16: a value larger than the 128 MiB limit for one document/ });
  // A string never closed, past what the JavaScript engine holds in one string: named where it starts, not in V8's words.
  writeStreamed(at('unterminated.traj'), '{"trajectory":[{"action":"', 600 * MIB, Buffer.alloc(MIB, 0x61));
  inspect('a 600 MiB .traj with an unterminated string', at('unterminated.traj'), {
    code: 1,
    stderr: /unterminated\.traj: line 1, column 26: a string starts here and runs past 512 MiB \(unterminated\?\)/,
  });
  writeStreamed(at('huge.jsonl'), '{"trajectory_steps":[{"action":"', GIB, Buffer.alloc(MIB, 0x62), '"}]}\n');
  inspect('a 1 GiB .jsonl of one line', at('huge.jsonl'), { code: 1, stderr: /huge\.jsonl: line 1: larger than the 128 MiB limit/ });

  // reward: logs that are not a complete test run, hostile lines, FIFOs, a 1 GiB log.
  const logs: Array<[string, string, RegExp]> = [
    ['an empty log', '', /the test output is empty/],
    ['a 1-byte log', 'x', /no pytest or unittest result lines/],
    ['jest output', 'PASS src/a.test.js\nTests:       1 passed, 1 total\n', /jest output/],
    ['go test output', '=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tpkg\t0.01s\n', /go test output/],
    ['TAP output', 'TAP version 13\nok 1 - a\n1..1\n', /TAP output/],
    ['JUnit XML', '<testsuite name="t"><testcase name="a"/></testsuite>\n', /JUnit XML output/],
    ['mocha output', '  1 passing (4ms)\n', /mocha output/],
    ['cargo output', 'running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed\n', /cargo test output/],
    ['a pytest log cut in half', COMPLETE_LOG.slice(0, 50), /looks truncated/],
  ];
  for (const [name, log, message] of logs) reward(name, write(`${name.replace(/\W+/g, '-')}.log`, log), { code: 1, stderr: message });
  reward('random binary as a log', at('random.traj'), { code: 1, stderr: /binary data/ });
  reward('a complete log', write('complete.log', COMPLETE_LOG), { code: 0, stdout: /resolution: FULL/ });
  const backtrack = ['a:: PASSED ('.repeat(90_000), 'FAILED ' + 'a::'.repeat(300_000) + '[x', '='.repeat(MIB) + ' passed in x='].join('\n');
  reward('1 MB hostile lines in a complete log', write('backtrack.log', `${backtrack}\n${COMPLETE_LOG}`), { code: 0, stdout: /resolution: FULL/ });
  spawnSync('mkfifo', [at('fifo.log')]);
  reward('--test-output on a FIFO with no writer', at('fifo.log'), { code: 1, stderr: /fifo\.log: no writer opened the pipe/ });
  spawnSync('mkfifo', [at('fifo-instance.json')]);
  reward(
    '--instance on a FIFO with no writer',
    write('plain.log', COMPLETE_LOG),
    { code: 1, stderr: /fifo-instance\.json: no writer opened the pipe/ },
    at('fifo-instance.json'),
  );
  spawnSync('mkfifo', [at('fifo-report.json')]);
  cases.push({
    name: '--report on a FIFO with no writer',
    command: 'reward',
    args: ['--report', at('fifo-report.json')],
    expect: { code: 1, stderr: /fifo-report\.json: no writer opened the pipe/ },
  });
  cases.push({ name: '--report nested 100k deep', command: 'reward', args: ['--report', at('deep.traj')], expect: { code: 1, stderr: /nested deeper/ } });
  cases.push({
    name: '--instance that is binary',
    command: 'reward',
    args: ['--test-output', at('complete.log'), '--instance', at('random.traj')],
    expect: { code: 1, stderr: /random\.traj: line \d+, column \d+/ },
  });
  reward('a 1 GiB log', at('huge.jsonl'), { code: 1, stderr: /huge\.jsonl: larger than the 128 MiB limit/ });

  // rollouts: a folder holding both 1 GiB files and one good trajectory; folders with nothing to read; hostile filters.
  const run = at('run');
  mkdirSync(join(run, 'nested'), { recursive: true });
  symlinkSync(at('huge.traj'), join(run, 'huge.traj'));
  symlinkSync(at('huge.jsonl'), join(run, 'huge.jsonl'));
  writeFileSync(join(run, 'nested/ok.traj'), readFileSync(join(THIRD_PARTY, 'swe-agent/marshmallow-1867.windowed.traj')));
  writeFileSync(join(run, 'chatbot.json'), readFileSync(at('chatbot.json')));
  writeFileSync(join(run, 'torn.jsonl'), `${traj([{ action: 'ls', observation: 'x' }])}\n{"trajectory": [`);
  cases.push({
    name: 'a run folder with two 1 GiB files',
    command: 'rollouts',
    args: [run],
    expect: {
      code: 0,
      stdout: /^2 rollouts/m,
      stderr:
        /(?=[\s\S]*chatbot\.json: \$: not a trajectory: closest to swe-agent)(?=[\s\S]*huge\.jsonl:1: line 1: larger than the 128 MiB limit)(?=[\s\S]*huge\.traj: larger than the 128 MiB limit)(?=[\s\S]*torn\.jsonl:2: incomplete last line)/,
    },
  });
  const unreadable = at('unreadable-run');
  mkdirSync(unreadable);
  for (const name of ['cut-0.5.traj', 'deep.traj', 'build.json', 'random.traj']) writeFileSync(join(unreadable, name), readFileSync(at(name)));
  cases.push({
    name: 'a run folder where nothing is readable',
    command: 'rollouts',
    args: [unreadable],
    expect: { code: 1, stderr: /nothing could be read: 4 unreadable input/ },
  });
  cases.push({ name: 'a missing run folder', command: 'rollouts', args: [at('absent')], expect: { code: 1, stderr: /no such folder/ } });
  cases.push({
    name: 'a filter of 60k parentheses',
    command: 'rollouts',
    args: [run, '--filter', '('.repeat(60_000) + 'steps>1' + ')'.repeat(60_000)],
    expect: { code: 2, stderr: /filter: column 101: nested deeper than 100 levels/ },
  });
  cases.push({
    name: 'a filter with escape sequences',
    command: 'rollouts',
    args: [run, '--filter', `${ESC}]0;pwned\u0007=1`],
    expect: { code: 2, stderr: /\\u001b\]0;pwned\\u0007/ },
  });
  return cases;
}
