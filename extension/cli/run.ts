/**
 * `swe-workbench run`: a live episode in the task's container against an OpenAI-compatible
 * policy server, optionally forked from a recording, written out as a canonical trajectory.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CancelledError, InputError, jsonPath } from '../core/errors';
import { PolicyClient, PolicyError, type PolicyClientOptions, type RetryRecord } from '../core/policy/policyClient';
import { SCAFFOLDS, type Scaffold as ReplyFormat } from '../core/policy/scaffolds';
import { chooseScaffold, describeChoice, knownScaffolds } from '../core/scaffolds/registry';
import type { Scaffold, ScaffoldChoice } from '../core/scaffolds/scaffold';
import { createSweAgent } from '../core/scaffolds/swe-agent';
import { PolicySource, type ActionSource } from '../core/session/actionSources';
import { replaySettings, startContainerSession, type ReplaySettings } from '../core/session/containerSession';
import { DebugSession } from '../core/session/debugSession';
import { forkOf } from '../core/session/fork';
import { writeTrajectoryFile } from '../core/session/trajectoryRecorder';
import { loadTrajectory } from '../core/trajectory/load';
import type { Trajectory, TrajectoryMeta } from '../core/trajectory/model';
import { CliError, parseCommandArgs, type Command } from './command';

const USAGE = `usage: swe-workbench run --task TASK.json --policy-url URL --model NAME --out FILE
                         [--max-steps N] [--fork TRAJ --at N] [--scaffold S] [--api-key KEY]
                         [--temperature T] [--top-p P] [--top-k K] [--min-p P] [--max-tokens N]
                         [--seed N] [--stream] [--logprobs K] [--observation-window N] [--timeout-ms N]

Runs the agent live: each action comes from the policy at URL (vLLM, SGLang or any
OpenAI-compatible server) and runs in a container of the task's image. With --fork, steps
0..N-1 of TRAJ are replayed first and the policy continues from there.
TASK.json: {"image", "repo" (host folder, relative to the task file), "repoPath"?, "baseCommit"?,
"problemStatement" or "spec", "instanceId"?, "bundles"?, "testCommand"?, "systemPrompt"?}
--scaffold: the scaffold the agent runs in, NAME or NAME@VERSION (${knownScaffolds().join(', ')};
default: the forked recording's, else swe-agent), or a reply format of SWE-agent's tools
(${SCAFFOLDS.join(', ')}). A fork continues in its recording's scaffold: its tools, reply format and prompts.
Exit code: 0 when the agent submitted, 1 otherwise.`;

export const TaskFileSchema = z
  .strictObject({
    image: z.string().min(1),
    repo: z.string().min(1),
    repoPath: z.string().startsWith('/').default('/repo'),
    baseCommit: z.string().regex(/^[0-9a-f]{7,40}$/, 'expected a commit sha (7 to 40 hex digits)').optional(),
    instanceId: z.string().optional(),
    problemStatement: z.string().min(1).optional(),
    spec: z.string().min(1).optional(),
    bundles: z.array(z.string().min(1)).optional(),
    testCommand: z.string().min(1).optional(),
    systemPrompt: z.string().min(1).optional(),
  })
  .refine((t) => t.problemStatement !== undefined || t.spec !== undefined, { message: 'needs "problemStatement" or "spec"', path: ['problemStatement'] });
export type TaskFile = z.infer<typeof TaskFileSchema>;

export async function readTaskFile(file: string): Promise<TaskFile> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new InputError(file, undefined, err.code === 'ENOENT' ? 'no such file' : `cannot read: ${err.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `not JSON: ${(err as Error).message}`);
  }
  const parsed = TaskFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(file, jsonPath(issue.path.map((p) => (typeof p === 'number' ? p : String(p)))), issue.message);
  }
  return { ...parsed.data, repo: path.resolve(path.dirname(file), parsed.data.repo) };
}

/**
 * The scaffold of the run: `--scaffold NAME@VERSION`, a SWE-agent reply format, or the forked
 * recording's; the task's `bundles` choose SWE-agent's tools.
 */
function scaffoldOf(spec: string | undefined, task: TaskFile, file: string, parent: Trajectory | undefined): { scaffold: Scaffold; choice: ScaffoldChoice } {
  const format = spec !== undefined && (SCAFFOLDS as readonly string[]).includes(spec) ? (spec as ReplyFormat) : undefined;
  try {
    if (format) {
      const choice: ScaffoldChoice = { name: 'swe-agent', version: '1.1', reason: `--scaffold ${format}: SWE-agent's tools with that reply format` };
      return { scaffold: createSweAgent(choice.version, parent, task.bundles, format), choice };
    }
    return chooseScaffold({ ...(spec ? { spec } : {}), ...(parent ? { recording: parent } : {}), ...(task.bundles ? { bundles: task.bundles } : {}) });
  } catch (err) {
    const message = (err as Error).message;
    if (message.startsWith('--scaffold')) throw new CliError(message);
    throw new InputError(file, '$.bundles', message);
  }
}

