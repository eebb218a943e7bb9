import { toAtif } from './atifExport';
import { toCanonicalJson } from './canonicalExport';
import { toMiniSweAgentTraj } from './miniSweAgentExport';
import type { Trajectory } from './model';
import { toOpenHandsOutputLine } from './openHandsExport';
import { toR2eGymRecord } from './r2eGymExport';
import { toSweAgentTraj } from './sweAgentExport';

/** The formats a trajectory can be written in, each as the tool that reads it expects, with its usual file ending. @internal */
export const EXPORTERS = {
  'swe-agent': { extension: '.traj', write: toSweAgentTraj },
  'mini-swe-agent': { extension: '.traj.json', write: toMiniSweAgentTraj },
  'r2e-gym': { extension: '.jsonl', write: toR2eGymRecord },
  openhands: { extension: '.jsonl', write: toOpenHandsOutputLine },
  atif: { extension: '.json', write: toAtif },
  canonical: { extension: '.json', write: toCanonicalJson },
} as const satisfies Record<string, { extension: string; write: (t: Trajectory) => string }>;

export type ExportFormat = keyof typeof EXPORTERS;
export const EXPORT_FORMATS = Object.keys(EXPORTERS) as ExportFormat[];

export function exportTrajectory(t: Trajectory, format: ExportFormat): string {
  return EXPORTERS[format].write(t);
}
