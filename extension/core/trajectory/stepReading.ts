/**
 * What reading a trajectory file step by step means, apart from how it is done: the options of a
 * load, a source of steps, and how a format reads its large files a step at a time. The format
 * registry names `IndexedReading` without importing the readers (`stepSource.ts`, `load.ts`),
 * which themselves ask the registry.
 */
import type { InputLimits } from '../input/inputSource';
import type { JsonIndex } from '../input/jsonIndex';
import type { Step, Trajectory, TrajectoryFormat } from './model';

export interface LoadOptions {
  format?: TrajectoryFormat;
  signal?: AbortSignal;
  /** Which record of a JSONL file to load (0-based, default the first). */
  record?: number;
  /**
   * Or which record by its 1-based line, as the rollouts index names a JSONL file's rollout
   * (`deepswe.jsonl:3` is line 3); a blank line or one past the end is an error.
   */
  line?: number;
  limits?: Partial<InputLimits>;
  /** Open the trajectory a step of the file delegated to (ATIF: an embedded subagent's `trajectory_id`, or a reference's `trajectory_path`), not the file's own. */
  subagent?: string;
  /** Read the file alone, not joined with the files its run continues in (default: joined). */
  alone?: boolean;
  /** For a recording kept as a tree (OpenHands V1): open the branch ending at this event id, not the one in use. */
  branch?: string;
}

export interface StepSource {
  file: string;
  format: TrajectoryFormat;
  /** `indexed`: steps parsed from their byte ranges when asked; `whole`: the file was parsed at once. */
  mode: 'indexed' | 'whole';
  stepCount: number;
  /** The task, outcome and run facts. */
  header: Omit<Trajectory, 'steps'>;
  /** Step `index` (0-based); an InputError naming the file when it has none. */
  step(index: number): Promise<Step>;
  /** Steps `start` to `end` (exclusive), clamped to the trajectory. */
  steps(start: number, end: number): Promise<Step[]>;
  /**
   * Every step without its observations (`observation` and the calls' observations empty, no
   * flags, which are read from observations): what a header, the run facts, the open-file rule
   * and a step's change read. An indexed file makes them from the index without reading the
   * observations.
   */
  lightSteps(): Promise<Step[]>;
  /** The records step `step` was built from (the action's, then its observations'), as the file holds them. */
  rawRecords(step: Step): Promise<unknown[]>;
  /** For a JSONL file: the record's 0-based index, its 1-based line, and how many records the file holds. */
  record?: number;
  line?: number;
  records?: number;
}

export interface OpenStepsOptions extends LoadOptions {
  /** Index files from this size on (default `INDEX_FROM_BYTES`; 0 indexes any file whose format allows it). */
  indexFromBytes?: number;
  /**
   * Called once, while an indexed file is still being read, with its first step read from its
   * own bytes alone: its thought, observation, state and action text are final; its tool and
   * arguments are read from the action text with the default tools, which the run's history and
   * `replay_config` (written after the steps) may refine in `step(0)` once the index is built.
   * Called with undefined instead as soon as no such step will come: the file is read whole
   * (decided from its size and first byte, before it is read), or its first step does not read
   * as a SWE-agent step, or the index ended without one. A front end can so wait for it before
   * showing its page (the stepper embeds the step in the page) without delaying a file read whole.
   */
  onPreview?: (step: Step | undefined, format?: string) => void;
}

/**
 * How a format's large files are read a step at a time (`TrajectoryFormatDefinition.indexed`):
 * which arrays the one indexing pass records element by element, and how steps are made from them.
 */
export interface IndexedReading {
  /** Top-level arrays of a JSON object whose elements the index records; `''` for a file that is a bare list. */
  readonly arrays: readonly string[];
  /** Top-level values the run's header reads, however long they are (the others of a large value stand in by their type). */
  readonly runFields?: readonly string[];
  /** The array whose first element is read from its own text while the index is built, and the step it makes (see `onPreview`). */
  readonly preview?: { readonly array: string; step(text: string): Step | undefined };
  /**
   * The file's steps from its index: `skeleton` holds its top-level values (an indexed array by its
   * first element) when the file is an object detected as this format, undefined when it is a bare
   * list; undefined when the file is not one this format indexes (then it is loaded whole).
   */
  open(index: JsonIndex, skeleton: Record<string, unknown> | undefined, options: OpenStepsOptions): Promise<StepSource | undefined>;
}
