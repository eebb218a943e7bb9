import { z } from 'zod';
import type { Trajectory } from '../../trajectory/model';
import type { AciConfig } from '../../aci/toolDefinition';
import { sweAgentVersionOf } from './tools/sweAgentVersion';

const WholeNumber = z.preprocess(
  (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
  z.number({ error: 'expected a whole number' }).int({ error: 'expected a whole number' }).nonnegative({ error: 'expected a whole number' }),
);
const WindowLines = WholeNumber.refine((n) => n > 0, 'expected a positive number of lines');
// SWE-agent's tools read registry variables as strings and compare them with "true".
const Flag = z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() === 'true' : v), z.boolean({ error: 'expected true or false' }));
const Messages = z.preprocess(
  (v) => (typeof v === 'string' ? jsonOrText(v) : v),
  z.array(z.string(), { error: 'expected a list of strings, or a JSON string holding one' }),
);

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The recording's value of one tool variable, checked; the error names where it sits in `replay_config`. */
function variable<T>(variables: Record<string, unknown> | undefined, where: string, name: string, schema: z.ZodType<T>): T | undefined {
  const value = variables?.[name];
  if (value === undefined || value === null) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(`replay_config.agent.tools.${where}.${name}: ${parsed.error.issues[0]?.message}, got ${JSON.stringify(value)}`);
}

/**
 * The tool settings a recording ran with, so that its replay prints what it printed: line ends
 * of a pseudo-terminal (SWE-agent 1.x), the viewer's WINDOW and OVERLAP, the editor's
 * USE_FILEMAP, the review messages of `review_on_submit_m`, the base commit `submit` diffs
 * against, and the SWE-agent version whose tools printed it (`sweAgentVersionOf`; `sweAgentVersion`,
 * e.g. from `--scaffold swe-agent@VERSION`, overrides it). Settings the recording does not show are
 * left to the defaults.
 */
export function aciConfigForRecording(recording: Trajectory, sweAgentVersion?: string): Partial<AciConfig> {
  const { meta, task } = recording;
  // Only SWE-agent's own recordings say which SWE-agent printed them; others keep the latest tools.
  const version = recording.format === 'swe-agent' || sweAgentVersion !== undefined ? sweAgentVersionOf(recording, sweAgentVersion).version : undefined;
  const env = meta.toolEnvVariables;
  const registry = meta.toolRegistryVariables;
  const window = variable(env, 'env_variables', 'WINDOW', WindowLines);
  const overlap = variable(env, 'env_variables', 'OVERLAP', WholeNumber);
  const useFilemap = variable(registry, 'registry_variables', 'USE_FILEMAP', Flag);
  // SWE-agent 1.0's review_on_submit shows one SUBMIT_REVIEW_MESSAGE; review_on_submit_m a list.
  const submitReviewMessage = variable(registry, 'registry_variables', 'SUBMIT_REVIEW_MESSAGE', z.string({ error: 'expected a string' }));
  const submitReviewMessages =
    variable(registry, 'registry_variables', 'SUBMIT_REVIEW_MESSAGES', Messages) ?? (submitReviewMessage === undefined ? undefined : [submitReviewMessage]);
  return {
    ...(version !== undefined ? { sweAgentVersion: version } : {}),
    ...(meta.pty ? { crlf: true } : {}),
    ...(window !== undefined ? { window } : {}),
    ...(overlap !== undefined ? { overlap } : {}),
    ...(useFilemap !== undefined ? { useFilemap } : {}),
    ...(submitReviewMessages !== undefined ? { submitReviewMessages } : {}),
    ...(task.baseCommit ? { baseCommit: task.baseCommit } : {}),
  };
}
