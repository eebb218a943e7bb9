import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError, throwIfAborted } from '../errors';
import { withoutCompressionSuffix } from '../input/inputSource';
import { parseJsonDocument } from '../input/jsonDocument';
import { inputLines, lineTooLong, readInputText } from '../input/readInput';
import type { Step, Trajectory, TrajectoryFormat } from './model';
import { describeForeignJson, detectFormat, nearestFormat } from './detectFormat';
import { resolvePointer } from '../input/jsonText';
import type { ImportContext } from './importContext';
import { formatNamed, formatNames, trajectoryFormats, type TrajectoryFormatDefinition } from './formatRegistry';
import './formats';
import type { LoadOptions } from './stepReading';

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

export interface ImportOptions {
  file: string;
  format?: TrajectoryFormat;
  line?: number;
  /** A JSONL file read whole: each element's line. */
  lines?: readonly number[];
  /** The branch of a tree-shaped recording to read (`LoadOptions.branch`). */
  branch?: string;
}

/** Turns a parsed JSON value into the canonical trajectory, detecting its format unless told. */
export function importTrajectory(value: unknown, options: ImportOptions): Trajectory {
  const format = options.format ?? detectFormat(value);
  if (format === undefined) {
    const near = nearestFormat(value);
    if (near) throw new InputError(options.file, '$', `not a trajectory: closest to ${near.closest}, but it lacks ${near.missing}`);
    throw new InputError(options.file, '$', `not a trajectory: it looks like ${describeForeignJson(value)}; tried ${formatNames().join(', ')}`);
  }
  const ctx: ImportContext = {
    file: options.file,
    base: [],
    ...(options.line === undefined ? {} : { line: options.line }),
    ...(options.lines === undefined ? {} : { lines: options.lines }),
    ...(options.branch === undefined ? {} : { branch: options.branch }),
  };
  const definition = formatNamed(format);
  if (!definition) throw new InputError(options.file, undefined, `unknown trajectory format '${format}': expected one of ${formatNames().join(', ')}`);
  if (options.branch !== undefined && !definition.branches)
    throw new InputError(
      options.file,
      undefined,
      `a ${format} recording is one line of steps, not a tree of branches, so branch '${options.branch}' cannot be opened from it`,
    );
  return definition.import(value, ctx);
}

