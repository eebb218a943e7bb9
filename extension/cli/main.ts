/**
 * `swe-workbench`: the headless twin of the extension. Each subcommand lives in its own
 * module and is loaded on demand, so `inspect` does not pay for dockerode or the openai client.
 */
import { guardOutput } from '../core/output/terminalText';
import { CliError, type Command } from './command';
import { errorText } from '../core/errors';
import { INDEX_HEAP_FLAGS, INDEX_MALLOC_ENV } from '../core/rollouts/indexHeap';
import { relaunchWith } from './relaunch';

const commands: Record<string, () => Promise<Command>> = {
  image: async () => (await import('./image')).command,
  rollouts: async () => (await import('./rollouts')).command,
  inspect: async () => (await import('./inspect')).command,
  convert: async () => (await import('./convert')).command,
  aci: async () => (await import('./aci')).command,
  replay: async () => (await import('./replay')).command,
  run: async () => (await import('./run')).command,
  bug: async () => (await import('./bug')).command,
  reward: async () => (await import('./reward')).command,
  doctor: async () => (await import('./doctor')).command,
  tokens: async () => (await import('./tokens')).command,
  branch: async () => (await import('./branch')).command,
};

/** The commands that index a folder of rollouts. */
const INDEXING = new Set(['rollouts']);

function usage(): string {
  const names = Object.keys(commands).sort();
  return `usage: swe-workbench <command> [options] [--raw]\n\ncommands:\n${names.map((n) => `  ${n}`).join('\n')}\n\nRun 'swe-workbench <command> --help' for a command's options. Text from files is printed with\ncontrol and bidirectional characters escaped; --raw prints it as it is.\nExit codes: 0 success, 1 input or runtime error, 2 usage.`;
}

/** `--raw` (any command, before `--`) prints text from files as it is, escape sequences included. */
function takeRaw(argv: string[]): { raw: boolean; argv: string[] } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  return { raw: head.includes('--raw'), argv: [...head.filter((a) => a !== '--raw'), ...tail] };
}

const raw = takeRaw(process.argv.slice(2));
// An index's heap is bounded as in the extension's index worker, and its allocator kept from
// growing its own heap; both must be there when Node starts, so the relaunch comes before
// anything opens the standard streams.
if (INDEXING.has(raw.argv[0] ?? '')) relaunchWith(INDEX_HEAP_FLAGS, INDEX_MALLOC_ENV);
const stdout = guardOutput(process.stdout, { raw: raw.raw });
const stderr = guardOutput(process.stderr, { raw: raw.raw });

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    stdout.stream.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    stderr.stream.write(`swe-workbench: unknown command '${name}'\n\n${usage()}\n`);
    return 2;
  }
  // The families (and the formats they read) are installed before a command module is loaded, so its usage text lists them.
  (await import('../families')).installScaffoldFamilies();
  const command = await load();
  const controller = new AbortController();
  const onSignal = () => controller.abort('interrupted');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await command.run(rest, { signal: controller.signal, stdout: stdout.stream, stderr: stderr.stream, stdin: process.stdin });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** A bug's stack is for the developer (SWE_WORKBENCH_DEBUG); the user gets one line. */
function report(err: unknown): number {
  const message = errorText(err);
  const overflow = err instanceof RangeError && /call stack|string length|array length/i.test(message);
  stderr.stream.write(`swe-workbench: ${overflow ? `input too large or too deeply nested to process (${message})` : message}\n`);
  if (process.env.SWE_WORKBENCH_DEBUG && err instanceof Error && err.stack) stderr.stream.write(err.stack + '\n');
  return err instanceof CliError ? err.exitCode : 1;
}

main(raw.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = report(err);
  },
);
