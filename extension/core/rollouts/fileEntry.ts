import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { InputError, errorText } from '../errors';
import type { Trajectory } from '../trajectory/model';
import { hasCompressionSuffix, limitsOf, withoutCompressionSuffix } from '../input/inputSource';
import { assertJsonDepth, parseJsonDocument } from '../input/jsonDocument';
import { inputLines, lineTooLong, readInputText } from '../input/readInput';
import { EvaluationSchema, IndexErrorSchema, PredictionSchema, TrajectoryFactsSchema, type IndexError } from './record';
import { criticalStepOf, parseIndex, recordingOfBranchIndex } from './branchIndex';
import { harborTrialEvaluation } from './harborTrial';
import { documentKind, evaluationsOf, predictionsOf } from './runDocuments';
import { trajectoryFacts } from './trajectoryFacts';
import type { FactsReader } from './trajectorySummary';

/** Where one row's text lies in the text store: byte offset and length. */
export type TextRange = readonly [offset: number, length: number];

/** Keeps a trajectory's searchable text; where it lies in the text store. */
export type TextSink = (t: Trajectory) => TextRange;

/** Turns one parsed document into the canonical model; throws InputError on anything else. */
export type TrajectoryImporter = (value: unknown, file: string, line: number | undefined) => Trajectory | Trajectory[];

/** The facts of every trajectory an importer builds from a document. */
export function factsThrough(importTrajectory: TrajectoryImporter): FactsReader {
  return (value, file, line) => {
    const imported = importTrajectory(value, file, line);
    const all = Array.isArray(imported) ? imported : [imported];
    return { facts: all.map((t) => trajectoryFacts(t, line)), first: all[0] };
  };
}

