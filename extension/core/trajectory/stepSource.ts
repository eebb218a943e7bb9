/**
 * A trajectory's steps read on demand. A large plain SWE-agent `.traj` (the format that reaches
 * hundreds of megabytes: every observation is written twice, in `trajectory[]` and `history[]`)
 * is indexed in one streaming pass (`core/input/jsonIndex.ts`) and each step is parsed from its
 * byte range when asked, so memory holds the index and the steps in use, not the file. A large
 * mini-swe-agent run (its object form or its bare message list) is indexed the same way, each
 * step read from its turn's messages. Every other file (a smaller one, another format: OpenHands'
 * events pair by cause across the whole list, a gzip or zstd file or a pipe, whose bytes cannot
 * be read again by range, a JSONL file) is loaded whole by `loadTrajectory`, as before. Both
 * give the same steps: the indexed path builds each with the importer's own functions.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError, jsonPath } from '../errors';
import { withoutCompressionSuffix } from '../input/inputSource';
import { firstByte, indexJsonObject, readJsonRange, type IndexedElement, type IndexedValue, type JsonIndex } from '../input/jsonIndex';
import { describeJsonType, parseInput } from './inputSchema';
import { detectFormat } from './detectFormat';
import { loadTrajectory, rawRecords, type LoadedTrajectory, type LoadOptions } from './load';
import { defined } from './importContext';
import type { Step, Trajectory, TrajectoryFormat } from './model';
import {
  answersOf,
  HistoryItemSchema,
  InfoSchema,
  isDemo,
  pairWithHistory,
  runHeader,
  runReading,
  trajectoryStep,
  TrajStepSchema,
  type HistoryItem,
  type RunReading,
} from './importers/sweAgent';
import { chatStep, messageArray, overlaid, turnsOf, type ChatTurn, type MessageList } from './chatSteps';
import { MINI_SWE_AGENT_HOOKS, miniSweAgentMessage, miniSweAgentRunFacts, miniSweAgentTrajectory, type MiniSweAgentMessage } from './importers/miniSweAgent';

/** Files from this size on are indexed rather than parsed whole, when their format allows. */
const INDEX_FROM_BYTES = 64 * 1024 * 1024;

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
  onPreview?: (step: Step | undefined) => void;
}

/** The model inputs a step keeps for its raw record (megabytes each), which no step reads. */
const MODEL_INPUTS: ReadonlySet<string> = new Set(['query', 'messages']);

/** `step` without its observations, as `lightSteps` gives it. */
function withoutObservations(step: Step): Step {
  const { flags: _flags, ...rest } = step;
  return { ...rest, observation: '', ...(step.calls ? { calls: step.calls.map((c) => ({ ...c, observation: '' })) } : {}) };
}

/** Fields of a history message that pairing and a step's action read, kept however long they are. */
const HISTORY_FIELDS = ['role', 'action', 'tool_calls', 'tool_call_ids', 'is_demo', 'message_type', 'agent'] as const;

async function fieldValue(file: string, element: IndexedElement, key: string, options: OpenStepsOptions): Promise<unknown> {
  const field = element.fields.get(key);
  return field === undefined ? undefined : readJsonRange(file, field, options);
}

/** Top-level values the run's header reads, however long (a `replay_config` holds the whole problem statement). */
const RUN_FIELDS: ReadonlySet<string> = new Set(['replay_config', 'info', 'trajectory_format']);

