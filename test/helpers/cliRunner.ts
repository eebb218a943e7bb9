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