/** What one file contributed to the index; cached per file, keyed by size and mtime. */
const FileEntrySchema = z.object({
  path: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  trajectories: z.array(TrajectoryFactsSchema),
  predictions: z.array(PredictionSchema),
  evaluations: z.array(EvaluationSchema),
  errors: z.array(IndexErrorSchema),
  /** JSONL only: where the last complete line ended, so an appended file is read from there. */
  resume: z.object({ offset: z.number(), lines: z.number(), tailHash: z.string() }).optional(),
  /**
   * A recording's branch run (`RECORDING.branches/index.json`): the critical step of its
   * continuations, null when V never falls; the join gives it to the recording's row.
   */
  branch: z.object({ critical: z.object({ from: z.number(), to: z.number(), before: z.number(), after: z.number() }).nullable() }).optional(),
  /** Per trajectory document with text, [its line or null, offset, length] in the text store. */
  texts: z.array(z.tuple([z.number().nullable(), z.number(), z.number()])).optional(),
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

export type ReadMode = 'cached' | 'resumed' | 'full';

export interface FileScan {
  entry: FileEntry;
  mode: ReadMode;
  bytesRead: number;
}

const TAIL_BYTES = 256;

/** Same size and mtime as when the entry was read: the entry still holds. */
export function isUnchanged(previous: { size: number; mtimeMs: number }, stat: { size: number; mtimeMs: number }): boolean {
  return previous.size === stat.size && previous.mtimeMs === stat.mtimeMs;
}

export async function scanFile(
  root: string,
  path: string,
  stat: { size: number; mtimeMs: number },
  previous: FileEntry | undefined,
  readFacts: FactsReader,
  signal?: AbortSignal,
  text?: TextSink,
): Promise<FileScan> {
  if (previous && isUnchanged(previous, stat)) return { entry: previous, mode: 'cached', bytesRead: 0 };
  const abs = join(root, path);
  const entry: FileEntry = { path, size: stat.size, mtimeMs: stat.mtimeMs, trajectories: [], predictions: [], evaluations: [], errors: [] };
  if (text) entry.texts = [];
  if (recordingOfBranchIndex(path) !== undefined) return readBranchIndex(abs, entry, signal);
  const sink = new DocumentSink(entry, withoutCompressionSuffix(basename(path)), basename(dirname(abs)), readFacts, text);
  if (!withoutCompressionSuffix(path).endsWith('.jsonl')) {
    const { text, bytes } = await readInputText(abs, { signal }).catch((err: unknown) => {
      throw relabel(err, abs, path);
    });
    sink.add(() => parseJsonDocument(text, path), undefined);
    return { entry: trimmed(entry), mode: 'full', bytesRead: bytes };
  }
  // A compressed file is read whole each time: its offsets are not the file's.
  const compressed = hasCompressionSuffix(path);
  const resumable =
    !compressed && previous?.resume && stat.size >= previous.resume.offset && (await tailHash(abs, previous.resume.offset)) === previous.resume.tailHash;
  let start = { offset: 0, lines: 0 };
  if (resumable && previous?.resume) {
    start = previous.resume;
    keepBefore(entry, previous, start.lines + 1);
  }
  let resume = { offset: start.offset, lines: start.lines };
  let sawCompression = false;
  try {
    for await (const l of inputLines(abs, { start: start.offset, firstLine: start.lines + 1, signal })) {
      sawCompression ||= l.compression !== undefined || l.encoding !== 'utf-8';
      if (l.tooLong) {
        entry.errors.push(indexError(lineTooLong(path, l.line), path, l.line));
        if (l.terminated) resume = { offset: l.end, lines: l.line };
        continue;
      }
      if (l.text.trim() === '') {
        if (l.terminated) resume = { offset: l.end, lines: l.line };
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(l.text);
      } catch (err) {
        if (!l.terminated) {
          // A writer mid-line, or a file cut short: said so, and read again once the file changes.
          entry.errors.push({
            file: path,
            line: l.line,
            message: 'incomplete last line (no newline at the end and not valid JSON): cut mid-write or truncated; read again when the file changes',
          });
          break;
        }
        value = err;
      }
      sink.add(
        () =>
          value instanceof Error ? parseJsonDocument(l.text, path, { firstLine: l.line }) : (assertJsonDepth(l.text, path, limitsOf().maxDepth, l.line), value),
        l.line,
      );
      if (l.terminated) resume = { offset: l.end, lines: l.line };
    }
  } catch (err) {
    throw relabel(err, abs, path);
  }
  if (!compressed && !sawCompression) entry.resume = { ...resume, tailHash: await tailHash(abs, resume.offset) };
  return { entry: trimmed(entry), mode: resumable ? 'resumed' : 'full', bytesRead: stat.size - start.offset };
}

/** A branch run's index read for its critical step; one that does not parse is the entry's error. */
async function readBranchIndex(abs: string, entry: FileEntry, signal: AbortSignal | undefined): Promise<FileScan> {
  const { path } = entry;
  const { text, bytes } = await readInputText(abs, { signal }).catch((err: unknown) => {
    throw relabel(err, abs, path);
  });
  try {
    entry.branch = { critical: criticalStepOf(parseIndex(path, text)) };
  } catch (err) {
    entry.errors.push(indexError(err, path));
  }
  return { entry, mode: 'full', bytesRead: bytes };
}

/**
 * The entry with its lists at their length. V8 grows an array that was pushed to, even once,
 * to 17 slots at least: kept per file and per row, that slack was a fifth of what a cold index
 * of 100,000 rollouts held at its peak.
 */
function trimmed(entry: FileEntry): FileEntry {
  entry.trajectories = exact(entry.trajectories);
  entry.predictions = exact(entry.predictions);
  entry.evaluations = exact(entry.evaluations);
  entry.errors = exact(entry.errors);
  if (entry.texts) entry.texts = exact(entry.texts);
  return entry;
}

/** A copy of `list` whose storage is its length (an empty list already holds none). */
function exact<T>(list: T[]): T[] {
  return list.length === 0 ? list : list.slice();
}

/** The input layer names the absolute path; the index names files relative to its root. */
function relabel(err: unknown, abs: string, path: string): unknown {
  return err instanceof InputError && err.file === abs ? new InputError(path, err.where, err.problem) : err;
}

/** Keeps what the previous read found before `line`; a later line is read again. */
function keepBefore(entry: FileEntry, previous: FileEntry, line: number): void {
  const before = (x: { line?: number | undefined }) => x.line === undefined || x.line < line;
  entry.trajectories = previous.trajectories.filter(before);
  entry.predictions = previous.predictions.filter(before);
  entry.evaluations = [...previous.evaluations];
  entry.errors = previous.errors.filter(before);
  // Kept texts lie in the older store, which the new one copies them from (TextStoreWriter.commit).
  if (entry.texts) entry.texts = (previous.texts ?? []).filter(([l]) => l === null || l < line);
}

async function tailHash(file: string, offset: number): Promise<string> {
  const from = Math.max(0, offset - TAIL_BYTES);
  const buf = Buffer.alloc(offset - from);
  const fh = await open(file, 'r');
  try {
    await fh.read(buf, 0, buf.length, from);
  } finally {
    await fh.close();
  }
  return createHash('sha1').update(buf).digest('hex');
}

/** Sorts parsed documents into the entry; an unreadable one becomes a located error. */
class DocumentSink {
  constructor(
    private readonly entry: FileEntry,
    private readonly fileName: string,
    private readonly folderName: string,
    private readonly readFacts: FactsReader,
    private readonly text: TextSink | undefined,
  ) {}

  add(parse: () => unknown, line: number | undefined): void {
    const { entry } = this;
    try {
      const value = parse();
      const kind = documentKind(this.fileName, value);
      if (kind === 'predictions') entry.predictions.push(...predictionsOf(value, entry.path, line));
      else if (kind === 'report') entry.evaluations.push(...evaluationsOf(value, entry.path, this.folderName));
      else if (kind === 'harbor-trial') entry.evaluations.push(harborTrialEvaluation(value, entry.path));
      else if (kind === 'trajectory') {
        const { facts, first } = this.readFacts(value, entry.path, line);
        entry.trajectories.push(...facts);
        if (first && this.text && entry.texts) {
          // Three named elements, not a spread: a spread builds the tuple with 19 slots.
          const [offset, length] = this.text(first);
          entry.texts.push([line ?? null, offset, length]);
        }
      }
    } catch (err) {
      entry.errors.push(indexError(err, entry.path, line));
    }
  }
}

export function indexError(err: unknown, file: string, line?: number): IndexError {
  const e: IndexError = { file, message: err instanceof InputError ? err.problem : errorText(err) };
  if (err instanceof InputError && err.where) e.where = err.where;
  if (line !== undefined) e.line = line;
  return e;
}
