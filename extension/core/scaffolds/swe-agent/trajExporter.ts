import { defined } from '../../defined';
import type { Action, Step, StepState, Trajectory } from '../../trajectory/model';

const AGENT = 'main';

function toolCallsOf(step: Step): Array<{ action: Action; observation: string; id: string }> {
  const calls = step.calls ?? [{ action: step.action, observation: step.observation }];
  return calls.map((c, k) => ({ ...c, id: c.action.toolCallId ?? `call_${step.index}_${k}` }));
}

function stateOf(state: StepState | undefined): Record<string, string> | undefined {
  if (!state) return undefined;
  const out: Record<string, string> = {};
  // SWE-agent writes "n/a" when no file is open.
  if (state.openFile !== undefined) out.open_file = state.openFile ?? 'n/a';
  if (state.workingDir !== undefined) out.working_dir = state.workingDir;
  if (state.diff !== undefined) out.diff = state.diff;
  return out;
}

function historyOf(t: Trajectory): unknown[] {
  const history: unknown[] = [];
  if (t.meta.systemPrompt !== undefined) history.push({ role: 'system', content: t.meta.systemPrompt, agent: AGENT, message_type: 'system_prompt' });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined) history.push({ role: 'user', content: instructions, agent: AGENT, message_type: 'observation' });
  for (const step of t.steps) {
    const calls = step.action.tool === null ? [] : toolCallsOf(step);
    history.push({
      role: 'assistant',
      content: step.thought,
      thought: step.thought,
      action: step.action.raw,
      agent: AGENT,
      message_type: 'action',
      ...(calls.length > 0 && {
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.action.tool, arguments: JSON.stringify(c.action.args) } })),
      }),
    });
    if (calls.length === 0) history.push({ role: 'user', content: step.observation, agent: AGENT, message_type: 'observation' });
    for (const c of calls)
      history.push({
        role: 'tool',
        content: calls.length > 1 ? c.observation : step.observation,
        agent: AGENT,
        message_type: 'observation',
        tool_call_ids: [c.id],
      });
  }
  return history;
}

function samplingOf(t: Trajectory): Record<string, number> {
  const sampling = t.steps[0]?.sampling ?? {};
  return Object.fromEntries(['temperature', 'top_p'].flatMap((k) => (typeof sampling[k] === 'number' ? [[k, sampling[k]]] : [])));
}

/** The run's setup as SWE-agent's `replay_config` (a JSON string): tools, scaffold, model, image, repository, issue. */
function replayConfigOf(t: Trajectory): string {
  return JSON.stringify({
    env: {
      deployment: { image: t.task.image ?? null, type: 'docker' },
      repo: { repo_name: t.task.repoPath?.replace(/^\/+/, '') ?? 'testbed', base_commit: t.task.baseCommit ?? 'HEAD', type: 'preexisting' },
    },
    agent: {
      model: { name: t.meta.model ?? 'unknown', ...samplingOf(t) },
      tools: {
        bundles: (t.meta.toolBundles ?? []).map((path) => ({ path, hidden_tools: [] })),
        env_variables: t.meta.toolEnvVariables ?? {},
        registry_variables: t.meta.toolRegistryVariables ?? {},
        // A fork or replay of the exported file parses the policy's replies with this scaffold.
        parse_function: { type: t.meta.parseFunction ?? 'function_calling' },
      },
    },
    problem_statement: { text: t.task.problemStatement ?? '', id: t.task.instanceId ?? 'unknown', type: 'text' },
  });
}

/**
 * A SWE-agent `.traj` that SWE-agent's inspector opens. Actions are written as function calls
 * so that tools and arguments read back exactly, whatever the source's action syntax was.
 */
export function toSweAgentTraj(t: Trajectory): string {
  const stats = t.outcome.modelStats;
  const traj = {
    environment: t.task.instanceId ?? AGENT,
    trajectory: t.steps.map((step) => ({
      action: step.action.raw,
      observation: step.observation,
      response: step.thought,
      thought: step.thought,
      // What was measured, else nothing: an invented 0 reads as "took no time".
      ...(step.executionTime !== undefined ? { execution_time: step.executionTime } : {}),
      state: stateOf(step.state) ?? {},
      query: [],
      // SWE-agent leaves extra_info to the agent; the step's flags (a replay's divergence) ride there.
      extra_info: step.flags && step.flags.length > 0 ? { flags: step.flags } : {},
    })),
    history: historyOf(t),
    info: {
      // Which SWE-agent printed the observations, so a replay of the exported file uses its tools.
      ...(t.format === 'swe-agent' && t.meta.formatVersion ? { swe_agent_version: t.meta.formatVersion } : {}),
      // Which scaffold made it (info is free-form): a fork of another family saved as .traj reopens as that family.
      ...(t.meta.scaffold ? { scaffold: t.meta.scaffold } : {}),
      exit_status: t.outcome.exitStatus ?? null,
      submission: t.outcome.submission ?? null,
      // Only what the recording counted: a cost or token count it does not know is left out, not 0.
      model_stats: defined({
        instance_cost: stats?.instanceCost,
        tokens_sent: stats?.tokensSent,
        tokens_received: stats?.tokensReceived,
        api_calls: stats?.apiCalls,
      }),
    },
    replay_config: replayConfigOf(t),
  };
  return JSON.stringify(traj, null, 2) + '\n';
}
