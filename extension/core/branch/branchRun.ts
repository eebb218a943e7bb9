/**
 * A branch run: for each chosen state of a recording (the state after step t), K continuations
 * run live from there against a policy, in the recording's scaffold, each graded and saved, so
 * that `branchValues` can say how good each state was.
 *
 * The recording is replayed once, up to the last state asked for, with its fork snapshots kept
 * past its end (`SnapshotKeeper`); every continuation then forks from those snapshots through the
 * launcher, so no continuation replays the prefix once a snapshot exists (each one records how
 * it reached its state, `restoredAt` and `replayed`, and the run counts the steps replayed). A
 * continuation from the task's start (t = 0) is a live run of the task.
 *
 * The folder is the run's memory: each finished continuation is written (its trajectory in the
 * scaffold's own format, its patch) and entered in `index.json` before the next is counted, so
 * an interrupted run resumes with the continuations not yet in the index, and one cancelled
 * leaves nothing behind: its container goes with its session.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { defined } from '../defined';
import { CancelledError, InputError } from '../errors';
import { PolicyClient, type PolicyClientOptions } from '../policy/policyClient';
import { gradeRollout } from '../reward/evaluate';
import type { TaskInstance } from '../reward/instance';
import type { Recipe } from '../reward/recipes';
import type { FinishReason } from '../reward/shapes';
import { ownWritableFormat, scaffoldName } from '../scaffolds/registry';
import type { DockerConnectionOptions } from '../runtime/dockerConnection';
import type { SandboxLimits } from '../runtime/sandbox';
import { SnapshotKeeper } from '../session/forkSnapshots';
import { launch, type LaunchRequest } from '../session/launcher';
import { formatNamed } from '../trajectory/formatRegistry';
import type { Trajectory } from '../trajectory/model';
import { saveBranchIndex, writeContinuationFiles } from './branchFolder';
import { INDEX_FILE, parseIndex, summarizeIndex, type BranchContinuation, type BranchIndex } from '../rollouts/branchIndex';
import type { BranchSummary } from '../reward/branchValues';

export { branchFolderOf } from '../rollouts/branchFolderName';

export interface BranchProgress {
  afterStep: number;
  done: number;
  running: number;
  left: number;
}

export interface BranchRunOptions {
  /** How the recording's sessions start (the task's image, repository, scaffold...); its mode and step are set here. */
  request: LaunchRequest & { recording: { trajectory: Trajectory; ref: string } };
  /** States to branch from: steps done (0: the task's start), each at most the recording's length. */
  steps: readonly number[];
  samples: number;
  concurrency: number;
  /** Each continuation's own step budget. */
  maxSteps?: number;
  policy: PolicyClientOptions;
  /** Grading: the task's instance (its FAIL_TO_PASS / PASS_TO_PASS) for the test output, and the recipe. */
  instance?: TaskInstance;
  recipe?: Recipe;
  out: string;
  limits?: Partial<SandboxLimits>;
  docker?: DockerConnectionOptions;
  signal?: AbortSignal;
  onProgress?(progress: BranchProgress[]): void;
}

export interface BranchRunResult {
  index: BranchIndex;
  summary: BranchSummary;
  /** Continuations run by this call (the rest were in the folder already). */
  ran: number;
}

/** Each continuation's seed, from the run's, its branch point and its sample: K continuations of one state must not share one (vLLM's per-request seed would give them the same replies). */
function continuationSeed(seed: number | undefined, afterStep: number, sample: number): number | null {
  if (seed === undefined) return null;
  return createHash('sha256').update(`${seed}:${afterStep}:${sample}`).digest().readUInt32BE(0) & 0x7fffffff;
}

/** Reads the folder's index, checking it is this recording's under the same settings; a fresh one when there is none. */
async function openIndex(file: string, fresh: BranchIndex): Promise<BranchIndex> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fresh;
    throw err;
  }
  const index = parseIndex(file, text);
  if (index.recording.steps !== fresh.recording.steps || index.recording.id !== fresh.recording.id)
    throw new InputError(
      file,
      'recording',
      `holds the branches of another recording (${index.recording.file}, ${index.recording.steps} steps): use another --out`,
    );
  if (JSON.stringify(index.settings) !== JSON.stringify(fresh.settings))
    throw new InputError(
      file,
      'settings',
      `was run with other settings (${JSON.stringify(index.settings)}): use another --out, or the same settings to resume`,
    );
  return index;
}

/** A branch run's folder as the stepper and the branch tree read it: its index and V(t) of every branched state. */
export interface BranchRunRead {
  folder: string;
  index: BranchIndex;
  summary: BranchSummary;
}

