/**
 * A trajectory's steps read on demand. A large plain file in a format that says how to index it
 * (`TrajectoryFormatDefinition.indexed`: a SWE-agent `.traj`, the format that reaches hundreds of
 * megabytes since every observation is written twice; a mini-swe-agent run) is indexed in one
 * streaming pass (`core/input/jsonIndex.ts`) and each step is parsed from its byte range when
 * asked, so memory holds the index and the steps in use, not the file. Every other file (a smaller
 * one, another format: OpenHands' events pair by cause across the whole list, a gzip or zstd file
 * or a pipe, whose bytes cannot be read again by range, a JSONL file) is loaded whole by
 * `loadTrajectory`. Both give the same steps: the indexed path builds each with the importer's own functions.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../errors';
import { withoutCompressionSuffix } from '../input/inputSource';
import { firstByte, indexJsonObject, readJsonRange, type IndexedValue, type JsonIndex } from '../input/jsonIndex';
import { detectFormat } from './detectFormat';
import { formatNamed, trajectoryFormats } from './formatRegistry';
import { loadTrajectory, rawRecords, recordingFolderOf, type LoadedTrajectory } from './load';
import type { IndexedReading, OpenStepsOptions, StepSource } from './stepReading';

export type { IndexedReading, OpenStepsOptions, StepSource } from './stepReading';
import { defined } from './importContext';
import type { Step } from './model';
/** Files from this size on are indexed rather than parsed whole, when their format allows. */
const INDEX_FROM_BYTES = 64 * 1024 * 1024;

/** `step` without its observations, as `lightSteps` gives it. */
export function withoutObservations(step: Step): Step {
  const { flags: _flags, ...rest } = step;
  return { ...rest, observation: '', ...(step.calls ? { calls: step.calls.map((c) => ({ ...c, observation: '' })) } : {}) };
}

/** The file's top-level values a format check reads: kept ones parsed, indexed arrays by their first element, large others as empty stand-ins of their type. */
async function skeletonOf(index: JsonIndex, options: OpenStepsOptions): Promise<Record<string, unknown>> {
  const runFields = new Set(indexedReadings().flatMap((r) => r.runFields ?? []));
  const out: Record<string, unknown> = {};
  for (const [key, value] of index.keys) {
    const elements = index.arrays.get(key);
    if (elements) out[key] = elements.length > 0 ? [await readJsonRange(index.file, elements[0]!, options)] : [];
    else if (value.text !== undefined || runFields.has(key)) out[key] = await readJsonRange(index.file, value, options);
    else out[key] = standIn(value);
  }
  return out;
}

function standIn(value: IndexedValue): unknown {
  switch (String.fromCharCode(value.first)) {
    case '[':
      return [];
    case '{':
      return {};
    case '"':
      return '';
    default:
      return null;
  }
}

function indexedReadings(): IndexedReading[] {
  return trajectoryFormats().flatMap((f) => (f.indexed ? [f.indexed] : []));
}

/** Each format's preview, with the format's name. */
function previewReaders(): Array<NonNullable<IndexedReading['preview']> & { format: string }> {
  return trajectoryFormats().flatMap((f) => (f.indexed?.preview ? [{ ...f.indexed.preview, format: f.name }] : []));
}

/** Opens an indexed file in a format that indexes it, or answers undefined when it is another (then loaded whole). */
async function openIndexed(
  file: string,
  options: OpenStepsOptions,
  preview: (step: Step | undefined, format?: string) => void,
): Promise<StepSource | undefined> {
  const readings = indexedReadings();
  const previews = previewReaders();
  const index = await indexJsonObject(file, {
    arrays: [...new Set(readings.flatMap((r) => r.arrays))],
    limits: options.limits,
    signal: options.signal,
    onElement: (array, i, _element, text) => {
      const reader = i === 0 && text !== undefined ? previews.find((p) => p.array === array) : undefined;
      if (reader && text !== undefined) preview(reader.step(text), reader.format);
    },
    elementText: (array, i) => options.onPreview !== undefined && i === 0 && previews.some((p) => p.array === array),
  });
  preview(undefined);
  if (index.arrays.has('')) {
    // A bare list: each format that indexes one reads what its detection needs from the elements.
    for (const reading of readings.filter((r) => r.arrays.includes(''))) {
      const source = await reading.open(index, undefined, options);
      if (source) return source;
    }
    return undefined;
  }
  const skeleton = await skeletonOf(index, options);
  const format = options.format ?? detectFormat(skeleton);
  const reading = format === undefined ? undefined : formatNamed(format)?.indexed;
  return reading ? reading.open(index, skeleton, options) : undefined;
}

/** A trajectory parsed whole, as a step source. */
function stepSourceOf(loaded: LoadedTrajectory): StepSource {
  const { file, format } = loaded;
  const { steps, ...header } = loaded.trajectory;
  const step = (index: number) => {
    const found = steps[index];
    if (!found) throw new InputError(file, undefined, `no step ${index + 1}: the trajectory has ${steps.length}`);
    return found;
  };
  return defined({
    file,
    format,
    mode: 'whole' as const,
    stepCount: steps.length,
    header,
    step: (index: number) => Promise.resolve().then(() => step(index)),
    steps: (start: number, end: number) => Promise.resolve(steps.slice(Math.max(0, start), Math.max(0, end))),
    rawRecords: (s: Step) => Promise.resolve(rawRecords(loaded, s)),
    lightSteps: () => Promise.resolve(steps.map(withoutObservations)),
    record: loaded.record,
    line: loaded.line,
    records: loaded.records,
  });
}

/**
 * Opens `file`'s steps: indexed when it is a plain file of at least `indexFromBytes` in a format
 * that indexes it (a SWE-agent run with a `trajectory` array, a mini-swe-agent run), else parsed
 * whole. The one place that decides.
 */
export async function openSteps(file: string, options: OpenStepsOptions = {}): Promise<StepSource> {
  const threshold = options.indexFromBytes ?? INDEX_FROM_BYTES;
  // A part of a recording kept as a folder (a V1 event file) is read as that whole recording, never indexed alone.
  const plainJson = !/\.jsonl$/i.test(withoutCompressionSuffix(basename(file))) && options.record === undefined && !(await recordingFolderOf(file));
  // A pipe is not opened here (that would take its bytes), nor a small file read twice.
  const info = plainJson ? await stat(file).catch(() => undefined) : undefined;
  // `onPreview` is called once: with the first step, or with undefined as soon as none will come.
  let previewed = false;
  const preview = (step: Step | undefined, format?: string) => {
    if (previewed) return;
    previewed = true;
    options.onPreview?.(step, format);
  };
  try {
    const first = info?.isFile() && info.size >= threshold && info.size > 0 ? await firstByte(file) : undefined;
    if (first === 0x7b || first === 0x5b) {
      // A list followed by more values is read whole, as records, as `loadTrajectory` reads it.
      const indexed = await openIndexed(file, options, preview).catch((err: unknown) => {
        if (first === 0x5b && err instanceof InputError && err.problem.endsWith('unexpected non-whitespace character after JSON')) return undefined;
        throw err;
      });
      if (indexed) return indexed;
    }
    preview(undefined);
    return stepSourceOf(await loadTrajectory(file, options));
  } finally {
    preview(undefined);
  }
}
