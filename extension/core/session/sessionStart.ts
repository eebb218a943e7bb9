/**
 * Starts a planned session: its container (a fork's from a snapshot when it can, `sessionContainer.ts`),
 * the snapshots it takes after each step, and the debug session that runs its sources' actions.
 */
import type { AciSession } from '../aci/aciSession';
import { defined } from '../defined';
import type { PersonSource } from './actionSources';
import { DebugSession } from './debugSession';
import type { ForkStart } from './forkNote';
import { snapshotSetup, startSessionContainer, type StartOptions } from './sessionContainer';
import { forkSnapshots, SessionSnapshots } from './forkSnapshots';
import type { SessionPlan } from './sessionPlan';
import { sessionSources } from './sessionSources';

export interface StartedSession {
  plan: SessionPlan;
  aci: AciSession;
  debug: DebugSession;
  /** The person's source, when the person gives the live actions. */
  person?: PersonSource;
  /** A fork: whether it restored a snapshot or replayed. */
  fork?: ForkStart;
  /** The snapshots the session takes after each step, unless turned off. */
  snapshots?: SessionSnapshots;
}

/**
 * Starts the plan's container and a debug session in it; the session disposes the container at `finish`.
 * The front ends start a session with `launch`, which settles the plan's version first.
 */
export async function startSession(plan: SessionPlan, options: StartOptions): Promise<StartedSession> {
  const { sources, meta, person } = sessionSources(plan, options.live);
  const { container } = plan;
  const setup = snapshotSetup(plan);
  const { aci, found, fork } = await startSessionContainer(plan, options, setup);
  const snapshots =
    options.snapshots === false
      ? undefined
      : new SessionSnapshots(
          setup,
          aci,
          options.snapshots?.budgetBytes,
          undefined,
          options.snapshots?.differential !== false,
          options.snapshots?.differential ? 0 : undefined,
          options.snapshots?.images === undefined ? undefined : options.snapshots.images ? 0 : Infinity,
          container.image,
        );
  // Some first prompts are known only now (Terminus-2 shows the first screen): the new recording keeps it as the policy reads it.
  const { liveInstructions } = plan.scaffold;
  const startedMeta = meta.instructions !== undefined && liveInstructions ? { ...meta, instructions: liveInstructions(meta.instructions) } : meta;
  const debug = new DebugSession({
    aci,
    sources,
    ...(found ? { history: found.steps } : {}),
    ...(snapshots ? { snapshots } : {}),
    ...(snapshots && options.snapshots && options.snapshots.keeper ? { keeper: options.snapshots.keeper } : {}),
    task: plan.task,
    meta: startedMeta,
    breakpoints: plan.breakpoints,
    normalisers: plan.normalisers,
    ...defined({ maxSteps: plan.maxSteps, testCommand: plan.testCommand, signal: options.signal }),
  });
  if (snapshots) forkSnapshots.add(snapshots, () => debug.steps);
  return { plan, aci, debug, ...(person ? { person } : {}), ...(fork ? { fork } : {}), ...(snapshots ? { snapshots } : {}) };
}
