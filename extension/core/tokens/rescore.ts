/**
 * Re-scoring a recording: each agent step's sampled tokens scored again by a server (the
 * trainer's side) and compared with the logprobs the engine recorded, and each step's prompt ids
 * compared with the conversation re-tokenized by the server's chat template (drift). A step the
 * server cannot answer, or whose recording lacks what is needed, says why; it is never counted
 * as agreeing.
 */
import { CancelledError, errorText } from '../errors';
import type { Step, Trajectory } from '../trajectory/model';
import {
  DEFAULT_BOUNDS,
  EMPTY_TOTALS,
  addTotals,
  compareToken,
  summarize,
  totalsOf,
  worstTokens,
  type Bounds,
  type TokenComparison,
  type TokenSummary,
  type TokenTotals,
} from './compare';
import { conversations, isAgentStep, type Conversation } from './conversation';
import type { TokenServer } from './tokenServer';

interface RescoreOptions {
  bounds?: Bounds;
  /** How many of the worst tokens each step, rollout and run lists. Default 10. */
  worst?: number;
  /** Re-tokenize each step's conversation too (three more requests when it drifts). Default true. */
  drift?: boolean;
  /** Tokens of decoded text shown on each side of a drift. Default 8. */
  driftContext?: number;
  signal?: AbortSignal;
}

type DriftReport =
  | { status: 'same' }
  /**
   * `position`: 0-based, in the recorded prompt ids; the texts are decoded around it on both sides,
   * an extra: null with `textUnknown` saying why when the server cannot decode (SGLang has no
   * `/detokenize`), for the position is the fact.
   */
  | {
      status: 'differs';
      position: number;
      recordedText: string | null;
      retokenizedText: string | null;
      textUnknown?: string;
      recordedLength: number;
      retokenizedLength: number;
    }
  | { status: 'unknown'; reason: string };

export interface StepReport {
  /** Agent steps counted from 0 (a system or user message kept as a step is not one). */
  index: number;
  /** The step's position in the recording's steps. */
  stepIndex: number;
  /** Undefined when the step was not re-scored (`error` says why). */
  totals?: TokenTotals;
  worst: TokenComparison[];
  error?: string;
  drift: DriftReport;
}

export interface WorstToken extends TokenComparison {
  /** The agent step (0-based) it belongs to. */
  step: number;
}

export interface RolloutReport {
  steps: StepReport[];
  totals: TokenTotals;
  summary: TokenSummary;
  worst: WorstToken[];
  /** Steps not re-scored. */
  errors: number;
  drifted: number;
  /** Steps whose drift could not be checked. */
  driftUnknown: number;
}

