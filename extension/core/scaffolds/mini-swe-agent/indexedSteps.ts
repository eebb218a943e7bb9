/**
 * A large mini-swe-agent run (its object form, or the legacy bare message list) read a turn at a
 * time (`core/trajectory/stepSource.ts`).
 */
import { readJsonRange, type IndexedElement, type JsonIndex } from '../../input/jsonIndex';
import { chatStep, messageArray, overlaid, turnsOf, type ChatTurn, type MessageList } from '../../trajectory/chatSteps';
import { detectFormat } from '../../trajectory/detectFormat';
import { InputError } from '../../errors';
import type { Step, Trajectory } from '../../trajectory/model';
import { withoutObservations, type IndexedReading, type OpenStepsOptions, type StepSource } from '../../trajectory/stepSource';
import { MINI_SWE_AGENT_HOOKS, miniSweAgentMessage, miniSweAgentRunFacts, miniSweAgentTrajectory, type MiniSweAgentMessage } from './importer';

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

/** Opens a bare message list detected as mini-swe-agent's, or a run object's `messages`; undefined for anything else. */
async function openIndexedMiniSweAgent(
  index: JsonIndex,
  skeleton: Record<string, unknown> | undefined,
  options: OpenStepsOptions,
): Promise<StepSource | undefined> {
  const file = index.file;
  if (skeleton === undefined) {
    // A bare message list, detected from the values of its messages, which hold what detection reads.
    const list = index.arrays.get('') ?? [];
    const values = await messageValues(file, list, options);
    const format = options.format ?? detectFormat(values);
    return format === 'mini-swe-agent' && list.length > 0 ? openIndexedMini(file, list, values, undefined, options) : undefined;
  }
  const messages = index.arrays.get('messages');
  if (!messages || messages.length === 0) return undefined;
  const { messages: _messages, ...run } = skeleton;
  return openIndexedMini(file, messages, await messageValues(file, messages, options), run, options);
}

export const miniSweAgentIndexedSteps: IndexedReading = {
  arrays: ['messages', ''],
  runFields: ['info', 'trajectory_format'],
  open: openIndexedMiniSweAgent,
};
