/** Who gives a planned session's actions, in turn: the recording's, then a policy's or a person's. */
import { defined } from '../defined';
import type { PolicyClient, RetryRecord } from '../policy/policyClient';
import type { TrajectoryMeta } from '../trajectory/model';
import { PersonSource, PolicySource, RecordingSource, type ActionSource } from './actionSources';
import { forkOf } from './fork';
import type { SessionPlan } from './sessionPlan';

/** Who gives the actions after the recording's. */
export type LiveSource =
  | {
      kind: 'policy';
      client: PolicyClient;
      observationWindow?: number;
      onRetry?: (record: RetryRecord) => void;
    }
  | { kind: 'person' };

/** The sources in turn and the final meta of a plan, given its live source. */
export function sessionSources(plan: SessionPlan, live: LiveSource | undefined): { sources: ActionSource[]; meta: TrajectoryMeta; person?: PersonSource } {
  if (plan.mode === 'replay') return { sources: [new RecordingSource(plan.recording!.trajectory.steps, plan.tools, plan.at)], meta: plan.meta };
  if (!live) throw new Error(`a ${plan.mode} needs a policy or a person to give the actions`);
  const { tools, scaffold, systemPrompt, instructions } = plan;
  const person = live.kind === 'person' ? new PersonSource(tools) : undefined;
  const source: ActionSource =
    person ??
    new PolicySource({
      client: (live as Extract<LiveSource, { kind: 'policy' }>).client,
      tools,
      scaffold,
      systemPrompt,
      instructions,
      ...defined({
        onRetry: (live as Extract<LiveSource, { kind: 'policy' }>).onRetry,
        observationWindow: (live as Extract<LiveSource, { kind: 'policy' }>).observationWindow,
      }),
    });
  const meta: TrajectoryMeta = live.kind === 'policy' ? { model: live.client.model, ...plan.meta } : plan.meta;
  const sources = plan.mode === 'fork' ? forkOf(plan.recording!.trajectory, plan.recording!.ref, plan.at ?? 0, tools, source).sources : [source];
  return { sources, meta, ...(person ? { person } : {}) };
}
