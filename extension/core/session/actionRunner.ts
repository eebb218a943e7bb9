/**
 * Runs one parsed action with the session's tools in its sandbox, keeping the tools' state
 * (open file, window, edit history) from step to step as SWE-agent's registry does.
 */
import { DEFAULT_ACI_CONFIG, type AciConfig, type AciState } from '../aci/tool-definition';
import type { ToolSet } from '../aci/tool-registry';
import type { Sandbox } from '../runtime/sandbox';
import type { Action, StepState } from '../trajectory/model';

export interface ExecutedAction {
  observation: string;
  exitCode: number;
  /** Seconds. */
  executionTime: number;
  state: StepState;
  /** Set when the action handed in a patch, which ends the episode. */
  submission?: string;
}

export interface ActionRunner {
  readonly tools: ToolSet;
  readonly sandbox: Sandbox;
  execute(action: Action, signal?: AbortSignal): Promise<ExecutedAction>;
}

export function createActionRunner(sandbox: Sandbox, tools: ToolSet, config: Partial<AciConfig> = {}): ActionRunner {
  const state: AciState = { openFile: null, firstLine: 0, workingDir: sandbox.repoPath, fileHistory: new Map(), submitStage: 0 };
  const aciConfig: AciConfig = { ...DEFAULT_ACI_CONFIG, ...config };
  return {
    tools,
    sandbox,
    async execute(action, signal) {
      const tool = action.tool === null ? undefined : tools.get(action.tool);
      if (!tool) throw new Error(`no tool '${action.tool}' in bundles ${tools.bundles.join(', ')}`);
      const started = performance.now();
      const result = await tool.run({ sandbox, state, config: aciConfig, ...(signal ? { signal } : {}) }, action.args);
      const executed: ExecutedAction = {
        observation: result.observation,
        exitCode: result.exitCode,
        executionTime: (performance.now() - started) / 1000,
        state: { openFile: state.openFile, workingDir: state.workingDir },
      };
      if (result.submission !== undefined) executed.submission = result.submission;
      return executed;
    },
  };
}
