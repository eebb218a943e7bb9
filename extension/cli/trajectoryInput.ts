/**
 * The options every command that reads one trajectory file shares: `--format NAME` skips
 * detection, `--line N` (1-based, as `rollouts list` names a rollout: `deepswe.jsonl:3`) or
 * `--record N` (0-based, as JSON's `index`) picks a record of a JSONL file. Checked here once, as
 * usage errors.
 */
import { formatNames } from '../core/trajectory/formatRegistry';
import { TrajectoryFormatSchema, type TrajectoryFormat } from '../core/trajectory/model';
import { CliError } from './command';

export const TRAJECTORY_INPUT_OPTIONS = {
  format: { type: 'string' },
  record: { type: 'string' },
  line: { type: 'string' },
  subagent: { type: 'string' },
  alone: { type: 'boolean' },
  branch: { type: 'string' },
} as const;

export const trajectoryInputUsage = () => `  --format NAME   skip detection: ${formatNames().join(', ')}
  --line N        which record of a JSONL file, by its line (from 1, as \`rollouts list\` names it: FILE:N)
  --record N      which record of a JSONL file, counted from 0 as JSON's \`index\` (default 0)
  --subagent ID   the trajectory a step delegated to (ATIF: an embedded trajectory_id or a trajectory_path)
  --alone         this file only, not joined with the files its run continues in (ATIF)
  --branch ID     the branch ending at event ID of a conversation kept as a tree (OpenHands V1), not the one in use`;

export function trajectoryInput(values: {
  format?: string | undefined;
  record?: string | undefined;
  line?: string | undefined;
  subagent?: string | undefined;
  alone?: boolean | undefined;
  branch?: string | undefined;
}): { format?: TrajectoryFormat; record?: number; line?: number; subagent?: string; alone?: boolean; branch?: string } {
  const format = values.format === undefined ? undefined : TrajectoryFormatSchema.safeParse(values.format);
  if (format && !format.success) throw new CliError(`--format: expected one of ${formatNames().join(', ')}, got '${values.format}'`);
  const record = values.record === undefined ? undefined : Number(values.record);
  if (record !== undefined && !(Number.isInteger(record) && record >= 0)) throw new CliError(`--record: expected a whole number, got '${values.record}'`);
  const line = values.line === undefined ? undefined : Number(values.line);
  if (line !== undefined && !(Number.isInteger(line) && line >= 1)) throw new CliError(`--line: expected a line number from 1, got '${values.line}'`);
  if (record !== undefined && line !== undefined) throw new CliError('--line and --record both pick a record: give one');
  return {
    ...(format ? { format: format.data } : {}),
    ...(record !== undefined ? { record } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(values.subagent !== undefined ? { subagent: values.subagent } : {}),
    ...(values.alone ? { alone: true } : {}),
    ...(values.branch !== undefined ? { branch: values.branch } : {}),
  };
}
