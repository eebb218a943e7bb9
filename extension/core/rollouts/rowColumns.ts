import type { Evaluation, Evidence, FailureClass, Prediction, Rollout } from './record';

/**
 * The index's rows as the cache keeps them: by column, each repeated string once. Parsing one
 * JSON text per row was most of a warm index of 100,000 rollouts (1 s of its 2.4 s); columns of
 * small numbers parse several times faster, and the rows are built back by literals of one
 * shape, which V8 makes as fast as it makes any object.
 *
 * Cell codes: a string column holds an index into `strings` (-1 for undefined); a number column
 * the number (null for undefined); a flag column 1, 0, null for null and -1 for absent; a JSON
 * column an index into `strings` of the value's JSON text. An evaluation or prediction object
 * shared by several rows (the join gives each instance's report to all its attempts) is kept
 * once and shared again.
 */
export interface RowsSection {
  strings: string[];
  rows: Record<RowColumn, number[]>;
  evaluations: Record<EvaluationColumn, number[]>;
  predictions: Record<PredictionColumn, number[]>;
}

const ROW_COLUMNS = [
  'id',
  'path',
  'line',
  'instance',
  'instanceSource',
  'attempt',
  'attemptSource',
  'format',
  'steps',
  'exitStatus',
  'resolved',
  'reward',
  'failure',
  'tags',
  'evidence',
  'tokens',
  'cost',
  'duration',
  'submitted',
  'evaluation',
  'prediction',
] as const;
type RowColumn = (typeof ROW_COLUMNS)[number];

const EVALUATION_COLUMNS = [
  'instanceId',
  'file',
  'source',
  'resolved',
  'patchExists',
  'patchApplied',
  'failingTests',
  'error',
  'infra',
  'reward',
  'agent',
] as const;
type EvaluationColumn = (typeof EVALUATION_COLUMNS)[number];

const PREDICTION_COLUMNS = ['instanceId', 'file', 'line', 'model', 'patchChars'] as const;
type PredictionColumn = (typeof PREDICTION_COLUMNS)[number];

const columns = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;

/** @internal */
export function encodeRows(rollouts: readonly Rollout[]): RowsSection {
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const str = (s: string | undefined): number => {
    if (s === undefined) return -1;
    let i = stringIndex.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      stringIndex.set(s, i);
    }
    return i;
  };
  // JSON null is the number columns' undefined; the cast keeps the columns one type.
  const num = (n: number | undefined) => (n === undefined ? null : n) as number;
  const flag = (b: boolean | null | undefined) => (b === undefined ? -1 : b === null ? (null as unknown as number) : b ? 1 : 0);
  const json = (v: unknown) => (v === undefined ? -1 : str(JSON.stringify(v)));
  const rows = columns(ROW_COLUMNS);
  const evaluations = columns(EVALUATION_COLUMNS);
  const predictions = columns(PREDICTION_COLUMNS);
  const evaluationIndex = new Map<Evaluation, number>();
  const predictionIndex = new Map<Prediction, number>();
  const evaluation = (e: Evaluation | undefined): number => {
    if (!e) return -1;
    let i = evaluationIndex.get(e);
    if (i !== undefined) return i;
    i = evaluationIndex.size;
    evaluationIndex.set(e, i);
    const c = evaluations;
    c.instanceId.push(str(e.instanceId));
    c.file.push(str(e.file));
    c.source.push(str(e.source));
    c.resolved.push(flag(e.resolved));
    c.patchExists.push(flag(e.patchExists));
    c.patchApplied.push(flag(e.patchApplied));
    c.failingTests.push(json(e.failingTests));
    c.error.push(str(e.error));
    c.infra.push(flag(e.infra));
    c.reward.push(num(e.reward));
    c.agent.push(str(e.agent));
    return i;
  };
  const prediction = (p: Prediction | undefined): number => {
    if (!p) return -1;
    let i = predictionIndex.get(p);
    if (i !== undefined) return i;
    i = predictionIndex.size;
    predictionIndex.set(p, i);
    const c = predictions;
    c.instanceId.push(str(p.instanceId));
    c.file.push(str(p.file));
    c.line.push(num(p.line));
    c.model.push(str(p.model));
    c.patchChars.push(p.patchChars);
    return i;
  };
  for (const r of rollouts) {
    const c = rows;
    c.id.push(str(r.id));
    c.path.push(str(r.path));
    c.line.push(num(r.line));
    c.instance.push(str(r.instance));
    c.instanceSource.push(str(r.instanceSource));
    c.attempt.push(r.attempt);
    c.attemptSource.push(str(r.attemptSource));
    c.format.push(str(r.format));
    c.steps.push(r.steps);
    c.exitStatus.push(str(r.exitStatus));
    c.resolved.push(flag(r.resolved));
    c.reward.push(num(r.reward));
    c.failure.push(str(r.failure));
    c.tags.push(json(r.tags));
    c.evidence.push(json(r.evidence));
    c.tokens.push(num(r.tokens));
    c.cost.push(num(r.cost));
    c.duration.push(num(r.duration));
    c.submitted.push(flag(r.submitted));
    c.evaluation.push(evaluation(r.evaluation));
    c.prediction.push(prediction(r.prediction));
  }
  return { strings, rows, evaluations, predictions };
}