function numberOption(name: string, value: string | undefined, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) throw new CliError(`${name} must be ${integer ? 'a whole number' : 'a number'}, got '${value}'`);
  return n;
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function forkEnvironment(parent: Trajectory, file: string): { settings: ReplaySettings; meta: TrajectoryMeta } {
  let settings: ReplaySettings;
  try {
    settings = replaySettings(parent);
  } catch (err) {
    throw new InputError(file, undefined, (err as Error).message);
  }
  const { pty, toolEnvVariables, toolRegistryVariables } = parent.meta;
  return { settings, meta: defined({ pty, toolEnvVariables, toolRegistryVariables }) };
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      task: { type: 'string' },
      'policy-url': { type: 'string' },
      model: { type: 'string' },
      out: { type: 'string' },
      'max-steps': { type: 'string' },
      fork: { type: 'string' },
      at: { type: 'string' },
      scaffold: { type: 'string' },
      'api-key': { type: 'string' },
      temperature: { type: 'string' },
      'top-p': { type: 'string' },
      'top-k': { type: 'string' },
      'min-p': { type: 'string' },
      'max-tokens': { type: 'string' },
      seed: { type: 'string' },
      stream: { type: 'boolean', default: false },
      logprobs: { type: 'string' },
      'observation-window': { type: 'string' },
      'timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}'\n\n${USAGE}`);
    if (!values.task || !values['policy-url'] || !values.out) throw new CliError(`--task, --policy-url and --out are required\n\n${USAGE}`);
    if ((values.fork === undefined) !== (values.at === undefined)) throw new CliError('--fork and --at go together');
    const maxSteps = numberOption('--max-steps', values['max-steps'], true);
    const at = numberOption('--at', values.at, true);
    const logprobs = numberOption('--logprobs', values.logprobs, true);
    const observationWindow = numberOption('--observation-window', values['observation-window'], true);
    const clientOptions: PolicyClientOptions = {
      baseUrl: values['policy-url'],
      ...defined({ model: values.model, apiKey: values['api-key'], timeoutMs: numberOption('--timeout-ms', values['timeout-ms'], true) }),
      sampling: defined({
        temperature: numberOption('--temperature', values.temperature),
        topP: numberOption('--top-p', values['top-p']),
        topK: numberOption('--top-k', values['top-k'], true),
        minP: numberOption('--min-p', values['min-p']),
        maxTokens: numberOption('--max-tokens', values['max-tokens'], true),
        seed: numberOption('--seed', values.seed, true),
      }),
      stream: values.stream,
      ...(logprobs !== undefined ? { logprobs: true, topLogprobs: logprobs } : {}),
    };

    const task = await readTaskFile(values.task);
    const parent = values.fork === undefined ? undefined : (await loadTrajectory(values.fork, { signal: ctx.signal })).trajectory;
    const client = await PolicyClient.connect(clientOptions, ctx.signal).catch((err: unknown) => {
      throw err instanceof PolicyError ? new CliError(err.message, 1) : err;
    });
    const { scaffold, choice } = scaffoldOf(values.scaffold, task, values.task, parent);
    ctx.stderr.write(`swe-workbench run: ${describeChoice(choice)}\n`);
    const tools = scaffold.tools;
    // A fork continues the conversation the recording had, so its prompts win over the task's.
    const prompts = scaffold.prompts(task);
    const instructions = parent?.meta.instructions ?? prompts.instructions;
    const systemPrompt = parent?.meta.systemPrompt ?? task.systemPrompt ?? prompts.system;
    const onRetry = (r: RetryRecord) => ctx.stderr.write(`policy: attempt ${r.attempt} failed (${r.reason}); retrying in ${r.delayMs} ms\n`);
    const live = new PolicySource({ client, tools, scaffold, systemPrompt, instructions, onRetry, ...(observationWindow !== undefined ? { observationWindow } : {}) });
    // A fork runs its tools as the recording did (terminal, window...), so its replayed steps print the same.
    const inherited = parent ? forkEnvironment(parent, values.fork!) : undefined;
    const meta: TrajectoryMeta = {
      model: client.model,
      scaffold: `${scaffold.name}@${scaffold.version}`,
      parseFunction: scaffold.replyFormat,
      toolBundles: [...tools.bundles],
      systemPrompt,
      instructions,
      ...(parent?.meta.scaffoldConfig ? { scaffoldConfig: parent.meta.scaffoldConfig } : {}),
      ...inherited?.meta,
    };
    let sources: ActionSource[] = [live];
    if (parent && at !== undefined) {
      const fork = forkOf(parent, values.fork!, at, tools, live);
      sources = fork.sources;
      meta.parent = fork.parent;
    }
    const aci = await startContainerSession({
      image: task.image,
      repoDir: task.repo,
      repoPath: task.repoPath,
      role: 'run',
      scaffold,
      ...(inherited ? { tty: inherited.settings.tty, config: inherited.settings.config ?? {} } : {}),
      signal: ctx.signal,
      ...(task.baseCommit ? { baseCommit: task.baseCommit } : {}),
    });
    const session = new DebugSession({
      aci,
      sources,
      task: defined({ instanceId: task.instanceId, baseCommit: task.baseCommit, image: task.image, repoPath: task.repoPath, problemStatement: task.problemStatement ?? task.spec }),
      meta,
      signal: ctx.signal,
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(task.testCommand ? { testCommand: task.testCommand } : {}),
    });
    session.on((event) => {
      if (event.type === 'step-done') {
        const s = event.step;
        ctx.stderr.write(`step ${s.index}: ${s.action.tool ?? '(unparsed)'}${s.formatError ? ` format error: ${s.formatError}` : ` exit ${s.exitCode}`}\n`);
      }
      if (event.type === 'error') ctx.stderr.write(`swe-workbench run: step ${event.index}: ${event.message}\n`);
    });
    const stop = await session.continue().catch((err: unknown) => {
      if (err instanceof CancelledError) return undefined;
      throw err;
    });
    const trajectory = await session.finish();
    await writeTrajectoryFile(values.out, trajectory);
    ctx.stdout.write(JSON.stringify({ out: values.out, steps: trajectory.steps.length, exitStatus: trajectory.outcome.exitStatus, ...(trajectory.outcome.error ? { error: trajectory.outcome.error } : {}) }) + '\n');
    if (!stop || stop.reason === 'cancelled') return 130;
    return stop.reason === 'submitted' ? 0 : 1;
  },
};
