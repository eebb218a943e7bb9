/**
 * The costs of reading hostile and compressed input, side by side in one run:
 *  - test-output parsing: a log of 1 MB hostile lines (the shapes that made the old regular
 *    expressions backtrack for minutes) against a normal pytest log of the same size;
 *  - the input layer: a trajectory read plain, gzip and zstd compressed, and in UTF-16 LE
 *    (PowerShell's Out-File), against raw readFile + JSON.parse;
 *  - the two shapes that were quadratic, at 100,000: a SWE-agent .traj whose history disagrees
 *    with its trajectory, and one assistant message with 100,000 tool calls and their replies.
 * Run: node --import tsx bench/input/hostile.ts
 */
import '../../test/helpers/families';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseTestOutput } from '../../extension/core/reward/testOutput';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { median, timed } from '../timing';

const MB = 1 << 20;
const ROUNDS = 5;

function normalLog(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `tests/test_mod_${i % 50}.py::TestCase::test_case_${i}[param-${i % 7}] ${i % 9 === 0 ? 'FAILED' : 'PASSED'} [ ${i % 100}%]`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n===== 1 failed in 1.00s =====\n';
}

function hostileLog(bytes: number): string {
  const shapes = ['a:: PASSED ('.repeat(MB / 12), 'FAILED ' + 'a::'.repeat(MB / 3) + '[x', '='.repeat(MB) + ' passed in x=', 'PASSED x::y' + '['.repeat(MB)];
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    lines.push(shapes[i % shapes.length]!);
    size += lines.at(-1)!.length + 1;
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const size = 8 * MB;
  const normal = normalLog(size);
  const hostile = hostileLog(size);
  const tNormal = median(await Promise.all(Array.from({ length: ROUNDS }, () => timed(async () => parseTestOutput(normal)))));
  const tHostile = median(await Promise.all(Array.from({ length: ROUNDS }, () => timed(async () => parseTestOutput(hostile)))));
  console.log(
    `test output, ${(size / MB).toFixed(0)} MB: normal log ${tNormal.toFixed(1)} ms, hostile 1 MB lines ${tHostile.toFixed(1)} ms, ratio hostile/normal ${(tHostile / tNormal).toFixed(2)}`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'swe-workbench-bench-input-'));
  try {
    const traj = JSON.stringify({
      trajectory: Array.from({ length: 2000 }, (_, i) => ({ action: `cat file_${i}.py`, observation: 'x = 1\n'.repeat(4000) })),
      info: { exit_status: 'submitted' },
    });
    const plain = join(dir, 'run.traj');
    writeFileSync(plain, traj);
    writeFileSync(`${plain}.gz`, gzipSync(traj));
    const utf16 = join(dir, 'run.utf16.traj');
    writeFileSync(utf16, Buffer.from(`\uFEFF${traj}`, 'utf16le'));
    spawnSync('zstd', ['-q', '-f', plain, '-o', `${plain}.zst`]);
    const raw = async () => JSON.parse(readFileSync(plain, 'utf8'));
    const variants: Array<[string, () => Promise<unknown>]> = [
      ['raw readFile + JSON.parse', raw],
      ['loadTrajectory plain', () => loadTrajectory(plain)],
      ['loadTrajectory .gz', () => loadTrajectory(`${plain}.gz`)],
      ['loadTrajectory .zst', () => loadTrajectory(`${plain}.zst`)],
      ['loadTrajectory UTF-16 LE', () => loadTrajectory(utf16)],
    ];
    const times: number[] = [];
    for (const [, work] of variants) {
      const samples: number[] = [];
      for (let i = 0; i < ROUNDS; i++) samples.push(await timed(work));
      times.push(median(samples));
    }
    console.log(`a ${(traj.length / MB).toFixed(0)} MB trajectory:`);
    variants.forEach(([name], i) => console.log(`  ${name.padEnd(28)} ${times[i]!.toFixed(0).padStart(6)} ms  ${(times[i]! / times[0]!).toFixed(2)}x raw`));

    const n = 100_000;
    const disagreeing = join(dir, 'disagreeing.traj');
    writeFileSync(
      disagreeing,
      JSON.stringify({
        trajectory: Array.from({ length: n }, (_, i) => ({ action: `ls ${i}`, observation: `o${i}` })),
        history: Array.from({ length: n }, (_, i) => ({ role: 'assistant', content: '', action: `cat other_${i}` })),
      }),
    );
    const manyCalls = join(dir, 'many-calls.json');
    writeFileSync(
      manyCalls,
      JSON.stringify([
        { role: 'user', content: 'task' },
        {
          role: 'assistant',
          content: '',
          tool_calls: Array.from({ length: n }, (_, k) => ({
            id: `call_${k}`,
            type: 'function',
            function: { name: 'bash', arguments: `{"command":"ls ${k}"}` },
          })),
        },
        ...Array.from({ length: n }, (_, k) => ({ role: 'tool', tool_call_id: `call_${n - 1 - k}`, content: `r${k}` })),
      ]),
    );
    const tDisagreeing = await timed(() => loadTrajectory(disagreeing));
    const tManyCalls = await timed(() => loadTrajectory(manyCalls));
    console.log(
      `100,000 steps, history disagreeing: ${tDisagreeing.toFixed(0)} ms; one message with 100,000 tool calls: ${tManyCalls.toFixed(0)} ms (both over 400 s before)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
