import type { Action, Outcome, Step, Task, Trajectory, TrajectoryMeta } from '../../extension/core/trajectory/model';

/** An action; by default `bash` running `ls`, with the raw text the command itself. */
export function anAction(overrides: Partial<Action> = {}): Action {
  const args = overrides.args ?? { command: 'ls' };
  const raw = overrides.raw ?? (typeof args.command === 'string' ? args.command : JSON.stringify(args));
  return { tool: 'bash', ...overrides, raw, args };
}

/** A bash action running `command`. */
export function aBashAction(command: string): Action {
  return anAction({ tool: 'bash', args: { command }, raw: command });
}

/** A step at `index` 0 running `ls`, with an observation; override any field. */
export function aStep(overrides: Partial<Step> = {}): Step {
  return { index: 0, thought: 'Look around first.', action: anAction(), observation: 'README.md\nsetup.py\nsrc\n', ...overrides };
}

/** A step whose model output did not parse: no tool, the parser's complaint in `formatError`. */
export function aFormatErrorStep(formatError: string, overrides: Partial<Step> = {}): Step {
  return aStep({ action: { raw: '', tool: null, args: {} }, formatError, ...overrides });
}

export function aTask(overrides: Partial<Task> = {}): Task {
  return {
    instanceId: 'marshmallow-code__marshmallow-1867',
    repo: 'marshmallow-code/marshmallow',
    baseCommit: 'bfd2593d4b416122e30cdefe0c72d322ef471611',
    image: 'swe-workbench/base:bookworm',
    repoPath: '/testbed',
    problemStatement: 'TimeDelta serialization precision: 345 ms serializes as 344.',
    ...overrides,
  };
}

export function anOutcome(overrides: Partial<Outcome> = {}): Outcome {
  return { exitStatus: 'submitted', submission: 'diff --git a/x.py b/x.py\n', ...overrides };
}

/**
 * A trajectory with the given steps (renumbered in order) or, by default, three bash steps;
 * `format` defaults to canonical.
 */
export function aTrajectory(overrides: Partial<Omit<Trajectory, 'steps'>> & { steps?: Step[] } = {}): Trajectory {
  const steps = (overrides.steps ?? [aStep(), aStep({ action: aBashAction('cat setup.py') }), aStep({ action: aBashAction('python -m pytest -q') })]).map(
    (s, index) => ({ ...s, index }),
  );
  const meta: TrajectoryMeta = overrides.meta ?? {};
  return { format: 'canonical', task: aTask(), outcome: anOutcome(), ...overrides, meta, steps };
}
