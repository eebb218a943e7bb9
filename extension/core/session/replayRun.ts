/**
 * Replaying recordings and saying how far each matched: one recording (`swe-workbench replay`'s
 * verdict) and every rollout of a run (`rollouts replay`, the divergence report of a whole run,
 * here or as a Slurm array's shards). Each recording replays in a fresh container of the image
 * with the repository at the recording's base commit, as a single replay does.
 */
import { CancelledError, errorText } from '../errors';
import { describeChoice } from '../scaffolds/registry';
import type { Normaliser, ScaffoldChoice } from '../scaffolds/scaffold';
import type { Trajectory } from '../trajectory/model';
import { launch, type LaunchRequest } from './launcher';

/** How one recording's replay went; steps count from 0 here (`firstDivergence`), from 1 where people read them. */
interface ReplayVerdict {
  /** The scaffold the replay ran, with its version and why, as `replay` prints it. */
  scaffold: string;
  /** Steps replayed and compared. */
  steps: number;
  /** Steps the recording holds. */
  recorded: number;
  matched: number;
  /** The 0-based index of the first step whose observation differs; null when none did. */
  firstDivergence: number | null;
  /** Why the replay stopped (`end`, `error`, ...). */
  stop: string;
  error?: string;
}

interface ReplayOptions {
  image: string;
  repoDir: string;
  /** Where the repository goes in the container; default the recording's, else the launcher's. */
  workdir?: string;
  normalisers?: Normaliser[];
  signal?: AbortSignal;
}

/** The session a replay asks for (`replay`, `rollouts replay`): the recording, and the container and tools the options name. */
export function replayRequest(
  recording: { trajectory: Trajectory; ref: string },
  options: { image: string; repoDir: string; workdir?: string; until?: number; bundles?: string[]; scaffold?: ScaffoldChoice; normalisers?: Normaliser[] },
): LaunchRequest {
  return {
    mode: 'replay',
    recording,
    image: options.image,
    repoDir: options.repoDir,
    ...(options.normalisers ? { normalisers: options.normalisers } : {}),
    ...(options.workdir !== undefined ? { repoPath: options.workdir } : {}),
    ...(options.until !== undefined ? { at: options.until } : {}),
    ...(options.bundles ? { bundles: { names: options.bundles, where: '--bundles' } } : {}),
    ...(options.scaffold !== undefined ? { scaffold: options.scaffold } : {}),
  };
}

/** Replays one recording to its end (its container removed after) and says how far it matched. */
async function replayRecording(recording: { trajectory: Trajectory; ref: string }, options: ReplayOptions): Promise<ReplayVerdict> {
  const { debug: session, plan } = await launch(
    replayRequest(recording, options),
    // No fork can follow: no snapshots.
    { role: 'replay', snapshots: false, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const stop = await session.continue().finally(() => session.finish());
  if (stop.reason === 'cancelled') throw new CancelledError('replay cancelled');
  return {
    scaffold: describeChoice(plan.scaffoldChoice),
    steps: session.comparisons.length,
    recorded: recording.trajectory.steps.length,
    matched: session.comparisons.filter((c) => c.matched).length,
    firstDivergence: session.firstDivergence?.index ?? null,
    stop: stop.reason,
    ...(stop.error ? { error: stop.error } : {}),
  };
}

/** A rollout of a run as it replayed, or why it could not be (not read, no container). */
export interface RolloutReplay {
  name: string;
  replay: ReplayVerdict | { error: string };
}

/** A run's replays counted: matched all the way (no step differs, no error), diverged (or stopped by an error), not replayed. */
export function replaySummary(replays: readonly RolloutReplay[]): { rollouts: number; matched: number; diverged: number; notReplayed: number } {
  const verdicts = replays.flatMap((r) => ('steps' in r.replay ? [r.replay] : []));
  const matched = verdicts.filter((v) => v.firstDivergence === null && v.stop !== 'error').length;
  return { rollouts: replays.length, matched, diverged: verdicts.length - matched, notReplayed: replays.length - verdicts.length };
}

/**
 * Replays every named rollout, `parallel` containers at a time, each loaded only when its turn
 * comes; the verdicts keep the order of `names` (a Slurm task returns these for its shard).
 */
export async function replayRollouts(
  names: readonly string[],
  load: (name: string) => Promise<Trajectory>,
  options: ReplayOptions & { parallel?: number; onReplay?: (r: RolloutReplay) => void },
): Promise<RolloutReplay[]> {
  const out: RolloutReplay[] = new Array<RolloutReplay>(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const at = next++;
      const name = names[at]!;
      let replay: RolloutReplay['replay'];
      try {
        replay = await replayRecording({ trajectory: await load(name), ref: name }, options);
      } catch (err) {
        if (err instanceof CancelledError || options.signal?.aborted) throw err;
        replay = { error: errorText(err) };
      }
      out[at] = { name, replay };
      options.onReplay?.(out[at]);
    }
  };
  const parallel = Math.max(1, Math.min(options.parallel ?? 1, names.length || 1));
  const settled = await Promise.allSettled(Array.from({ length: parallel }, worker));
  // Every worker has ended (its container removed) before a cancellation surfaces.
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}
