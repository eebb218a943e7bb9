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
  'patchDigest',
  'evaluation',
  'prediction',
  'critical',
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

type Table = keyof Omit<RowsSection, 'strings'>;

/**
 * The rows' columns one at a time, the rows' table first (its evaluation and prediction columns
 * list the shared objects the next two tables describe), and last the strings they index.
 */
function* columns(rollouts: readonly Rollout[]): Generator<{ table: Table; column: string; cells: Array<number | null> } | { strings: string[] }> {
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
  // JSON null is the number columns' undefined.
  const num = (n: number | undefined) => (n === undefined ? null : n);
  const flag = (b: boolean | null | undefined) => (b === undefined ? -1 : b === null ? null : b ? 1 : 0);
  // Rows share their tags and evidence (the join and decodeRows give equal ones one object):
  // each is written once by identity, not turned into a JSON text per row and looked up.
  const jsonIndex = new Map<unknown, number>();
  const json = (v: unknown) => {
    if (v === undefined) return -1;
    let i = jsonIndex.get(v);
    if (i === undefined) {
      i = str(JSON.stringify(v));
      jsonIndex.set(v, i);
    }
    return i;
  };
  const evaluations: Evaluation[] = [];
  const predictions: Prediction[] = [];
  const evaluationIndex = new Map<Evaluation, number>();
  const predictionIndex = new Map<Prediction, number>();
  const shared = <T>(list: T[], index: Map<T, number>, value: T | undefined) => {
    if (value === undefined) return -1;
    let i = index.get(value);
    if (i === undefined) {
      i = list.length;
      list.push(value);
      index.set(value, i);
    }
    return i;
  };
  const rowCells: Record<RowColumn, (r: Rollout) => number | null> = {
    id: (r) => str(r.id),
    path: (r) => str(r.path),
    line: (r) => num(r.line),
    instance: (r) => str(r.instance),
    instanceSource: (r) => str(r.instanceSource),
    attempt: (r) => r.attempt,
    attemptSource: (r) => str(r.attemptSource),
    format: (r) => str(r.format),
    steps: (r) => r.steps,
    exitStatus: (r) => str(r.exitStatus),
    resolved: (r) => flag(r.resolved),
    reward: (r) => num(r.reward),
    failure: (r) => str(r.failure),
    tags: (r) => json(r.tags),
    evidence: (r) => json(r.evidence),
    tokens: (r) => num(r.tokens),
    cost: (r) => num(r.cost),
    duration: (r) => num(r.duration),
    submitted: (r) => flag(r.submitted),
    patchDigest: (r) => str(r.patchDigest),
    evaluation: (r) => shared(evaluations, evaluationIndex, r.evaluation),
    prediction: (r) => shared(predictions, predictionIndex, r.prediction),
    critical: (r) => json(r.critical),
  };
  const evaluationCells: Record<EvaluationColumn, (e: Evaluation) => number | null> = {
    instanceId: (e) => str(e.instanceId),
    file: (e) => str(e.file),
    source: (e) => str(e.source),
    resolved: (e) => flag(e.resolved),
    patchExists: (e) => flag(e.patchExists),
    patchApplied: (e) => flag(e.patchApplied),
    failingTests: (e) => json(e.failingTests),
    error: (e) => str(e.error),
    infra: (e) => flag(e.infra),
    reward: (e) => num(e.reward),
    agent: (e) => str(e.agent),
  };
  const predictionCells: Record<PredictionColumn, (p: Prediction) => number | null> = {
    instanceId: (p) => str(p.instanceId),
    file: (p) => str(p.file),
    line: (p) => num(p.line),
    model: (p) => str(p.model),
    patchChars: (p) => p.patchChars,
  };
  function* table<T>(name: Table, items: readonly T[], cells: Record<string, (item: T) => number | null>) {
    for (const [column, cell] of Object.entries(cells)) yield { table: name, column, cells: items.map(cell) };
  }
  yield* table('rows', rollouts, rowCells);
  yield* table('evaluations', evaluations, evaluationCells);
  yield* table('predictions', predictions, predictionCells);
  yield { strings };
}

/** Strings written per piece of the rows' JSON text. */
const STRINGS_PER_PIECE = 4096;

/**
 * The rows' part of the cache as JSON text, a column at a time: the rows held by columns at once
 * were a cold index's largest allocation after the rows themselves. Parses to a RowsSection.
 */
export function* rowsJson(rollouts: readonly Rollout[]): Generator<string> {
  let open: Table | undefined;
  for (const part of columns(rollouts)) {
    if ('strings' in part) {
      // In pieces: one JSON text of 100,000 rows' strings was 20 MB, and its bytes as much again.
      yield '},"strings":[';
      for (let i = 0; i < part.strings.length; i += STRINGS_PER_PIECE) {
        const piece = JSON.stringify(part.strings.slice(i, i + STRINGS_PER_PIECE));
        yield `${i > 0 ? ',' : ''}${piece.slice(1, -1)}`;
      }
      yield ']}';
      break;
    }
    const first = open !== part.table;
    if (first) yield `${open === undefined ? '{' : '},'}${JSON.stringify(part.table)}:{`;
    open = part.table;
    yield `${first ? '' : ','}${JSON.stringify(part.column)}:${JSON.stringify(part.cells)}`;
  }
}

/**
 * The rows as a RowsSection object: how the index worker sends them to the host. Cloned row by
 * row, each repeated string and each shared evaluation crossed the thread once per row, and the
 * host held 100,000 rows in three times the memory the worker did.
 */
export function encodeRows(rollouts: readonly Rollout[]): RowsSection {
  const section = { rows: {}, evaluations: {}, predictions: {} } as Record<Table, Record<string, unknown>>;
  for (const part of columns(rollouts)) {
    if ('strings' in part) return { ...(section as unknown as Omit<RowsSection, 'strings'>), strings: part.strings };
    section[part.table][part.column] = part.cells;
  }
  throw new Error('internal: the row columns ended without their strings');
}

/** The rows `encodeRows` was given, equal member for member (an absent optional member stays absent). */
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
      patchDigest: str(c.patchDigest[i]!),
      evaluation: c.evaluation[i]! < 0 ? undefined : evaluations[c.evaluation[i]!],
      prediction: c.prediction[i]! < 0 ? undefined : predictions[c.prediction[i]!],
      critical: c.critical[i]! < 0 ? undefined : json<Rollout['critical']>(c.critical[i]!),
    };
  }
  return out;
}