/** The file's top-level values a format check reads: kept ones parsed, indexed arrays by their first element, large others as empty stand-ins of their type. */
async function skeletonOf(index: JsonIndex, options: OpenStepsOptions): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of index.keys) {
    const elements = index.arrays.get(key);
    if (elements) out[key] = elements.length > 0 ? [await readJsonRange(index.file, elements[0]!, options)] : [];
    else if (value.text !== undefined || RUN_FIELDS.has(key)) out[key] = await readJsonRange(index.file, value, options);
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

class IndexedSweAgent implements StepSource {
  readonly mode = 'indexed';
  readonly format = 'swe-agent';
  header!: Omit<Trajectory, 'steps'>;
  private light: Promise<Step[]> | undefined;

  constructor(
    readonly file: string,
    private readonly trajectory: IndexedElement[],
    private readonly historyElements: IndexedElement[],
    /** History messages without their long text: what pairing and actions read. */
    private readonly history: HistoryItem[],
    private readonly paired: Array<number | undefined>,
    private readonly reading: RunReading,
    private readonly options: OpenStepsOptions,
  ) {}

  get stepCount(): number {
    return this.trajectory.length;
  }

  /** The history with messages `indices` read in full. */
  private async historyWith(indices: number[]): Promise<MessageList<HistoryItem>> {
    if (indices.length === 0) return this.history;
    const full = new Map<number, HistoryItem>();
    for (const h of indices) {
      full.set(h, parseInput(HistoryItemSchema, await readJsonRange(this.file, this.historyElements[h]!, this.options), this.file, ['history', h]));
    }
    return overlaid(this.history, full);
  }

  async step(index: number): Promise<Step> {
    const element = this.trajectory[index];
    if (!element) throw new InputError(this.file, undefined, `no step ${index + 1}: the trajectory has ${this.trajectory.length}`);
    const value = parseInput(TrajStepSchema, await readJsonRange(this.file, element, this.options), this.file, ['trajectory', index]);
    const h = this.paired[index];
    const history = h === undefined ? this.history : await this.historyWith(answersOf(this.history, h));
    return trajectoryStep(value, index, h, history, this.reading);
  }

  async lightSteps(): Promise<Step[]> {
    this.light ??= (async () => {
      const out: Step[] = [];
      for (const [index, element] of this.trajectory.entries()) {
        const value: Record<string, unknown> = { observation: '' };
        for (const [key, field] of element.fields) {
          if (key !== 'observation' && !MODEL_INPUTS.has(key)) value[key] = await readJsonRange(this.file, field, this.options);
        }
        const step = parseInput(TrajStepSchema, value, this.file, ['trajectory', index]);
        out.push(withoutObservations(trajectoryStep(step, index, this.paired[index], this.history, this.reading)));
      }
      return out;
    })();
    return this.light;
  }

  async rawRecords(step: Step): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const pointer of step.source?.pointers ?? []) {
      const match = /^\/(trajectory|history)\/(\d+)$/.exec(pointer);
      const element = match && (match[1] === 'trajectory' ? this.trajectory : this.historyElements)[Number(match[2])];
      out.push(element ? await readJsonRange(this.file, element, this.options) : undefined);
    }
    return out;
  }

  async steps(start: number, end: number): Promise<Step[]> {
    const out: Step[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.trajectory.length); i++) out.push(await this.step(i));
    return out;
  }

  /** The header, from the small values, the first steps and the preamble messages. */
  async readHeader(info: unknown): Promise<void> {
    // The first step must read; a fault in the next ones is left for when they are asked.
    const first = [await this.step(0)];
    for (let i = 1; i < Math.min(5, this.trajectory.length); i++) {
      const step = await this.step(i).catch((err: unknown) => {
        if (err instanceof InputError) return undefined;
        throw err;
      });
      if (!step) break;
      first.push(step);
    }
    const preamble: number[] = [];
    for (let h = 0; h < this.history.length && this.history[h]!.role !== 'assistant'; h++) if (!isDemo(this.history[h]!)) preamble.push(h);
    const history = await this.historyWith(preamble);
    const messages = messageArray(history);
    const stringState = this.trajectory.some((e) => e.fields.get('state')?.first === 0x22);
    this.header = runHeader(this.reading, parseInput(InfoSchema.nullish(), info, this.file, ['info']), messages, {
      workingDir: first[0]?.state?.workingDir,
      stringState,
      firstObservations: first.map((s) => s.observation),
      stepCount: this.trajectory.length,
    });
  }
}

/** Fields of a mini-swe-agent message that turns, the header and detection read, kept however long they are. */
const MESSAGE_FIELDS: ReadonlySet<string> = new Set(['role', 'tool_calls', 'tool_call_id', 'extra']);

/**
 * A mini-swe-agent run (its object form, or the legacy bare message list) read a turn at a time:
 * the messages stand in by their roles, tool calls and `extra` (and their text when small), which
 * give the turns and the header; a step reads its turn's messages in full. Its steps without
 * observations are its steps read once each (a follower's text may hold its exit code).
 */
class IndexedMiniSweAgent implements StepSource {
  readonly mode = 'indexed';
  readonly format = 'mini-swe-agent';
  header!: Omit<Trajectory, 'steps'>;
  private light: Promise<Step[]> | undefined;

