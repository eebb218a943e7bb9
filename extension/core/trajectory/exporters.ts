import { formatNamed, trajectoryFormats, type WriteOptions } from './formatRegistry';
import './formats';
import type { Trajectory } from './model';

/** A format a trajectory can be written in (one whose registered definition has an exporter). */
export type ExportFormat = string;

/** The formats a trajectory can be written in, each as the tool that reads it expects, in registration order. */
export function exportFormats(): ExportFormat[] {
  return trajectoryFormats().flatMap((f) => (f.exporter ? [f.name] : []));
}

/** The writer of `format` and its usual file ending; an Error naming the writable formats when it has none. */
function exporterOf(format: ExportFormat): { extension: string; write: (t: Trajectory, options?: WriteOptions) => string } {
  const exporter = formatNamed(format)?.exporter;
  if (!exporter) throw new Error(`cannot write trajectory format '${format}': expected one of ${exportFormats().join(', ')}`);
  return exporter;
}

export function exportTrajectory(t: Trajectory, format: ExportFormat, options: WriteOptions = {}): string {
  return exporterOf(format).write(t, options);
}

/**
 * The format a file name asks for: the one format whose exporter's ending the name has (`.traj`:
 * SWE-agent's), else `canonical` when the ending is shared (`.json`, `.jsonl`) or no format's.
 */
export function formatForFileName(file: string): ExportFormat {
  const claiming = trajectoryFormats().filter((f) => f.exporter && file.endsWith(f.exporter.extension));
  return claiming.length === 1 ? claiming[0]!.name : 'canonical';
}