/** At most `n` tasks at once, in the order asked. */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`requests in flight must be a whole number of at least 1, not ${n}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

function rescoreInput(step: Step): { prompt: number[]; completion: number[]; recorded: number[]; texts: Array<string | undefined> } | string {
  const completion = step.tokenIds?.completion;
  if (!completion)
    return step.logprobs ? 'the recording keeps logprobs but no completion token ids: cannot re-score' : 'the recording keeps no token ids: cannot re-score';
  const prompt = step.tokenIds?.prompt;
  if (!prompt) return 'the recording keeps no prompt token ids: cannot re-score the completion without the prompt it followed';
  if (prompt.length === 0) return 'the recorded prompt is empty: the first completion token has no context to be scored in';
  if (!step.logprobs) return 'the recording keeps no logprobs for this step: nothing to compare with';
  if (step.logprobs.length !== completion.length)
    return `the recording keeps ${step.logprobs.length} logprobs for ${completion.length} completion token ids: they do not line up`;
  return {
    prompt,
    completion,
    recorded: step.logprobs.map((l) => l.logprob),
    texts: step.logprobs.map((l, i) => (l.token === String(completion[i]) ? undefined : l.token)),
  };
}

async function rescoreStep(
  step: Step,
  server: TokenServer,
  limiter: Limiter,
  bounds: Bounds,
  worst: number,
  signal: AbortSignal | undefined,
): Promise<Pick<StepReport, 'totals' | 'worst' | 'error'>> {
  const input = rescoreInput(step);
  if (typeof input === 'string') return { worst: [], error: input };
  const { prompt, completion, recorded, texts } = input;
  let rescored: number[];
  try {
    rescored = await limiter.run(() => server.score([...prompt, ...completion], prompt.length, signal));
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    return { worst: [], error: errorText(err) };
  }
  const tokens = completion.map((id, i) => compareToken(i, id, recorded[i]!, rescored[i]!, bounds, texts[i]));
  // A token both sides agree on is not among the worst, however few disagree.
  return { totals: totalsOf(tokens), worst: worstTokens([tokens.filter((t) => t.diff !== 0)], worst) };
}

function firstDifference(a: readonly number[], b: readonly number[]): number | undefined {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? undefined : n;
}

async function driftOf(
  step: Step,
  conversation: Conversation,
  server: TokenServer,
  limiter: Limiter,
  context: number,
  signal: AbortSignal | undefined,
): Promise<DriftReport> {
  const recorded = step.tokenIds?.prompt;
  if (!recorded) return { status: 'unknown', reason: 'drift cannot be checked: the recording keeps text only, not the prompt token ids the engine saw' };
  if ('unknown' in conversation) return { status: 'unknown', reason: `drift cannot be checked: ${conversation.unknown}` };
  let retokenized: number[];
  try {
    retokenized = await limiter.run(() => server.tokenizeChat(conversation.messages, signal));
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    return { status: 'unknown', reason: `drift could not be checked: ${errorText(err)}` };
  }
  const position = firstDifference(recorded, retokenized);
  if (position === undefined) return { status: 'same' };
  const lengths = { recordedLength: recorded.length, retokenizedLength: retokenized.length };
  const around = (ids: readonly number[]) => ids.slice(Math.max(0, position - context), position + context);
  try {
    const [recordedText, retokenizedText] = await Promise.all([
      limiter.run(() => server.detokenize(around(recorded), signal)),
      limiter.run(() => server.detokenize(around(retokenized), signal)),
    ]);
    return { status: 'differs', position, recordedText, retokenizedText, ...lengths };
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    // The drift is found; only the text around it is missing, which never erases the position.
    return {
      status: 'differs',
      position,
      recordedText: null,
      retokenizedText: null,
      textUnknown: `the text around it cannot be decoded: ${errorText(err)}`,
      ...lengths,
    };
  }
}

/** Re-scores every agent step of one recording, the requests through `limiter`. */
async function rescoreTrajectory(trajectory: Trajectory, server: TokenServer, options: RescoreOptions = {}, limiter = new Limiter(4)): Promise<RolloutReport> {
  const bounds = options.bounds ?? DEFAULT_BOUNDS;
  const worst = options.worst ?? 10;
  const conversationAt = conversations(trajectory);
  const agentSteps = trajectory.steps.flatMap((step, position) => (isAgentStep(step) ? [{ step, position }] : []));
  const steps = await Promise.all(
    agentSteps.map(async ({ step, position }, index): Promise<StepReport> => {
      const [scored, drift] = await Promise.all([
        rescoreStep(step, server, limiter, bounds, worst, options.signal),
        options.drift === false
          ? Promise.resolve<DriftReport>({ status: 'unknown', reason: 'drift not checked (asked not to)' })
          : driftOf(step, conversationAt(position), server, limiter, options.driftContext ?? 8, options.signal),
      ]);
      return { index, stepIndex: position, ...scored, drift };
    }),
  );
  return rolloutReport(steps, worst);
}

function rolloutReport(steps: StepReport[], worst: number): RolloutReport {
  const totals = steps.reduce((t, s) => (s.totals ? addTotals(t, s.totals) : t), EMPTY_TOTALS);
  return {
    steps,
    totals,
    summary: summarize(totals),
    worst: worstTokens(
      steps.map((s) => s.worst.map((w) => ({ ...w, step: s.index }))),
      worst,
    ),
    errors: steps.filter((s) => s.error !== undefined).length,
    drifted: steps.filter((s) => s.drift.status === 'differs').length,
    driftUnknown: steps.filter((s) => s.drift.status === 'unknown').length,
  };
}

export interface RunReport {
  rollouts: number;
  /** Rollouts that could not be read. */
  unreadable: number;
  steps: number;
  totals: TokenTotals;
  summary: TokenSummary;
  worst: Array<WorstToken & { rollout: string }>;
  errors: number;
  drifted: number;
  driftUnknown: number;
}

export interface RunOptions extends RescoreOptions {
  /** Requests in flight across the whole run. Default 4. */
  inFlight?: number;
  /** Told of each rollout as it is done, in the order they finish (for printing as it goes). */
  onRollout?: (name: string, report: RolloutReport | { error: string }) => void;
}

/** One rollout of a run as it was re-scored, or why it could not be read. */
export interface RolloutOutcome {
  name: string;
  report: RolloutReport | { error: string };
}

/**
 * Re-scores many rollouts with at most `inFlight` requests at once; a rollout is loaded only when
 * a request slot may soon be free, so memory holds a few rollouts at a time, not the run. Returns
 * each rollout's outcome in the order of `names` (a Slurm task returns these for its shard).
 */
export async function rescoreRollouts(
  names: readonly string[],
  load: (name: string) => Promise<Trajectory>,
  server: TokenServer,
  options: RunOptions = {},
): Promise<RolloutOutcome[]> {
  const inFlight = options.inFlight ?? 4;
  const limiter = new Limiter(inFlight);
  const outcomes: RolloutOutcome[] = new Array<RolloutOutcome>(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const at = next++;
      const name = names[at]!;
      let report: RolloutReport;
      try {
        report = await rescoreTrajectory(await load(name), server, options, limiter);
      } catch (err) {
        if (err instanceof CancelledError) throw err;
        outcomes[at] = { name, report: { error: errorText(err) } };
        options.onRollout?.(name, outcomes[at].report);
        continue;
      }
      outcomes[at] = { name, report };
      options.onRollout?.(name, report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, names.length) }, worker));
  return outcomes;
}

/**
 * The run's figures from its rollouts' outcomes, summed in the order given (the folder's), never
 * in the order they finished: a local run and a Slurm array's merged shards give the same bytes.
 * The run's worst tokens of a recording of ids only get their text from the server's /detokenize.
 */
export async function runReport(outcomes: readonly RolloutOutcome[], server: TokenServer, options: RunOptions = {}): Promise<RunReport> {
  const limiter = new Limiter(options.inFlight ?? 4);
  let totals = EMPTY_TOTALS;
  let rollouts = 0;
  let steps = 0;
  let errors = 0;
  let drifted = 0;
  let driftUnknown = 0;
  const worstLists: Array<Array<WorstToken & { rollout: string }>> = [];
  for (const { name, report } of outcomes) {
    if ('error' in report) continue;
    rollouts++;
    steps += report.steps.length;
    totals = addTotals(totals, report.totals);
    errors += report.errors;
    drifted += report.drifted;
    driftUnknown += report.driftUnknown;
    worstLists.push(report.worst.map((w) => ({ ...w, rollout: name })));
  }
  const worst = await Promise.all(
    worstTokens(worstLists, options.worst ?? 10).map((w) => (w.text !== undefined ? w : withDecodedText(w, server, limiter, options.signal))),
  );
  return { rollouts, unreadable: outcomes.length - rollouts, steps, totals, summary: summarize(totals), worst, errors, drifted, driftUnknown };
}

/** A recording of ids only: the worst tokens' text from the server's `/detokenize`, left unknown if it cannot say. */
async function withDecodedText<T extends WorstToken>(w: T, server: TokenServer, limiter: Limiter, signal: AbortSignal | undefined): Promise<T> {
  try {
    return { ...w, text: await limiter.run(() => server.detokenize([w.id], signal)) };
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    return w;
  }
}
