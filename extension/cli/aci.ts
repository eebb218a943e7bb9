/**
 * `swe-workbench aci`: the agent's tools in one sandbox, driven by JSON lines on stdin. Each
 * input line is `{"command": "<text as an agent writes it>"}` or `{"tool": NAME, "args": {...}}`;
 * each gets one output line `{"observation", "exitCode", "state"}`, in order, in one session.
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { AciSession } from '../core/aci/aciSession';
import { pyrightMounts } from '../core/aci/lspServer';
import { LSP_BUNDLE } from '../core/aci/lspTools';
import { CancelledError, errorText } from '../core/errors';
import { SWE_AGENT_VERSIONS, parseSweAgentVersion } from '../core/aci/sweAgentVersion';
import { DockerSandbox } from '../core/runtime/dockerSandbox';
import { bundleList, toolSetOption } from './bundleOption';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const USAGE = `usage: swe-workbench aci --image IMAGE --repo DIR [--workdir /repo] [--bundles a,b] [--base-commit SHA] [--crlf]
                         [--swe-agent-version V]

Starts one sandbox from IMAGE with DIR copied to --workdir, then reads JSON lines on stdin:
  {"command": "open \\"src/a.py\\" 20"}            a command as an agent writes it
  {"tool": "str_replace_editor", "args": {...}}   a tool call with JSON arguments
and prints one JSON line per input: {"observation", "exitCode", "state": {"open_file", "working_dir"}}.
--bundles are SWE-agent tool bundles (default: windowed,windowed_edit_linting,search,edit_anthropic,submit),
plus lsp for Pyright navigation (document_symbols, workspace_symbols, ...).
--crlf ends observation lines with \\r\\n, as SWE-agent 1.x recordings show them.
--swe-agent-version prints as that SWE-agent version's tools do (${SWE_AGENT_VERSIONS.join(', ')}; default the latest).
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
        'base-commit': { type: 'string' },
        crlf: { type: 'boolean', default: false },
        'swe-agent-version': { type: 'string' },
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
    const tools = toolSetOption(bundleList(values.bundles));
    const asked = values['swe-agent-version'];
    const parsed = asked === undefined ? undefined : parseSweAgentVersion(asked);
    // A version we did not measure says which one it falls back to, as replay does.
    if (parsed?.fallback) ctx.stderr.write(`swe-workbench aci: ${parsed.fallback}\n`);
    const version = parsed?.version;
    // The lsp bundle runs the host's Pyright inside the container through read-only mounts.
    const lsp = tools.bundles.includes(LSP_BUNDLE);
    let session: AciSession | undefined;
    try {
      const sandbox = await DockerSandbox.create({
        image: values.image,
        repoDir: values.repo,
        repoPath: values.workdir,
        labels: { 'swe-workbench.role': 'aci-cli' },
        ...(lsp ? { mounts: pyrightMounts() } : {}),
        signal: ctx.signal,
      });
      ctx.stderr.write(`swe-workbench aci: sandbox ${sandbox.id} (${values.image}) ready, ${values.repo} at ${values.workdir}\n`);
      const config = {
        crlf: values.crlf,
        ...(values['base-commit'] ? { baseCommit: values['base-commit'] } : {}),
        ...(version ? { sweAgentVersion: version } : {}),
      };
      session = new AciSession(sandbox, { tools, config });
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