  constructor(
    readonly file: string,
    private readonly elements: IndexedElement[],
    private readonly standIns: MiniSweAgentMessage[],
    private readonly turns: ChatTurn[],
    /** The messages' JSON path: `['messages']`, or `[]` for a bare list. */
    private readonly path: string[],
    private readonly options: OpenStepsOptions,
  ) {}

  get stepCount(): number {
    return this.turns.length;
  }

  /** The stand-ins with messages `indices` read in full. */
  async withMessages(indices: readonly number[]): Promise<MessageList<MiniSweAgentMessage>> {
    const full = new Map<number, MiniSweAgentMessage>();
    for (const m of indices) full.set(m, miniSweAgentMessage(await readJsonRange(this.file, this.elements[m]!, this.options), this.file, [...this.path, m]));
    return overlaid(this.standIns, full);
  }

  async step(index: number): Promise<Step> {
    const turn = this.turns[index];
    if (!turn) throw new InputError(this.file, undefined, `no step ${index + 1}: the trajectory has ${this.turns.length}`);
    const view = await this.withMessages([turn.at, ...turn.followers]);
    return chatStep(view, turn, index, this.path, { file: this.file, base: [] }, MINI_SWE_AGENT_HOOKS);
  }

  async steps(start: number, end: number): Promise<Step[]> {
    const out: Step[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.turns.length); i++) out.push(await this.step(i));
    return out;
  }

  async lightSteps(): Promise<Step[]> {
    this.light ??= (async () => {
      const out: Step[] = [];
      for (let i = 0; i < this.turns.length; i++) out.push(withoutObservations(await this.step(i)));
      return out;
    })();
    return this.light;
  }

  async rawRecords(step: Step): Promise<unknown[]> {
    const out: unknown[] = [];
    const prefix = this.path.length > 0 ? `/${this.path.join('/')}` : '';
    for (const pointer of step.source?.pointers ?? []) {
      const match = pointer.startsWith(`${prefix}/`) ? /^\d+$/.exec(pointer.slice(prefix.length + 1)) : null;
      const element = match ? this.elements[Number(match[0])] : undefined;
      out.push(element ? await readJsonRange(this.file, element, this.options) : undefined);
    }
    return out;
  }

  /** The header, from the run's values, the stand-ins, the preamble and the last two messages read in full. */
  async readHeader(run: Record<string, unknown> | undefined): Promise<void> {
    const { preamble } = turnsOf(this.standIns, MINI_SWE_AGENT_HOOKS.skip);
    const last = this.standIns.length - 1;
    const view = messageArray(await this.withMessages([...new Set([...preamble, ...[last - 1, last].filter((m) => m >= 0)])]));
    const { steps: _steps, ...header } = miniSweAgentTrajectory(miniSweAgentRunFacts(run, this.file), view, []);
    this.header = header;
  }
}

/** The messages of a run as plain values holding what the turns, the header and format detection read (an assistant's text in full, others' when small). */
async function messageValues(file: string, elements: IndexedElement[], options: OpenStepsOptions): Promise<Record<string, unknown>[]> {
  const values: Record<string, unknown>[] = [];
  for (const element of elements) {
    const value: Record<string, unknown> = {};
    for (const [key, field] of element.fields) {
      if (field.text !== undefined || MESSAGE_FIELDS.has(key)) value[key] = await readJsonRange(file, field, options);
    }
    const content = element.fields.get('content');
    if (content && !('content' in value)) value.content = value.role === 'assistant' ? await readJsonRange(file, content, options) : '';
    values.push(value);
  }
  return values;
}

/** Opens an indexed mini-swe-agent run from its messages' values (see `messageValues`); `run`: its other values, undefined for a bare list. */
async function openIndexedMini(
  file: string,
  elements: IndexedElement[],
  values: Record<string, unknown>[],
  run: Record<string, unknown> | undefined,
  options: OpenStepsOptions,
): Promise<StepSource> {
  const path = run ? ['messages'] : [];
  const standIns = values.map((value, m) => miniSweAgentMessage(value, file, [...path, m]));
  const { turns } = turnsOf(standIns, MINI_SWE_AGENT_HOOKS.skip);
  const source = new IndexedMiniSweAgent(file, elements, standIns, turns, path, options);
  await source.readHeader(run);
  return source;
}

