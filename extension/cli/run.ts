/**
 * `swe-workbench run`: a live episode in the task's container against an OpenAI-compatible
 * policy server, optionally forked from a recording, written out as a canonical trajectory.
 */
import { defined } from '../core/defined';
import path from 'node:path';
import { CancelledError, errorText } from '../core/errors';
import { readTaskFile, runRequest } from '../core/branch/taskFile';
import { PolicyClient, PolicyError, type PolicyClientOptions, type RetryRecord } from '../core/policy/policyClient';
import { defaultScaffold, describeChoice, knownReplyFormats, knownScaffolds } from '../core/scaffolds/registry';
import type { ScaffoldChoice } from '../core/scaffolds/scaffold';
import { replyFormatOption, scaffoldOption } from './scaffoldOption';
import { launch, type LaunchRequest } from '../core/session/launcher';
import { writeTrajectoryFile } from '../core/session/trajectoryRecorder';
import { loadTrajectory } from '../core/trajectory/load';
import type { Trajectory } from '../core/trajectory/model';
import type { DebugSession } from '../core/session/debugSession';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const usage = () => `usage: swe-workbench run --task TASK.json --policy-url URL --model NAME --out FILE
                         [--max-steps N] [--fork TRAJ --at N] [--scaffold S] [--reply-format F]
                         [--api-key KEY] [--temperature T] [--top-p P] [--top-k K] [--min-p P]
                         [--max-tokens N] [--seed N] [--stream] [--logprobs K] [--token-ids]
                         [--observation-window N] [--timeout-ms N]

Runs the agent live: each action comes from the policy at URL (vLLM, SGLang or any
OpenAI-compatible server) and runs in a container of the task's image. With --fork, the first
N steps of TRAJ (steps 1..N) are replayed first and the policy continues from there.
TASK.json: {"image", "repo" (host folder, relative to the task file), "repoPath"? (default: the
forked recording's, else the scaffold's own working folder, /repo unless it has another),
"baseCommit"?,
"problemStatement" or "spec", "instanceId"?, "bundles"?, "testCommand"?, "systemPrompt"?}
--scaffold: the scaffold the agent runs in, NAME or NAME@VERSION (${knownScaffolds().join(', ')};
default: the forked recording's, else ${defaultScaffold()}). A fork continues in its recording's scaffold: its tools, reply format and prompts.
--reply-format: how the model writes its actions, one of a family's reply formats (${knownReplyFormats().join(', ')};
default: the forked recording's, else the scaffold's); --scaffold FORMAT is the same.
--token-ids: ask the server for the prompt and completion token ids (vLLM's return_token_ids) and
record them on each step, so \`swe-workbench tokens\` can re-score the run.
Exit code: 0 when the agent submitted, 1 otherwise.`;

export function numberOption(name: string, value: string | undefined, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new CliError(`${name} must be ${integer ? 'a whole number' : 'a number'}, got '${value}'`);
  return n;
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}'\n\n${usage()}`);
    if (!values.task || !values['policy-url'] || !values.out) throw new CliError(`--task, --policy-url and --out are required\n\n${usage()}`);
    if ((values.fork === undefined) !== (values.at === undefined)) throw new CliError('--fork and --at go together');
    const maxSteps = numberOption('--max-steps', values['max-steps'], true);
    const at = numberOption('--at', values.at, true);
    const observationWindow = numberOption('--observation-window', values['observation-window'], true);
    const clientOptions = policyClientOptions(values, values['policy-url']);

    // `--scaffold FORMAT` is the old spelling of `--reply-format FORMAT`, which wins when both are given.
    const asked = scaffoldOption(values.scaffold, { replyFormats: true });
    const task = await readTaskFile(values.task);
    const parent = values.fork === undefined ? undefined : (await loadTrajectory(values.fork, { signal: ctx.signal })).trajectory;
    const request = runRequest(task, values.task, {
      ...(parent ? { fork: { trajectory: parent, ref: values.fork!, at: at! } } : {}),
      ...defined({ scaffold: asked.scaffold, replyFormat: replyFormatOption(values['reply-format']) ?? asked.replyFormat, maxSteps }),
    });
    const onRetry = (r: RetryRecord) => ctx.stderr.write(`policy: attempt ${r.attempt} failed (${r.reason}); retrying in ${r.delayMs} ms\n`);
    const { debug: session, fork } = await launch(request, {
      role: 'run',
      // No later fork in this process could use snapshots.
      snapshots: false,
      // The policy is connected once the request is planned: a bad task or fork fails before any network.
      live: async () => {
        const client = await PolicyClient.connect(clientOptions, ctx.signal).catch((err: unknown) => {
          throw err instanceof PolicyError ? new CliError(err.message, 1) : err;
        });
        return { kind: 'policy', client, onRetry, ...defined({ observationWindow }) };
      },
      onSettled: (plan) => ctx.stderr.write(`swe-workbench run: ${describeChoice(plan.scaffoldChoice)}\n`),
      signal: ctx.signal,
    });
    if (fork) ctx.stderr.write(`swe-workbench run: ${fork.note}\n`);
    reportSteps(session, ctx);
    return finishRun(session, values.out, ctx);
  },
};

