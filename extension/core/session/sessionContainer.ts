/**
 * A planned session's container, and a fork's way to its step: the latest snapshot a running or
 * kept session of this process took of the recording's actions (core/session/forkSnapshots) is
 * restored, from its session's container or from the image of its level-0 dump, and only the
 * steps after it replay; when there is none, or it cannot be restored (its session ended
 * meanwhile), the fork replays from the start and says why.
 */
import { defined } from '../defined';
import type { AciSession } from '../aci/aciSession';
import { errorText } from '../errors';
import type { DockerConnectionOptions } from '../runtime/dockerConnection';
import type { SandboxLimits } from '../runtime/sandbox';
import { scaffoldName } from '../scaffolds/registry';
import { startContainerSession } from './containerSession';
import { forkSnapshots, type FoundSnapshot, type SnapshotKeeper } from './forkSnapshots';
import { forkNote, type ForkStart } from './forkNote';
import type { SessionPlan } from './sessionPlan';
import type { LiveSource } from './sessionSources';

/** How a plan's container and session start (`launch` takes them with the live source). */
export interface StartOptions {
  /** What the session is for (`replay`, `run`, `vscode-session`), as a container label. */
  role: string;
  /** Live and fork: who gives the actions after the recording's. */
  live?: LiveSource;
  limits?: Partial<SandboxLimits>;
  docker?: DockerConnectionOptions;
  signal?: AbortSignal;
  /**
   * Snapshots after every step, so a later fork of the same actions restores instead of replaying
   * (core/session/forkSnapshots): on by default, `false` turns them off (and a fork then replays).
   * With a `keeper`, the snapshots and their container outlive the session's `finish` until the
   * keeper lets them go, so a fork started after this session ended restores them too.
   */
  snapshots?:
    | false
    | {
        budgetBytes?: number;
        keeper?: SnapshotKeeper;
        /** true: differentials even for a small repository; false: the whole repository every step; by default by the repository's size. */
        differential?: boolean;
        /**
         * true: an image of every level-0 dump, whatever its size; false: none, and a fork does not start from its source's;
         * by default for a large repository.
         */
        images?: boolean;
      };
}

/** What a session's snapshots may be reused for: the same image, repository, tools and settings. */
export function snapshotSetup(plan: SessionPlan): string {
  const { image, repoDir, repoPath, tty, baseCommit, config } = plan.container;
  return JSON.stringify({
    image,
    repoDir,
    repoPath,
    tty,
    baseCommit: baseCommit ?? null,
    config,
    scaffold: scaffoldName(plan.scaffold),
    bundles: plan.tools.bundles,
  });
}

/** One try at the plan's container; a string says why the snapshot it found could not be used (the fork then replays). */
async function tryStart(
  plan: SessionPlan,
  options: StartOptions,
  setup: string,
  restoreFailed: string | undefined,
): Promise<{ aci: AciSession; found?: FoundSnapshot } | string> {
  const { container } = plan;
  const at = plan.at ?? 0;
  const found =
    restoreFailed === undefined && plan.mode === 'fork' && at > 0 && options.snapshots !== false
      ? forkSnapshots.find(setup, plan.recording!.trajectory.steps, at, plan.tools)
      : undefined;
  // A fork from a snapshot starts with an empty repository folder, into which the snapshot goes from its session's container,
  // or from the image of the snapshot's level-0 dump, made while its session ran, which holds all but the differential.
  const fromImage = options.snapshots && options.snapshots.images === false ? undefined : await found?.image;
  options.signal?.throwIfAborted();
  const starting = startContainerSession({
    image: fromImage ?? container.image,
    ...(found ? {} : { repoDir: container.repoDir }),
    repoPath: container.repoPath,
    tty: container.tty,
    role: options.role,
    scaffold: plan.scaffold,
    tools: plan.tools,
    config: container.config,
    ...defined({ baseCommit: container.baseCommit, limits: options.limits, docker: options.docker, signal: options.signal }),
  });
  // The image goes with its source session's snapshots, which may have gone meanwhile: replay instead.
  const aci = fromImage === undefined ? await starting : await starting.catch((err: unknown) => errorText(err));
  if (typeof aci === 'string') return aci;
  if (found) {
    try {
      await found.restore(aci, options.signal, fromImage !== undefined);
    } catch (err) {
      await aci.dispose().catch(() => undefined);
      // The source session ended meanwhile, or its container went: replay instead.
      return errorText(err);
    }
  }
  return { aci, ...(found ? { found } : {}) };
}

/**
 * Starts the plan's container: a fork's from the latest snapshot of the recording's actions when one
 * can be restored, else by replaying (told in `fork`). The session disposes the container at `finish`.
 */
export async function startSessionContainer(
  plan: SessionPlan,
  options: StartOptions,
  setup: string,
): Promise<{ aci: AciSession; found?: FoundSnapshot; fork?: ForkStart }> {
  let restoreFailed: string | undefined;
  for (;;) {
    const attempt = await tryStart(plan, options, setup, restoreFailed);
    if (typeof attempt !== 'string') {
      const at = plan.at ?? 0;
      const restoredAt = attempt.found?.at ?? 0;
      const fork = plan.mode === 'fork' ? { restoredAt, replayed: at - restoredAt, note: forkNote(at, restoredAt, restoreFailed) } : undefined;
      return { ...attempt, ...(fork ? { fork } : {}) };
    }
    options.signal?.throwIfAborted();
    // A second try looks for no snapshot: it starts the plain container, or throws.
    restoreFailed = attempt;
  }
}
