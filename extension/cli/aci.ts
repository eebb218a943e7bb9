/**
 * `swe-workbench aci`: the agent's tools in one sandbox, driven by JSON lines on stdin. Each
 * input line is `{"command": "<text as an agent writes it>"}` or `{"tool": NAME, "args": {...}}`;
 * each gets one output line `{"observation", "exitCode", "state"}`, in order, in one session.
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { AciSession } from '../core/aci/aciSession';
import { CancelledError, errorText } from '../core/errors';
import { defined } from '../core/defined';
import { describeChoice, knownScaffolds } from '../core/scaffolds/registry';
import { startToolSession } from '../core/session/launcher';
import { bundleList, checkBundleOption } from './bundleOption';
import { scaffoldOption } from './scaffoldOption';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const USAGE = `usage: swe-workbench aci --image IMAGE --repo DIR [--workdir /repo] [--bundles a,b] [--base-commit SHA] [--crlf]
                         [--scaffold NAME@VERSION]

Starts one sandbox from IMAGE with DIR copied to --workdir, as a session's is started, with the
tools of a scaffold (default SWE-agent's latest), then reads JSON lines on stdin:
  {"command": "open \\"src/a.py\\" 20"}            a command as an agent writes it
  {"tool": "str_replace_editor", "args": {...}}   a tool call with JSON arguments
and prints one JSON line per input: {"observation", "exitCode", "state": {"open_file", "working_dir"}}.
--bundles are SWE-agent tool bundles (default: windowed,windowed_edit_linting,search,edit_anthropic,submit),
plus lsp for Pyright navigation (document_symbols, workspace_symbols, ...).
--crlf ends observation lines with \\r\\n, as SWE-agent 1.x recordings show them.
--scaffold hosts any family's tools: ${knownScaffolds().join(', ')}.
The sandbox is removed at end of input or on Ctrl-C.`;

const InputLineSchema = z.union([
  z.strictObject({ command: z.string() }),
  z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }),
]);
type InputLine = z.infer<typeof InputLineSchema>;

/** Reads one input line; the error says what was expected. */
export function parseInputLine(text: string): InputLine | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${errorText(err)}` };
  }
  const parsed = InputLineSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  return { error: 'expected {"command": "<text>"} or {"tool": "<name>", "args": {...}}' };
}

/** Runs each input line in the session and writes one JSON line for it; returns how many failed to parse. */
export async function serveJsonLines(session: AciSession, ctx: CommandContext): Promise<number> {
  const lines = createInterface({ input: ctx.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const stop = () => lines.close();
  ctx.signal.addEventListener('abort', stop, { once: true });
  let lineNumber = 0;
  let bad = 0;
  try {
    for await (const text of lines) {
      lineNumber++;
      if (text.trim() === '') continue;
      const input = parseInputLine(text);
      if ('error' in input) {
        bad++;
        ctx.stdout.write(JSON.stringify({ error: `stdin line ${lineNumber}: ${input.error}`, line: lineNumber }) + '\n');
        continue;
      }
      const result = 'command' in input ? await session.runCommand(input.command, ctx.signal) : await session.runTool(input.tool, input.args ?? {}, ctx.signal);
      ctx.stdout.write(JSON.stringify(result) + '\n');
    }
  } finally {
    ctx.signal.removeEventListener('abort', stop);
  }
  return bad;
}

export const command: Command = {
  async run(argv, ctx) {
    const { values } = parseCommandArgs(
      argv,
      {
        image: { type: 'string' },
        repo: { type: 'string' },
        workdir: { type: 'string', default: '/repo' },
        bundles: { type: 'string' },
        scaffold: { type: 'string' },
        'base-commit': { type: 'string' },
        crlf: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
      false,
    );
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    if (!values.image || !values.repo) throw new CliError(`--image and --repo are required\n\n${USAGE}`);
    if (!values.workdir.startsWith('/')) throw new CliError(`--workdir must be an absolute path, got '${values.workdir}'`);
    const bundles = bundleList(values.bundles);
    if (bundles) checkBundleOption(bundles); // an unknown bundle is a usage error (exit 2)
    const { scaffold } = scaffoldOption(values.scaffold);
    let session: AciSession | undefined;
    try {
      const started = await startToolSession({
        image: values.image,
        repoDir: values.repo,
        repoPath: values.workdir,
        role: 'aci-cli',
        config: { crlf: values.crlf },
        ...defined({ scaffold, bundles: bundles && { names: bundles, where: '--bundles' }, baseCommit: values['base-commit'], signal: ctx.signal }),
      });
      session = started.aci;
      ctx.stderr.write(`swe-workbench aci: ${describeChoice(started.choice)}\n`);
      ctx.stderr.write(`swe-workbench aci: sandbox ${session.sandbox.id} (${values.image}) ready, ${values.repo} at ${values.workdir}\n`);
      const bad = await serveJsonLines(session, ctx);
      if (ctx.signal.aborted) return 130;
      return bad > 0 ? 1 : 0;
    } catch (err) {
      if (err instanceof CancelledError || ctx.signal.aborted) return 130;
      throw err;
    } finally {
      await session?.dispose();
    }
  },
};
