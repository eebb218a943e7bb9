/**
 * What a mini-swe-agent run was set to do, read from its recording's `info.config` (else the
 * version's defaults), and how its output says the agent submitted.
 */
import { z } from 'zod';
import type { Trajectory } from '../../trajectory/model';
import { MINI_DEFAULTS, type MiniVersion } from './defaults';

const SUBMIT_MARKERS = ['COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'MINI_SWE_AGENT_FINAL_OUTPUT'];

/** The settings a run used: the recording's `info.config` where it has them, else the version's defaults. */
export interface MiniSettings {
  observationTemplate: string;
  formatErrorTemplate: string;
  timeoutTemplate: string;
  actionRegex: RegExp;
  cwd?: string;
  env: Record<string, string>;
  timeoutS: number;
  /**
   * What each command is handed to, as `docker exec CONTAINER ...interpreter COMMAND`: the
   * recording's `environment.interpreter` (2.x), else `bash -lc`, which 1.x always ran and 2.x
   * keeps as the default. A login shell reads /etc/profile and ~/.profile; `bash -c` reads
   * only what BASH_ENV names (2.x's swebench.yaml sets it to /root/.bashrc).
   */
  interpreter: string[];
  /** `model.model_kwargs.parallel_tool_calls` (2.x's swebench.yaml: true), sent with a live request when the recording had it. */
  parallelToolCalls?: boolean;
  /** The config's own values (step_limit, cwd...), which mini-swe-agent hands every template besides `output`. */
  templateVars: Record<string, unknown>;
}

const Config = z.looseObject({
  agent: z.looseObject({}).nullish(),
  model: z.looseObject({}).nullish(),
  environment: z.looseObject({}).nullish(),
});

function text(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string');
}

/** Python's `re` pattern with DOTALL as a JS RegExp (the patterns mini ships use the common subset). */
function pythonRegex(pattern: string): RegExp {
  return new RegExp(pattern, 'gs');
}

const DEFAULT_INTERPRETER = ['bash', '-lc'];

function interpreterOf(version: MiniVersion, value: unknown): string[] {
  if (value === undefined || value === null) return DEFAULT_INTERPRETER;
  if (version === '1.x') return DEFAULT_INTERPRETER; // 1.x has no such setting: it always ran `bash -lc`.
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string'))
    throw new Error(`info.config.environment.interpreter: expected a non-empty list of strings (e.g. ["bash", "-c"]), got ${JSON.stringify(value)}`);
  return value;
}

export function miniSettings(version: MiniVersion, recording?: Trajectory): MiniSettings {
  const defaults = MINI_DEFAULTS[version];
  const parsed = Config.safeParse(recording?.meta.scaffoldConfig?.config ?? {});
  const config = parsed.success ? parsed.data : {};
  const agent = (config.agent ?? {}) as Record<string, unknown>;
  const model = (config.model ?? {}) as Record<string, unknown>;
  const environment = (config.environment ?? {}) as Record<string, unknown>;
  const modelKwargs = model.model_kwargs && typeof model.model_kwargs === 'object' ? (model.model_kwargs as Record<string, unknown>) : undefined;
  const env = environment.env && typeof environment.env === 'object' ? (environment.env as Record<string, unknown>) : undefined;
  return {
    observationTemplate: text(agent.action_observation_template, agent.observation_template, model.observation_template) ?? defaults.observationTemplate,
    formatErrorTemplate: text(agent.format_error_template, model.format_error_template) ?? defaults.formatErrorTemplate,
    timeoutTemplate: text(agent.timeout_template, environment.timeout_template) ?? defaults.timeoutTemplate,
    actionRegex: pythonRegex(text(agent.action_regex, model.action_regex) ?? defaults.actionRegex),
    ...(typeof environment.cwd === 'string' && environment.cwd !== '' ? { cwd: environment.cwd } : {}),
    env: env ? Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) : { ...defaults.env },
    timeoutS: typeof environment.timeout === 'number' ? environment.timeout : defaults.timeoutS,
    interpreter: interpreterOf(version, environment.interpreter),
    ...(typeof modelKwargs?.parallel_tool_calls === 'boolean' ? { parallelToolCalls: modelKwargs.parallel_tool_calls } : {}),
    templateVars: { ...environment, ...model, ...agent },
  };
}

/** The submission, when the output's first line is mini's marker (`has_finished`). */
export function submissionOf(output: string): string | undefined {
  const lines = output.trimStart().split(/(?<=\n)/);
  if (lines.length === 0 || !SUBMIT_MARKERS.includes(lines[0]!.trim())) return undefined;
  return lines.slice(1).join('');
}
