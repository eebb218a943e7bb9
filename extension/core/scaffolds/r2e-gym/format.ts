/** R2E-Gym's JSONL record: `trajectory_steps` with `<function=...>` actions. */
import { isObject } from '../../trajectory/fingerprints';
import type { TrajectoryFormatDefinition } from '../../trajectory/formatRegistry';
import { importR2eGym } from './importer';
import { toR2eGymRecord } from './exporter';

export const r2eGymFormat: TrajectoryFormatDefinition = {
  name: 'r2e-gym',
  fingerprints: [{ rank: 30, matches: (o) => isObject(o) && Array.isArray(o.trajectory_steps) }],
  // `output_patch`
  recordsSubmission: true,
  exitStatuses: { context: /token_limit/, maxSteps: /max_step/, budget: /time_limit/, finished: /^agent$/ },
  import: importR2eGym,
  exporter: { extension: '.jsonl', write: toR2eGymRecord },
};
