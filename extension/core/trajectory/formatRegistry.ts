/**
 * The trajectory formats the program reads and writes, as data: a name, the fingerprints that
 * recognise a parsed file, the importer, and the exporter with its file ending. The generic
 * formats register from `formats.ts`; a scaffold family contributes its own recording formats
 * (`ScaffoldFamily.formats`) when the program's composition root installs it, so nothing in
 * core/trajectory names a family's format.
 */
import type { InputLimits } from '../input/inputSource';
import type { ImportContext } from './importContext';
import type { Trajectory } from './model';
import type { IndexedReading } from './stepReading';
import { addFormatFacts, type FormatFacts } from './formatFacts';

/**
 * One way of recognising a format in a parsed JSON value. Detection tries every registered
 * fingerprint, lowest `rank` first, and the first that matches names the format: a more specific
 * shape takes a lower rank than a looser one it would also match (a mini-swe-agent message list
 * before plain OpenAI messages).
 */
interface FormatFingerprint {
  readonly rank: number;
  matches(value: unknown): boolean;
}

/** A file read and imported, with the parsed value its steps' pointers resolve in. */
export interface LinkedFile {
  file: string;
  format: string;
  trajectory: Trajectory;
  root: unknown;
}

/** What a format's files refer to beyond themselves, read once a file is imported (`load.ts`). */
interface FormatLinks {
  /** The run the file begins, joined with the files it continues in (ATIF's `continued_trajectory_ref`). */
  continued?(first: LinkedFile, load: (file: string) => Promise<LinkedFile>): Promise<LinkedFile>;
  /** A trajectory the file's steps delegated to, by the name its references give (ATIF's subagents). */
  subagent?(parent: LinkedFile, name: string, load: (file: string) => Promise<LinkedFile>): Promise<LinkedFile>;
}

/** How a trajectory is written, besides its format. */
export interface WriteOptions {
  /** The version of the format to write, for a format with several (ATIF's `ATIF-v1.0` to `ATIF-v1.7`); a writer refuses one that would lose what the trajectory holds. */
  version?: string;
}

/** A format's definition: its facts (`formatFacts.ts`: name, recorded submission, exit statuses) and how it is read and written. */
export interface TrajectoryFormatDefinition extends FormatFacts {
  readonly fingerprints: readonly FormatFingerprint[];
  /** The parsed file (or JSONL record) as the canonical trajectory; errors name the file and JSON path. */
  import(value: unknown, ctx: ImportContext): Trajectory;
  /** Writes a trajectory as the tool that reads this format expects, with its usual file ending. */
  readonly exporter?: { readonly extension: string; write(t: Trajectory, options?: WriteOptions): string };
  /** Files and trajectories the format's files refer to (continuations, subagents). */
  readonly links?: FormatLinks;
  /** Its recordings are trees (OpenHands V1's conversations): `import` reads the branch `ImportContext.branch` names, else the one in use. */
  readonly branches?: boolean;
  /** How a large file is read a step at a time from its byte index (`stepSource.ts`); without it, a file is parsed whole. */
  readonly indexed?: IndexedReading;
  /**
   * A recording kept as a folder (OpenHands V1's persisted conversation): whether `dir` is one,
   * and how its files are gathered into the one value `import` reads (errors name the file).
   */
  readonly folder?: {
    holds(dir: string): Promise<boolean>;
    gather(dir: string, options: { signal?: AbortSignal; limits?: Partial<InputLimits> }): Promise<unknown>;
    /** The folder a file of such a recording (an event file, the state) would be, read from its path alone; the loader then checks it `holds`. */
    partOf(file: string): string | undefined;
    /** The file an editor opens to show the folder's recording (editors open files, not folders). */
    entry(dir: string): Promise<string>;
  };
  /** A JSONL file whose first record this matches is one recording, its records a list (OpenHands V1's `events.jsonl`), not one recording a line. */
  readonly wholeJsonl?: (first: unknown) => boolean;
  /** The key of the object holding its chat messages (SWE-agent's `history`): a file whose list there has other roles is refused as closest to this format. */
  readonly messagesKey?: string;
}

const generic: TrajectoryFormatDefinition[] = [];
const contributed: TrajectoryFormatDefinition[] = [];

function register(list: TrajectoryFormatDefinition[], format: TrajectoryFormatDefinition): void {
  const known = formatNamed(format.name);
  if (known === format) return;
  if (known) throw new Error(`trajectory format '${format.name}' is registered twice`);
  list.push(format);
}

/** A generic format (not one family's recording), registered by core/trajectory itself. */
export function registerGenericFormat(format: TrajectoryFormatDefinition): void {
  register(generic, format);
  addFormatFacts(format, 'generic');
}

/** A family's own recording format; registering the same definition again does nothing. */
export function registerFormat(format: TrajectoryFormatDefinition): void {
  register(contributed, format);
  addFormatFacts(format, 'family');
}

/** Every registered format: the families' own first (what a file most often is), then the generic ones. */
export function trajectoryFormats(): readonly TrajectoryFormatDefinition[] {
  return [...contributed, ...generic];
}

export function formatNamed(name: string): TrajectoryFormatDefinition | undefined {
  return trajectoryFormats().find((f) => f.name === name);
}

export { formatNames } from './formatFacts';
