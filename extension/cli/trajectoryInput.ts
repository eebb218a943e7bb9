/**
 * The options every command that reads one trajectory file shares: `--format NAME` skips
 * detection, `--record N` picks a line of a JSONL file. Checked here once, as usage errors.
 */
import { formatNames } from '../core/trajectory/formatRegistry';
import { TrajectoryFormatSchema, type TrajectoryFormat } from '../core/trajectory/model';
import { CliError } from './command';

export const TRAJECTORY_INPUT_OPTIONS = {
  format: { type: 'string' },
  record: { type: 'string' },
} as const;

export const trajectoryInputUsage = () => `  --format NAME   skip detection: ${formatNames().join(', ')}
  --record N      which line of a JSONL file (0-based, default 0)`;

export function trajectoryInput(values: { format?: string | undefined; record?: string | undefined }): { format?: TrajectoryFormat; record?: number } {
  const format = values.format === undefined ? undefined : TrajectoryFormatSchema.safeParse(values.format);
  if (format && !format.success) throw new CliError(`--format: expected one of ${formatNames().join(', ')}, got '${values.format}'`);
  const record = values.record === undefined ? undefined : Number(values.record);
  if (record !== undefined && !(Number.isInteger(record) && record >= 0)) throw new CliError(`--record: expected a whole number, got '${values.record}'`);
  return { ...(format ? { format: format.data } : {}), ...(record !== undefined ? { record } : {}) };
}
