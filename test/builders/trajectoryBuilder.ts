import type { Step, Trajectory } from '../../extension/core/trajectory/model';

/** Builds canonical steps and trajectories so tests read as scenarios. */
export class StepBuilder {
  private step: Step;

  constructor(index: number) {
    this.step = { index, thought: '', action: { raw: '', tool: null, args: {} }, observation: '', source: { pointers: [`/trajectory/${index}`] } };
  }

  thinking(thought: string): this {
    this.step = { ...this.step, thought };
    return this;
  }

  runs(tool: string, raw: string, args: Record<string, unknown> = {}): this {
    this.step = { ...this.step, action: { raw, tool, args } };
    return this;
  }

  sees(observation: string, exitCode?: number): this {
    this.step = { ...this.step, observation, ...(exitCode === undefined ? {} : { exitCode }) };
    return this;
  }

  flagged(...flags: string[]): this {
    this.step = { ...this.step, flags };
    return this;
  }

  failsToParse(formatError: string): this {
    this.step = { ...this.step, formatError, action: { ...this.step.action, tool: null } };
    return this;
  }

  build(): Step {
    return this.step;
  }
}

export function aStep(index: number): StepBuilder {
  return new StepBuilder(index);
}

export function aTrajectory(steps: Step[], overrides: Partial<Omit<Trajectory, 'steps'>> = {}): Trajectory {
  return { format: 'swe-agent', task: { instanceId: 'demo__repo-1' }, outcome: { exitStatus: 'submitted' }, meta: { model: 'test-model' }, ...overrides, steps };
}
