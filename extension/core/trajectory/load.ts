import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { InputError, throwIfAborted } from '../errors';
import { TRAJECTORY_FORMATS, type Step, type Trajectory, type TrajectoryFormat } from './model';
import { describeForeignJson, detectFormat } from './detectFormat';
import { parseJsonText, resolvePointer } from './jsonText';
import type { ImportContext } from './importContext';
import { importSweAgent } from './importers/sweAgent';
import { importMiniSweAgent } from './importers/miniSweAgent';
import { importOpenHands } from './importers/openhands';
import { importR2eGym } from './importers/r2eGym';
import { importRllm } from './importers/rllm';
import { importSkyRl } from './importers/skyrl';
import { importOpenAiMessages } from './importers/openaiMessages';
import { importCanonical } from './importers/canonical';

const IMPORTERS: Record<TrajectoryFormat, (value: unknown, ctx: ImportContext) => Trajectory> = {
  'swe-agent': importSweAgent,
  'mini-swe-agent': importMiniSweAgent,
  openhands: importOpenHands,
  'r2e-gym': importR2eGym,
  rllm: importRllm,
  skyrl: importSkyRl,
  'openai-messages': importOpenAiMessages,
  canonical: importCanonical,
};

/** A trajectory with the parsed file it came from, so each step's original record stays reachable. */
export interface LoadedTrajectory {
  file: string;
  /** The format the file was read as. */
  format: TrajectoryFormat;
  trajectory: Trajectory;
  /** The parsed JSON the step pointers resolve in: the whole file, or the JSONL record. */
  root: unknown;
  /** For JSONL: the record's 0-based index, its 1-based line, and how many records the file holds. */
  record?: number;
  line?: number;
  records?: number;
}

export interface LoadOptions {
  format?: TrajectoryFormat;
  signal?: AbortSignal;
  /** Which record of a JSONL file to load (0-based, default the first). */
  record?: number;
}

export interface ImportOptions {
  file: string;
  format?: TrajectoryFormat;
  line?: number;
}

/** Turns a parsed JSON value into the canonical trajectory, detecting its format unless told. */
export function importTrajectory(value: unknown, options: ImportOptions): Trajectory {
  const format = options.format ?? detectFormat(value);
  if (format === undefined) {
    throw new InputError(options.file, '$', `not a trajectory: it looks like ${describeForeignJson(value)}; tried ${TRAJECTORY_FORMATS.join(', ')}`);
  }
  const ctx: ImportContext = options.line === undefined ? { file: options.file, base: [] } : { file: options.file, base: [], line: options.line };
  return IMPORTERS[format](value, ctx);
}

function finish(file: string, root: unknown, options: LoadOptions, jsonl?: { line: number; records: number }): LoadedTrajectory {
  const format = options.format ?? detectFormat(root);
  const trajectory = importTrajectory(root, { file, format, line: jsonl?.line });
  const loaded: LoadedTrajectory = { file, format: format ?? trajectory.format, trajectory, root };
  return jsonl === undefined ? loaded : { ...loaded, record: options.record ?? 0, ...jsonl };
}

/** A line that opens a JSON object and is itself complete JSON: the mark of JSONL. */
function looksLikeJsonl(text: string): boolean {
  const newline = text.indexOf('\n');
  if (newline === -1 || text.slice(newline).trim() === '') return false;
  try {
    JSON.parse(text.slice(0, newline));
    return true;
  } catch {
    return false;
  }
}

async function loadJsonl(file: string, options: LoadOptions): Promise<LoadedTrajectory> {
  const wanted = options.record ?? 0;
  let records = 0;
  let chosen: { text: string; line: number } | undefined;
  let lineNo = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    lineNo++;
    throwIfAborted(options.signal);
    if (text.trim() === '') continue;
    if (records === wanted) chosen = { text, line: lineNo };
    records++;
  }
  if (records === 0) throw new InputError(file, undefined, 'empty file: no JSON lines');
  if (!chosen) throw new InputError(file, undefined, `record ${wanted} does not exist: the file holds ${records} JSON lines`);
  return finish(file, parseJsonText(chosen.text, file, chosen.line), options, { line: chosen.line, records });
}

function loadJsonlText(file: string, text: string, options: LoadOptions): LoadedTrajectory {
  const wanted = options.record ?? 0;
  const lines = text.split('\n');
  const nonEmpty = lines.flatMap((l, i) => (l.trim() === '' ? [] : [i]));
  const at = nonEmpty[wanted];
  if (at === undefined) throw new InputError(file, undefined, `record ${wanted} does not exist: the file holds ${nonEmpty.length} JSON lines`);
  return finish(file, parseJsonText(lines[at]!, file, at + 1), options, { line: at + 1, records: nonEmpty.length });
}

/**
 * Reads a trajectory file of any supported format: JSON is read once and parsed once, JSONL
 * line by line; the trajectory shares its strings with the parsed file.
 */
export async function loadTrajectory(file: string, options: LoadOptions = {}): Promise<LoadedTrajectory> {
  throwIfAborted(options.signal);
  const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
    throw new InputError(file, undefined, err.code === 'ENOENT' ? 'no such file' : `cannot read: ${err.message}`);
  });
  if (info.isDirectory()) throw new InputError(file, undefined, 'is a folder, not a trajectory file');
  if (info.size === 0) throw new InputError(file, undefined, 'empty file');
  if (/\.jsonl$/i.test(file)) return loadJsonl(file, options);
  const text = await readFile(file, { encoding: 'utf8', signal: options.signal });
  throwIfAborted(options.signal);
  if (text.trim() === '') throw new InputError(file, undefined, 'empty file: only whitespace');
  let root: unknown;
  try {
    root = parseJsonText(text, file);
  } catch (err) {
    if (looksLikeJsonl(text)) return loadJsonlText(file, text, options);
    throw err;
  }
  return finish(file, root, options);
}

/** The original JSON record of a step (its first source pointer), as it is in the file. */
export function rawRecord(loaded: LoadedTrajectory, step: Step): unknown {
  const pointer = step.source?.pointers[0];
  return pointer === undefined ? undefined : resolvePointer(loaded.root, pointer);
}

/** Every record a step was built from: the action's, then its observations'. */
export function rawRecords(loaded: LoadedTrajectory, step: Step): unknown[] {
  return (step.source?.pointers ?? []).map((p) => resolvePointer(loaded.root, p));
}
