import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from '../../extension/cli/command';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI subcommand in this process with captured output, as `swe-workbench NAME ...argv` would. */
export async function runCli(command: Command, argv: string[], signal: AbortSignal = new AbortController().signal): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const code = await command.run(argv, { signal, stdout, stderr, stdin: new PassThrough() });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** The real binary from source (`node --import tsx extension/cli/main.ts`) in a process of its own, with `env` over this one's. */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const repoRoot = path.resolve(__dirname, '../..');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
