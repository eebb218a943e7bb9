import { z } from 'zod';
import { TrajectoryFormatSchema } from '../trajectory/model';
import type { CriticalStep } from './branchIndex';

/**
 * What the rollout index keeps per trajectory, per evaluation and per prediction: the shapes of
 * the cache file's entries, which the cache's checksum vouches for when it is read back.
 */

export const FAILURE_CLASSES = [
  'resolved',
  'submitted-wrong',
  'no-submission',
  'max-steps',
  'budget-exceeded',
  'context-exceeded',
  'command-timeout',
  'format-error',
  'lint-loop',
  'stuck-loop',
  'infra-error',
  'eval-error',
  'unknown',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** A run of consecutive steps that share a property (identical action, lint rejection...). */
const StepRunSchema = z.object({ step: z.number().int(), count: z.number().int() });
export type StepRun = z.infer<typeof StepRunSchema>;

/** Everything the taxonomy and the table need from one trajectory, computed once and cached. */
export const TrajectoryFactsSchema = z.object({
  format: TrajectoryFormatSchema,
  /** 1-based line for trajectories read from JSONL. */
  line: z.number().int().optional(),
  instanceId: z.string().optional(),
  /** The trajectory's own id (rLLM `task:rollout_idx`, SkyRL trajectory_id...). */
  trajectoryId: z.string().optional(),
  steps: z.number().int(),
  exitStatus: z.string().optional(),
  /** Whether the trajectory submitted a non-empty patch; absent when its format does not record submissions. */
  hasSubmission: z.boolean().optional(),
  /** Names the submitted patch's text (`patchDigest`): equal digests, the same patch. Absent when nothing was submitted. */
  patchDigest: z.string().optional(),
  resolved: z.boolean().optional(),
  reward: z.number().optional(),
  error: z.string().optional(),
  tokens: z.number().optional(),
  cost: z.number().optional(),
  /** Seconds. */
  duration: z.number().optional(),
  formatErrors: z.object({ first: z.number().int(), count: z.number().int() }).optional(),
  lintRejections: StepRunSchema.optional(),
  timeouts: z.object({ first: z.number().int(), count: z.number().int() }).optional(),
  repeatedAction: StepRunSchema.extend({ action: z.string() }).optional(),
});
export type TrajectoryFacts = z.infer<typeof TrajectoryFactsSchema>;

/** One instance's evaluation, from a per-instance report.json or a run report's id lists. */
export const EvaluationSchema = z.object({
  instanceId: z.string(),
  /** The report it came from, relative to the indexed folder. */
  file: z.string(),
  source: z.enum(['instance-report', 'run-report', 'harbor-trial']),
  resolved: z.boolean().optional(),
  patchExists: z.boolean().optional(),
  patchApplied: z.boolean().optional(),
  /** FAIL_TO_PASS and PASS_TO_PASS tests that failed. */
  failingTests: z.array(z.string()),
  /** Why the evaluation itself failed (infra failure, error_ids...). */
  error: z.string().optional(),
  infra: z.boolean().optional(),
  /** A Harbor trial's verifier reward. */
  reward: z.number().optional(),
  /** A Harbor trial's agent: `name@version (model)`. */
  agent: z.string().optional(),
});
export type Evaluation = z.infer<typeof EvaluationSchema>;

/** A preds.json / all_preds.jsonl entry; the patch itself is not kept, only whether it is empty. */
export const PredictionSchema = z.object({
  instanceId: z.string(),
  file: z.string(),
  line: z.number().int().optional(),
  model: z.string().optional(),
  patchChars: z.number().int(),
});
export type Prediction = z.infer<typeof PredictionSchema>;

/** An input that could not be read, located as precisely as the parser allows. */
export const IndexErrorSchema = z.object({
  file: z.string(),
  line: z.number().int().optional(),
  where: z.string().optional(),
  message: z.string(),
});
export type IndexError = z.infer<typeof IndexErrorSchema>;

export interface Evidence {
  /** 0-based step index the class points at. */
  step?: number;
  /** Failing FAIL_TO_PASS / PASS_TO_PASS tests from the evaluation report. */
  tests?: string[];
  detail: string;
}

export type AttemptSource = 'trajectory-id' | 'file-name' | 'folder' | 'line-order' | 'path-order';

/** One row of the index: a trajectory joined with its prediction and evaluation. */
export interface Rollout {
  id: string;
  /** Relative to the indexed folder, with forward slashes. */
  path: string;
  line: number | undefined;
  instance: string;
  /** Where the instance id came from: the trajectory's task, an rLLM episode id, a Harbor trial's task, or the file name. */
  instanceSource: 'trajectory' | 'trajectory-id' | 'file-name' | 'harbor-trial';
  attempt: number;
  attemptSource: AttemptSource;
  format: TrajectoryFacts['format'];
  steps: number;
  exitStatus: string | undefined;
  /** null when nothing says whether it passed. */
  resolved: boolean | null;
  reward: number | undefined;
  failure: FailureClass;
  /** Every class whose rule matched, the primary one first. */
  tags: FailureClass[];
  evidence: Evidence;
  tokens: number | undefined;
  cost: number | undefined;
  duration: number | undefined;
  /** null when nothing records whether a patch was submitted. */
  submitted: boolean | null;
  /** The trajectory's own submitted patch, named by its text (`patchDigest`); undefined when it records none. */
  patchDigest: string | undefined;
  evaluation: Evaluation | undefined;
  prediction: Prediction | undefined;
  /**
   * The critical step of the recording's branch run (`RECORDING.branches/index.json`, core/branch):
   * null when V never falls between its branched states, undefined when it was not branched.
   */
  critical: CriticalStep | null | undefined;
  /** The run's re-score of this rollout (core/rollouts/tokenMismatch); absent when it was not re-scored. */
  mismatch?: {
    tokens: number;
    maxAbsDiff: number | null;
    outside: number;
    kl: number | null;
    firstDrift: { step: number; position: number } | null;
    driftUnknown: number;
    errors: number;
    steps: number;
  };
}