function finish(
  file: string,
  root: unknown,
  options: LoadOptions,
  jsonl?: { record: number; line: number; records: number },
  lines?: readonly number[],
): LoadedTrajectory {
  const format = options.format ?? detectFormat(root);
  const trajectory = importTrajectory(root, {
    file,
    format,
    line: jsonl?.line,
    ...(lines ? { lines } : {}),
    ...(options.branch === undefined ? {} : { branch: options.branch }),
  });
  const loaded: LoadedTrajectory = { file, format: format ?? trajectory.format, trajectory, root };
  return jsonl === undefined ? loaded : { ...loaded, record: jsonl.record, line: jsonl.line, records: jsonl.records };
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

/** The format that reads a JSONL file whose first record is `first` whole, as one recording (`wholeJsonl`). */
function wholeJsonlFormat(first: unknown, format: TrajectoryFormat | undefined): TrajectoryFormat | undefined {
  return trajectoryFormats().find((f) => (format === undefined || f.name === format) && f.wholeJsonl?.(first))?.name;
}

function firstRecord(text: string, file: string, line: number, options: LoadOptions): unknown {
  try {
    return parseJsonDocument(text, file, { firstLine: line, limits: options.limits });
  } catch {
    // A broken first line is reported when its record is read, as before.
    return undefined;
  }
}

/** Whether the JSONL line (1-based) holding record `record` (0-based) is the one asked for. */
function isWanted(options: LoadOptions, record: number, line: number): boolean {
  return options.line !== undefined ? line === options.line : record === (options.record ?? 0);
}

/** Why no record was chosen: the line or record asked for is not one of the file's. */
function missing(file: string, options: LoadOptions, records: number): InputError {
  if (options.line !== undefined) return new InputError(file, `line ${options.line}`, `no JSON record on this line: the file holds ${records} JSON lines`);
  return new InputError(file, undefined, `record ${options.record ?? 0} does not exist: the file holds ${records} JSON lines`);
}

async function loadJsonl(file: string, options: LoadOptions): Promise<LoadedTrajectory> {
  const wanted = options.record ?? 0;
  let records = 0;
  let chosen: { text: string; line: number; record: number } | undefined;
  let whole: { format: TrajectoryFormat; values: unknown[]; lines: number[] } | undefined;
  for await (const l of inputLines(file, options)) {
    throwIfAborted(options.signal);
    if (!l.tooLong && l.text.trim() === '') continue;
    if (records === 0 && !l.tooLong) {
      const format = wholeJsonlFormat(firstRecord(l.text, file, l.line, options), options.format);
      if (format) whole = { format, values: [], lines: [] };
    }
    if (whole) {
      if (l.tooLong) throw lineTooLong(file, l.line, options);
      whole.values.push(parseJsonDocument(l.text, file, { firstLine: l.line, limits: options.limits }));
      whole.lines.push(l.line);
      records++;
      continue;
    }
    if (isWanted(options, records, l.line)) {
      if (l.tooLong) throw lineTooLong(file, l.line, options);
      chosen = { text: l.text, line: l.line, record: records };
    }
    records++;
  }
  if (records === 0) throw new InputError(file, undefined, 'empty file: no JSON lines');
  if (whole) {
    if (wanted !== 0 || options.line !== undefined)
      throw new InputError(
        file,
        undefined,
        `${options.line !== undefined ? `line ${options.line}` : `record ${wanted}`} is no record: the file is one ${whole.format} recording, a line an event`,
      );
    return finish(file, whole.values, { ...options, format: whole.format }, undefined, whole.lines);
  }
  if (!chosen) throw missing(file, options, records);
  return finish(file, parseJsonDocument(chosen.text, file, { firstLine: chosen.line, limits: options.limits }), options, {
    record: chosen.record,
    line: chosen.line,
    records,
  });
}

function loadJsonlText(file: string, text: string, options: LoadOptions): LoadedTrajectory {
  const lines = text.split('\n');
  const nonEmpty = lines.flatMap((l, i) => (l.trim() === '' ? [] : [i]));
  const record = nonEmpty.findIndex((at, k) => isWanted(options, k, at + 1));
  const at = nonEmpty[record];
  if (at === undefined) throw missing(file, options, nonEmpty.length);
  return finish(file, parseJsonDocument(lines[at]!, file, { firstLine: at + 1, limits: options.limits }), options, {
    record,
    line: at + 1,
    records: nonEmpty.length,
  });
}

/**
 * Reads a trajectory file of any supported format through the input layer (gzip and zstd,
 * pipes, size and depth limits): JSON is read once and parsed once, JSONL line by line; the
 * trajectory shares its strings with the parsed file.
 */
export async function loadTrajectory(file: string, options: LoadOptions = {}): Promise<LoadedTrajectory> {
  const loaded = await loadFile(file, options);
  const links = formatNamed(loaded.format)?.links;
  const { subagent, ...rest } = options;
  if (subagent !== undefined) {
    if (!links?.subagent)
      throw new InputError(file, undefined, `a ${loaded.format} file names no subagent trajectories, so '${subagent}' cannot be opened from it`);
    // A subagent's own file is read as a file of its own (its continuations joined), whatever its format.
    return links.subagent(loaded, subagent, (f) => loadTrajectory(f, { signal: rest.signal, limits: rest.limits }));
  }
  if (!links?.continued || options.alone || loaded.record !== undefined) return loaded;
  return links.continued(loaded, (f) => loadFile(f, { format: loaded.format, signal: rest.signal, limits: rest.limits }));
}

async function loadFile(file: string, options: LoadOptions): Promise<LoadedTrajectory> {
  throwIfAborted(options.signal);
  const folder = await recordingFolderFormat(file, options.format);
  if (folder) return finish(file, await folder.folder!.gather(file, options), { ...options, format: folder.name });
  // A file of a recording kept as a folder (a V1 conversation's event file) opens the whole recording.
  const owner = await recordingFolderOf(file);
  if (owner) return loadFile(owner.dir, { ...options, format: owner.format });
  if (/\.jsonl$/i.test(withoutCompressionSuffix(basename(file)))) return loadJsonl(file, options);
  const { text } = await readInputText(file, options);
  throwIfAborted(options.signal);
  if (text === '') throw new InputError(file, undefined, 'empty file');
  if (text.trim() === '') throw new InputError(file, undefined, 'empty file: only whitespace');
  let root: unknown;
  try {
    root = parseJsonDocument(text, file, options);
  } catch (err) {
    if (looksLikeJsonl(text)) return loadJsonlText(file, text, options);
    throw err;
  }
  return finish(file, root, options);
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The format whose recordings are folders like `dir` (OpenHands V1's conversations), when `dir` is a folder. */
async function recordingFolderFormat(dir: string, format?: TrajectoryFormat): Promise<TrajectoryFormatDefinition | undefined> {
  if (!(await isFolder(dir))) return undefined;
  const candidates = trajectoryFormats().filter((f) => f.folder && (format === undefined || f.name === format));
  for (const f of candidates) if (await f.folder!.holds(dir)) return f;
  const kinds = trajectoryFormats()
    .filter((f) => f.folder)
    .map((f) => f.name);
  throw new InputError(dir, undefined, `is a folder, not a file${kinds.length > 0 ? `, and not a recording folder (${kinds.join(', ')})` : ''}`);
}

/** The recording folder `file` is part of (an OpenHands V1 conversation's `base_state.json` or event file), with its format. */
export async function recordingFolderOf(file: string): Promise<{ dir: string; format: TrajectoryFormat } | undefined> {
  for (const f of trajectoryFormats()) {
    const dir = f.folder?.partOf(file);
    if (dir !== undefined && (await f.folder!.holds(dir))) return { dir, format: f.name };
  }
  return undefined;
}

/** The file an editor opens for `path`: the path itself, or for a recording folder the file that stands for it. */
export async function editorEntry(path: string): Promise<string> {
  if (!(await isFolder(path))) return path;
  const format = await recordingFolderFormat(path);
  return format!.folder!.entry(path);
}

/** Whether `path` is a folder one format reads as one recording (a V1 conversation), not a folder of recordings. */
export async function isRecordingFolder(path: string): Promise<boolean> {
  if (!(await isFolder(path))) return false;
  for (const f of trajectoryFormats()) if (f.folder && (await f.folder.holds(path))) return true;
  return false;
}

/** Every record a step was built from: the action's, then its observations'. */
export function rawRecords(loaded: LoadedTrajectory, step: Step): unknown[] {
  return (step.source?.pointers ?? []).map((p) => resolvePointer(loaded.root, p));
}
