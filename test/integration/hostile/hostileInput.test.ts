/**
 * The hostile-input suite: every command (inspect, reward, rollouts) on every file of the
 * corpus, run as the shipped CLI bundle in a child process under GNU time. Each run must end
 * within 10 s with no stack trace, peak under 1 GiB of memory, print nothing a terminal would
 * act on, and never exit 0 on unusable input.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe } from 'node:test';
import * as esbuild from 'esbuild';
import { buildCorpus, thirdParty, type HostileCase } from './hostileCorpus';

const repoRoot = resolve(__dirname, '../../..');
const HANG_LIMIT_MS = 10_000;
const MEMORY_LIMIT_KB = 1 << 20;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  maxRssKb: number;
}

function quote(arg: string): string {
  return arg.startsWith('<(') ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

describe('hostile input: no stack trace, no hang, no memory blow-up, no silent exit 0', () => {
  let dir: string;
  let cli: string;
  let cases: HostileCase[] = [];
  thirdParty.before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-hostile-'));
    cli = join(dir, 'cli.js');
    await esbuild.build({
      entryPoints: [join(repoRoot, 'extension/cli/main.ts')],
      outfile: cli,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode', 'cpu-features', '*.node', 'pyright'],
      logLevel: 'warning',
    });
    const started = Date.now();
    cases = await buildCorpus(join(dir, 'corpus'));
    process.stdout.write(`# corpus of ${cases.length} cases written in ${Date.now() - started} ms\n`);
  });
  thirdParty.after(() => rmSync(dir, { recursive: true, force: true }));

  function run(c: HostileCase): Run {
    const rss = join(dir, 'rss');
    rmSync(rss, { force: true });
    const argv = [cli, c.command, ...c.args];
    const r = c.shell
      ? spawnSync('/usr/bin/time', ['-f', '%M', '-o', rss, 'bash', '-c', [process.execPath, ...argv].map(quote).join(' ')], {
          encoding: 'utf8',
          timeout: HANG_LIMIT_MS,
          maxBuffer: 256 << 20,
        })
      : spawnSync('/usr/bin/time', ['-f', '%M', '-o', rss, process.execPath, ...argv], { encoding: 'utf8', timeout: HANG_LIMIT_MS, maxBuffer: 256 << 20 });
    const maxRssKb = existsSync(rss) ? Number(readFileSync(rss, 'utf8').trim().split('\n').pop()) : NaN;
    return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, maxRssKb };
  }

  thirdParty.test('the corpus covers every command', () => {
    const by = (cmd: string) => cases.filter((c) => c.command === cmd).length;
    assert.ok(by('inspect') >= 30 && by('reward') >= 15 && by('rollouts') >= 5, `inspect ${by('inspect')}, reward ${by('reward')}, rollouts ${by('rollouts')}`);
  });

  thirdParty.test('every case', (t) => {
    const failures: string[] = [];
    for (const c of cases) {
      const started = Date.now();
      const r = run(c);
      t.diagnostic(`${c.command} ${c.name}: exit ${r.code}, ${Date.now() - started} ms, ${Math.round(r.maxRssKb / 1024)} MiB`);
      const label = `${c.command} ${c.name}`;
      const problems: string[] = [];
      if (r.signal) problems.push(`did not end within ${HANG_LIMIT_MS / 1000} s (${r.signal})`);
      if (r.code !== c.expect.code) problems.push(`exit ${r.code}, expected ${c.expect.code}`);
      if (/\n\s+at |Unhandled|RangeError|TypeError|Maximum call stack/.test(r.stderr)) problems.push(`a stack trace or crash: ${r.stderr.slice(0, 300)}`);
      if (!(r.maxRssKb < MEMORY_LIMIT_KB)) problems.push(`peak memory ${Math.round(r.maxRssKb / 1024)} MiB`);
      if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(r.stdout + r.stderr))
        problems.push('a control or bidi character reached the terminal');
      if (c.expect.code === 0 && c.expect.stdout && !c.expect.stdout.test(r.stdout))
        problems.push(`stdout does not match ${c.expect.stdout}: ${r.stdout.slice(0, 300)}`);
      if (c.expect.code === 0 && c.expect.stderr && !c.expect.stderr.test(r.stderr))
        problems.push(`stderr does not match ${c.expect.stderr}: ${r.stderr.slice(0, 600)}`);
      if (c.expect.code !== 0 && !c.expect.stderr.test(r.stderr)) problems.push(`stderr does not match ${c.expect.stderr}: ${r.stderr.slice(0, 300)}`);
      if (c.expect.code !== 0 && r.stderr.trim() === '') problems.push('failed without a word');
      if (problems.length > 0) failures.push(`${label}: ${problems.join('; ')}`);
    }
    assert.deepEqual(failures, []);
  });
});