/** The model, key, timeout and sampling options `policyClientOptions` reads, as `run` and `branch` both take them. */
export const POLICY_OPTIONS = {
  model: { type: 'string' },
  'api-key': { type: 'string' },
  temperature: { type: 'string' },
  'top-p': { type: 'string' },
  'top-k': { type: 'string' },
  'min-p': { type: 'string' },
  'max-tokens': { type: 'string' },
  seed: { type: 'string' },
  'timeout-ms': { type: 'string' },
} as const;

const OPTIONS = {
  ...POLICY_OPTIONS,
  task: { type: 'string' },
  'policy-url': { type: 'string' },
  out: { type: 'string' },
  'max-steps': { type: 'string' },
  fork: { type: 'string' },
  at: { type: 'string' },
  scaffold: { type: 'string' },
  'reply-format': { type: 'string' },
  stream: { type: 'boolean', default: false },
  logprobs: { type: 'string' },
  'token-ids': { type: 'boolean', default: false },
  'observation-window': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type RunValues = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

/** The options of the policy server, the model and the sampling, as `run` and `branch` both take them. */
type PolicyValues = Pick<
  RunValues,
  'model' | 'api-key' | 'timeout-ms' | 'temperature' | 'top-p' | 'top-k' | 'min-p' | 'max-tokens' | 'seed' | 'stream' | 'logprobs' | 'token-ids'
>;

/** The policy server, the model and the sampling the options ask for. */
export function policyClientOptions(values: PolicyValues, baseUrl: string): PolicyClientOptions {
  const logprobs = numberOption('--logprobs', values.logprobs, true);
  return {
    baseUrl,
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
    ...(values['token-ids'] ? { returnTokenIds: true } : {}),
  };
}

/** Each step and each error on stderr as the session runs. */
function reportSteps(session: DebugSession, ctx: CommandContext): void {
  session.on((event) => {
    if (event.type === 'step-done') {
      const s = event.step;
      ctx.stderr.write(`step ${s.index + 1}: ${s.action.tool ?? '(unparsed)'}${s.formatError ? ` format error: ${s.formatError}` : ` exit ${s.exitCode}`}\n`);
    }
    if (event.type === 'error') ctx.stderr.write(`swe-workbench run: step ${event.index + 1}: ${event.message}\n`);
  });
}

/** Runs the session to its end, writes the trajectory and prints where; the exit code says whether it submitted. */
async function finishRun(session: DebugSession, out: string, ctx: CommandContext): Promise<number> {
  const stop = await session.continue().catch((err: unknown) => {
    if (err instanceof CancelledError) return undefined;
    throw err;
  });
  const trajectory = await session.finish();
  await writeTrajectoryFile(out, trajectory);
  ctx.stdout.write(
    JSON.stringify({
      out,
      steps: trajectory.steps.length,
      exitStatus: trajectory.outcome.exitStatus,
      ...(trajectory.outcome.error ? { error: trajectory.outcome.error } : {}),
    }) + '\n',
  );
  if (!stop || stop.reason === 'cancelled') return 130;
  return stop.reason === 'submitted' ? 0 : 1;
}
