import type { AciState, ToolContext } from '../../../aci/toolDefinition';

/** What SWE-agent's tools keep between calls, as SWE-agent keeps it in its registry file inside the container. */
export interface SweAgentToolState {
  /** Absolute path of the file the windowed viewer shows, or null before any `open`/`create`. */
  openFile: string | null;
  /** 0-based first line of the viewer's window. */
  firstLine: number;
  /** SWE-agent 0.7's `CURRENT_LINE`: the 1-based line its window is centred on. */
  currentLine: number;
  /** Review messages `review_on_submit_m` has shown so far. */
  submitStage: number;
}

/** SWE-agent's part of the session's tool state, made the first time a tool reads it. */
export function sweAgentState(state: AciState): SweAgentToolState {
  state.families['swe-agent'] ??= { openFile: null, firstLine: 0, currentLine: 0, submitStage: 0 } satisfies SweAgentToolState;
  return state.families['swe-agent'] as SweAgentToolState;
}

/** `sweAgentState` of a tool call's session. */
export function viewer(ctx: Pick<ToolContext, 'state'>): SweAgentToolState {
  return sweAgentState(ctx.state);
}
