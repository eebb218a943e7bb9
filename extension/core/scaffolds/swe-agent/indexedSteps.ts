/**
 * A large SWE-agent `.traj` read a step at a time (`core/trajectory/stepSource.ts`): every
 * observation is written twice, in `trajectory[]` and `history[]`, so such a file reaches hundreds
 * of megabytes. The history stands in by the fields pairing and actions read; a step reads its
 * `trajectory` element and the history messages that answer it, with the importer's own functions.
 */
import { InputError, jsonPath } from '../../errors';
import { readJsonRange, type IndexedElement, type JsonIndex } from '../../input/jsonIndex';
import { messageArray, overlaid, type MessageList } from '../../trajectory/chatSteps';
import { describeJsonType, parseInput } from '../../trajectory/inputSchema';
import type { Step, Trajectory } from '../../trajectory/model';
import { withoutObservations, type IndexedReading, type OpenStepsOptions, type StepSource } from '../../trajectory/stepSource';
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
} from './trajImporter';

/** The model inputs a step keeps for its raw record (megabytes each), which no step reads. */
const MODEL_INPUTS: ReadonlySet<string> = new Set(['query', 'messages']);

/** Fields of a history message that pairing and a step's action read, kept however long they are. */
const HISTORY_FIELDS = ['role', 'action', 'tool_calls', 'tool_call_ids', 'is_demo', 'message_type', 'agent'] as const;

async function fieldValue(file: string, element: IndexedElement, key: string, options: OpenStepsOptions): Promise<unknown> {
  const field = element.fields.get(key);
  return field === undefined ? undefined : readJsonRange(file, field, options);
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

/** Opens an indexed SWE-agent run detected from its top-level values, or answers undefined when it has no `trajectory` steps (then loaded whole). */
async function openIndexedSweAgent(
  index: JsonIndex,
  skeleton: Record<string, unknown> | undefined,
  options: OpenStepsOptions,
): Promise<StepSource | undefined> {
  const file = index.file;
  const trajectory = index.arrays.get('trajectory');
  if (!skeleton || !trajectory || trajectory.length === 0) return undefined;
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

export const sweAgentIndexedSteps: IndexedReading = {
  arrays: ['trajectory', 'history'],
  // A `replay_config` holds the whole problem statement.
  runFields: ['replay_config', 'info'],
  preview: { array: 'trajectory', step: previewStep },
  open: openIndexedSweAgent,
};