/** Reads the branch run in `folder` (its `index.json`); undefined when it holds none. */
export async function readBranchRun(folder: string): Promise<BranchRunRead | undefined> {
  const file = path.join(folder, INDEX_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
  const index = parseIndex(file, text);
  return { folder, index, summary: summarizeIndex(index) };
}

/** A session's exit status as a recipe's finish reason. */
const FINISH_REASONS: Partial<Record<string, FinishReason>> = { submitted: 'submitted', exit_step_limit: 'max_steps' };

/** Why a continuation's reward is masked, from how it ended: the container, the policy server or the context limit; undefined when it says something of the model. */
function maskOf(trajectory: Trajectory): string | undefined {
  const error = trajectory.outcome.error;
  if (error === undefined) return undefined;
  if (/maximum context length|context window|context length/i.test(error)) return `context window exceeded: ${error}`;
  return `container or policy error: ${error}`;
}

/** The reward the recipe (default: the task's tests, graded against the instance's lists when given) gives a continuation. */
function rewardOf(trajectory: Trajectory, file: string, options: BranchRunOptions): { reward: number | null; mask: string | null } {
  const masked = maskOf(trajectory);
  if (masked !== undefined) return { reward: null, mask: masked };
  const testOutput = trajectory.outcome.testOutput;
  // How the episode ended, as a recipe reads it (one that masks or penalises the step limit does so here too).
  const finishReason = FINISH_REASONS[trajectory.outcome.exitStatus ?? ''];
  const run = finishReason ? { finishReason } : {};
  const grading =
    options.instance && testOutput !== undefined
      ? gradeRollout({
          output: { text: testOutput, file: undefined, where: `${file}: the task's tests` },
          instance: options.instance,
          trajectory: { trajectory, file },
          recipe: options.recipe,
          run,
        })
      : gradeRollout({ trajectory: { trajectory, file }, recipe: options.recipe, run });
  const { value, mask } = grading.reward;
  if (mask) return { reward: null, mask: mask.reason };
  if (value === null) return { reward: null, mask: 'no reward: nothing graded the continuation (the task has no test command)' };
  return { reward: value, mask: null };
}

/**
 * Runs the continuations the folder does not hold yet and returns the index and the values. On
 * cancellation (the signal) the continuations running stop, their containers go, nothing of them
 * is written, and a `CancelledError` comes out after the snapshots' container is removed too.
 */
export async function runBranches(options: BranchRunOptions): Promise<BranchRunResult> {
  const { request, samples, out, signal } = options;
  const recording = request.recording;
  const recorded = recording.trajectory.steps.length;
  for (const at of options.steps)
    if (!Number.isInteger(at) || at < 0 || at > recorded)
      throw new InputError(
        recording.ref,
        undefined,
        `cannot branch after step ${at}: the recording has ${recorded} steps (0 to ${recorded}, 0 the task's start)`,
      );
  await mkdir(out, { recursive: true });
  const indexFile = path.join(out, INDEX_FILE);
  const probe = await PolicyClient.connect(options.policy, signal);
  const fresh: BranchIndex = {
    recording: { file: recording.ref, id: recording.trajectory.meta.id ?? null, steps: recorded },
    settings: {
      model: probe.model,
      scaffold: request.scaffold ? scaffoldName(request.scaffold) : 'recording',
      maxSteps: options.maxSteps ?? null,
      sampling: JSON.parse(JSON.stringify(probe.sampling)),
    },
    replayedSteps: { recording: 0, forks: 0 },
    points: [],
  };
  const index = await openIndex(indexFile, fresh);
  const pointOf = (afterStep: number) => {
    let p = index.points.find((q) => q.afterStep === afterStep);
    if (!p) index.points.push((p = { afterStep, continuations: [] }));
    return p;
  };
  const steps = [...new Set(options.steps)].sort((a, b) => a - b);
  const pending = steps.flatMap((afterStep) => {
    const have = new Set(pointOf(afterStep).continuations.map((c) => c.sample));
    return Array.from({ length: samples }, (_, sample) => sample)
      .filter((sample) => !have.has(sample))
      .map((sample) => ({ afterStep, sample }));
  });
  const running = new Map<number, number>();
  const progress = () =>
    options.onProgress?.(
      steps.map((afterStep) => {
        const done = Math.min(samples, pointOf(afterStep).continuations.filter((c) => c.sample < samples).length);
        const now = running.get(afterStep) ?? 0;
        return { afterStep, done, running: now, left: samples - done - now };
      }),
    );
  progress();
  const keeper = new SnapshotKeeper(1);
  let ran = 0;
  try {
    const deepest = Math.max(0, ...pending.map((p) => p.afterStep));
    if (deepest > 0) index.replayedSteps.recording += await replayOnce(options, deepest, keeper);
    let saving = Promise.resolve();
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        signal?.throwIfAborted();
        const job = pending[next++]!;
        running.set(job.afterStep, (running.get(job.afterStep) ?? 0) + 1);
        progress();
        try {
          const continuation = await runContinuation(options, job.afterStep, job.sample);
          pointOf(job.afterStep).continuations.push(continuation);
          index.replayedSteps.forks += continuation.replayed;
          ran++;
          // One write at a time, each of the whole index.
          saving = saving.then(() => saveBranchIndex(out, index));
          await saving;
        } finally {
          running.set(job.afterStep, running.get(job.afterStep)! - 1);
          progress();
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, worker));
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw signal?.aborted ? new CancelledError() : failure.reason;
    await saveBranchIndex(out, index);
  } finally {
    await keeper.dispose();
  }
  const chosen = { ...index, points: index.points.filter((p) => steps.includes(p.afterStep)) };
  return { index, summary: summarizeIndex(chosen), ran };
}

