/**
 * `swe-workbench`: the headless twin of the extension. Each subcommand lives in its own
 * module and is loaded on demand, so `inspect` does not pay for dockerode or the openai client.
 */
import { CliError, type Command } from './command';
import { errorText } from '../core/errors';

const commands: Record<string, () => Promise<Command>> = {
  image: async () => (await import('./image')).command,
  rollouts: async () => (await import('./rollouts')).command,
  inspect: async () => (await import('./inspect')).command,
  aci: async () => (await import('./aci')).command,
  replay: async () => (await import('./replay')).command,
  run: async () => (await import('./run')).command,
  bug: async () => (await import('./bug')).command,
  reward: async () => (await import('./reward')).command,
  doctor: async () => (await import('./doctor')).command,
};

function usage(): string {
  const names = Object.keys(commands).sort();
  return `usage: swe-workbench <command> [options]\n\ncommands:\n${names.map((n) => `  ${n}`).join('\n')}\n\nRun 'swe-workbench <command> --help' for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`swe-workbench: unknown command '${name}'\n\n${usage()}\n`);
    return 2;
  }
  const command = await load();
  const controller = new AbortController();
  const onSignal = () => controller.abort('interrupted');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await command.run(rest, { signal: controller.signal, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = errorText(err);
    process.stderr.write(`swe-workbench: ${message}\n`);
    if (process.env.SWE_WORKBENCH_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