/** Step 0 from its own text (see `onPreview`); undefined when it does not make a SWE-agent step, which the index then reports. */
function previewStep(text: string): Step | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const step = TrajStepSchema.safeParse(value);
  if (!step.success) return undefined;
  try {
    return trajectoryStep(step.data, 0, undefined, [], runReading({}, { file: '', base: [] }, []));
  } catch (err) {
    if (err instanceof InputError) return undefined;
    throw err;
  }
}

/** Opens an indexed SWE-agent run, or answers undefined when the file is another format (then loaded whole). */
async function openIndexed(file: string, options: OpenStepsOptions, preview: (step: Step | undefined) => void): Promise<StepSource | undefined> {
  const onElement = (array: string, i: number, _element: IndexedElement, text: string | undefined) => {
    if (array === 'trajectory' && i === 0 && text !== undefined) preview(previewStep(text));
  };
  const index = await indexJsonObject(file, {
    arrays: ['trajectory', 'history', 'messages', ''],
    limits: options.limits,
    signal: options.signal,
    onElement,
    elementText: (array, i) => options.onPreview !== undefined && array === 'trajectory' && i === 0,
  });
  preview(undefined);
  const list = index.arrays.get('');
  if (list) {
    // A bare message list, detected from the values of its messages, which hold what detection reads.
    const values = await messageValues(file, list, options);
    const format = options.format ?? detectFormat(values);
    return format === 'mini-swe-agent' && list.length > 0 ? openIndexedMini(file, list, values, undefined, options) : undefined;
  }
  const skeleton = await skeletonOf(index, options);
  const trajectory = index.arrays.get('trajectory');
  const format = options.format ?? detectFormat(skeleton);
  const messages = index.arrays.get('messages');
  if (format === 'mini-swe-agent' && messages && messages.length > 0) {
    const { messages: _messages, ...run } = skeleton;
    return openIndexedMini(file, messages, await messageValues(file, messages, options), run, options);
  }
  if (format !== 'swe-agent' || !trajectory || trajectory.length === 0) return undefined;
  const historyElements = index.arrays.get('history') ?? [];
  const history: HistoryItem[] = [];
  for (let h = 0; h < historyElements.length; h++) {
    const element = historyElements[h]!;
    const summary: Record<string, unknown> = {};
    for (const [key, field] of element.fields) {
      if (field.text !== undefined || (HISTORY_FIELDS as readonly string[]).includes(key)) summary[key] = await readJsonRange(file, field, options);
    }
    history.push(parseInput(HistoryItemSchema, summary, file, ['history', h]));
  }
  const actions: Array<{ action: string }> = [];
  for (let i = 0; i < trajectory.length; i++) {
    const action = await fieldValue(file, trajectory[i]!, 'action', options);
    if (typeof action !== 'string') throw new InputError(file, jsonPath(['trajectory', i, 'action']), `expected a string, got ${describeJsonType(action)}`);
    actions.push({ action });
  }
  const reading = runReading({ replay_config: skeleton.replay_config as string | Record<string, unknown> | null | undefined }, { file, base: [] }, []);
  const source = new IndexedSweAgent(file, trajectory, historyElements, history, pairWithHistory(actions, history), reading, options);
  await source.readHeader(skeleton.info);
  return source;
}

/** A trajectory parsed whole, as a step source. @internal */
export function stepSourceOf(loaded: LoadedTrajectory): StepSource {
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
 * Opens `file`'s steps: indexed when it is a plain file of at least `indexFromBytes` holding a
 * SWE-agent run with a `trajectory` array or a mini-swe-agent run, else parsed whole. The one
 * place that decides.
 */
export async function openSteps(file: string, options: OpenStepsOptions = {}): Promise<StepSource> {
  const threshold = options.indexFromBytes ?? INDEX_FROM_BYTES;
  const plainJson = !/\.jsonl$/i.test(withoutCompressionSuffix(basename(file))) && options.record === undefined;
  // A pipe is not opened here (that would take its bytes), nor a small file read twice.
  const info = plainJson ? await stat(file).catch(() => undefined) : undefined;
  // `onPreview` is called once: with the first step, or with undefined as soon as none will come.
  let previewed = false;
  const preview = (step: Step | undefined) => {
    if (previewed) return;
    previewed = true;
    options.onPreview?.(step);
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