/** The section's JSON text in pieces of a column each: the whole is a string the size of the rows' part of the cache. */
export function* rowsJson(section: RowsSection): Generator<string> {
  for (const table of ['rows', 'evaluations', 'predictions'] as const) {
    const columns = Object.entries(section[table]);
    yield `${table === 'rows' ? '{' : ','}${JSON.stringify(table)}:{`;
    for (const [i, [name, values]] of columns.entries()) yield `${i > 0 ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(values)}`;
    yield '}';
  }
  yield `,"strings":${JSON.stringify(section.strings)}}`;
}

/** The rows `encodeRows` was given, equal member for member (an absent optional member stays absent). @internal */
export function decodeRows(section: RowsSection): Rollout[] {
  const { strings } = section;
  const parsed = new Map<number, unknown>();
  // A JSON cell is parsed once per distinct value; rows with the same tags or evidence share it, as they share an evaluation.
  const json = <T>(i: number): T => {
    let v = parsed.get(i);
    if (v === undefined) {
      v = JSON.parse(strings[i]!);
      parsed.set(i, v);
    }
    return v as T;
  };
  const str = (i: number) => (i < 0 ? undefined : strings[i]);
  const num = (n: number | null) => (n === null ? undefined : n);
  const flag = (n: number | null) => (n === null ? null : n === 1);
  const e = section.evaluations;
  const evaluations: Evaluation[] = e.instanceId.map((_, i) => {
    const ev: Evaluation = {
      instanceId: strings[e.instanceId[i]!]!,
      file: strings[e.file[i]!]!,
      source: strings[e.source[i]!] as Evaluation['source'],
      failingTests: [...json<string[]>(e.failingTests[i]!)],
    };
    if (e.resolved[i] !== -1) ev.resolved = e.resolved[i] === 1;
    if (e.patchExists[i] !== -1) ev.patchExists = e.patchExists[i] === 1;
    if (e.patchApplied[i] !== -1) ev.patchApplied = e.patchApplied[i] === 1;
    if (e.error[i] !== -1) ev.error = strings[e.error[i]!]!;
    if (e.infra[i] !== -1) ev.infra = e.infra[i] === 1;
    if (e.reward[i] !== null) ev.reward = e.reward[i]!;
    if (e.agent[i] !== -1) ev.agent = strings[e.agent[i]!]!;
    return ev;
  });
  const p = section.predictions;
  const predictions: Prediction[] = p.instanceId.map((_, i) => {
    const pr: Prediction = { instanceId: strings[p.instanceId[i]!]!, file: strings[p.file[i]!]!, patchChars: p.patchChars[i]! };
    if (p.line[i] !== null) pr.line = p.line[i]!;
    if (p.model[i] !== -1) pr.model = strings[p.model[i]!]!;
    return pr;
  });
  const c = section.rows;
  const out: Rollout[] = new Array<Rollout>(c.id.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      id: strings[c.id[i]!]!,
      path: strings[c.path[i]!]!,
      line: num(c.line[i]!),
      instance: strings[c.instance[i]!]!,
      instanceSource: strings[c.instanceSource[i]!] as Rollout['instanceSource'],
      attempt: c.attempt[i]!,
      attemptSource: strings[c.attemptSource[i]!] as Rollout['attemptSource'],
      format: strings[c.format[i]!] as Rollout['format'],
      steps: c.steps[i]!,
      exitStatus: str(c.exitStatus[i]!),
      resolved: flag(c.resolved[i]!),
      reward: num(c.reward[i]!),
      failure: strings[c.failure[i]!] as FailureClass,
      tags: json<FailureClass[]>(c.tags[i]!),
      evidence: json<Evidence>(c.evidence[i]!),
      tokens: num(c.tokens[i]!),
      cost: num(c.cost[i]!),
      duration: num(c.duration[i]!),
      submitted: flag(c.submitted[i]!),
      evaluation: c.evaluation[i]! < 0 ? undefined : evaluations[c.evaluation[i]!],
      prediction: c.prediction[i]! < 0 ? undefined : predictions[c.prediction[i]!],
    };
  }
  return out;
}