/** Replays the recording's first `upTo` steps once, its snapshots kept by `keeper` for the forks; returns the steps replayed. */
async function replayOnce(options: BranchRunOptions, upTo: number, keeper: SnapshotKeeper): Promise<number> {
  const { testCommand: _tests, maxSteps: _max, ...request } = options.request;
  const { debug } = await launch(
    { ...request, mode: 'replay', at: upTo },
    { role: 'branch-replay', snapshots: { keeper, images: false }, ...defined({ limits: options.limits, docker: options.docker, signal: options.signal }) },
  );
  try {
    await debug.continue();
  } finally {
    await debug.finish();
  }
  options.signal?.throwIfAborted();
  return debug.steps.length;
}

/** One continuation from the state after `afterStep` steps: forked from the kept snapshot, run to its end, graded and saved. */
async function runContinuation(options: BranchRunOptions, afterStep: number, sample: number): Promise<BranchContinuation> {
  const { request, signal } = options;
  const seed = continuationSeed(options.policy.sampling?.seed, afterStep, sample);
  const client = await PolicyClient.connect({ ...options.policy, sampling: { ...options.policy.sampling, ...(seed !== null ? { seed } : {}) } }, signal);
  const clock = performance.now();
  const started = await launch(
    { ...request, mode: 'fork', at: afterStep, ...(options.maxSteps !== undefined ? { maxSteps: afterStep + options.maxSteps } : {}) },
    {
      role: 'branch',
      live: { kind: 'policy', client },
      // Snapshots on, so the fork finds the kept ones; no images of its own.
      snapshots: { images: false },
      ...defined({ limits: options.limits, docker: options.docker, signal }),
    },
  );
  const { debug, fork, plan } = started;
  const startMs = performance.now() - clock;
  // The policy's time: from each request for an action to the action's start.
  let policyMs = 0;
  let asked: number | undefined;
  debug.on((event) => {
    if (event.type === 'asking' && event.source === 'policy') asked = performance.now();
    if (event.type === 'step-started' && asked !== undefined) {
      policyMs += performance.now() - asked;
      asked = undefined;
    }
  });
  const running = performance.now();
  let trajectory: Trajectory;
  let finishing = running;
  try {
    await debug.continue();
  } finally {
    finishing = performance.now();
    trajectory = await debug.finish();
  }
  // A cancelled continuation says nothing of the state: it is not kept, and runs again on resume.
  if (signal?.aborted) throw new CancelledError();
  const format =
    ownWritableFormat(plan.scaffold.name) ?? (formatNamed(request.recording.trajectory.format)?.exporter ? request.recording.trajectory.format : 'canonical');
  const { file, patch } = await writeContinuationFiles(options.out, afterStep, sample, trajectory, format);
  const { reward, mask } = rewardOf(trajectory, file, options);
  const round = (ms: number) => Math.round(ms);
  const timings = { startMs: round(startMs), policyMs: round(policyMs), runMs: round(finishing - running), gradeMs: round(performance.now() - finishing) };
  return {
    sample,
    file,
    patch,
    outcome: trajectory.outcome.exitStatus ?? 'unknown',
    steps: Math.max(0, trajectory.steps.length - afterStep),
    reward,
    mask,
    seed,
    restoredAt: fork?.restoredAt ?? 0,
    replayed: fork?.replayed ?? 0,
    timings,
  };
}

/** A steps choice that is not one: said in the chooser's words ('2-x' is not a step...). */
export class BranchStepsError extends Error {
  override readonly name = 'BranchStepsError';
}

/**
 * The states to branch from, chosen as `swe-workbench branch --steps` and Branch From Steps take
 * them (after steps t, counted from 1; 0: the task's start), as a sorted list: `all` is every state
 * a continuation can start from (the start and after every step, but the last when it submitted),
 * else a list (1,3,5), a range (2-4), or both.
 */
export function branchSteps(spec: string, recording: Trajectory, file: string): number[] {
  const n = recording.steps.length;
  if (spec === 'all') return Array.from({ length: recording.outcome.exitStatus === 'submitted' ? n : n + 1 }, (_, t) => t);
  const chosen = new Set<number>();
  for (const part of spec.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new BranchStepsError(`'${part}' is not a step, a range (2-4) or 'all'`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new BranchStepsError(`the range '${part}' runs backwards`);
    if (to > n) throw new BranchStepsError(`step ${to} is past the end of ${file}, which has ${n} steps (0 is the task's start)`);
    for (let t = from; t <= to; t++) chosen.add(t);
  }
  return [...chosen].sort((a, b) => a - b);
}
