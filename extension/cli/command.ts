import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorText } from '../core/errors';

export interface CommandContext {
  signal: AbortSignal;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

export interface Command {
  /** Returns the process exit code. */
  run(argv: string[], ctx: CommandContext): Promise<number>;
}

/** An error meant for the person at the terminal: printed without a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** node:util parseArgs with errors turned into CliError (exit 2, the usage code). */
export function parseCommandArgs<T extends ParseArgsConfig['options']>(argv: string[], options: T, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new CliError(errorText(err));
  }
}
