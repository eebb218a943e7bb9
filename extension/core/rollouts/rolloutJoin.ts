import { posix } from 'node:path';
import { recordingOfBranchIndex, type CriticalStep } from './branchIndex';
import type { FileEntry } from './fileEntry';
import { classifyRollout } from './failureTaxonomy';
import type { AttemptSource, Evaluation, Evidence, FailureClass, Prediction, Rollout, TrajectoryFacts } from './record';

/**
 * Joins trajectories with predictions and evaluation reports by instance id, and numbers the
 * attempts of each instance.
 *
 * Which report or preds file belongs to a trajectory: the one whose scope folder is the
 * deepest ancestor of the trajectory's folder. A preds file's scope is its folder. A report's
 * scope is the folder holding the harness's log tree (the part of its path before `logs/` or
 * `run_evaluation/`), else its folder, or that folder's parent when the folder is named after
 * the instance. So `attempt_2/logs/run_evaluation/r/m/<id>/report.json` applies to
 * `attempt_2/**` and never to `attempt_1/**`. At equal depth a per-instance report beats a run
 * report.
 */
export function joinRollouts(entries: Iterable<FileEntry>): Rollout[] {
  const reports: RunReports[] = [];
  const trajectories: Array<PlacedFacts | undefined> = [];
  for (const e of entries) {
    // The lists, not the entry: the entry's facts go once their rows are made.
    reports.push(
      e.branch
        ? { path: e.path, evaluations: e.evaluations, predictions: e.predictions, branch: e.branch }
        : { evaluations: e.evaluations, predictions: e.predictions },
    );
    for (const facts of e.trajectories) trajectories.push({ path: e.path, facts });
  }
  return joinReported(reports, taken(trajectories));
}

/**
 * What the join needs of every file before any row is made: the predictions and evaluations in
 * it, and a branch run's index with its path (it names the recording).
 */
export type RunReports = Pick<FileEntry, 'evaluations' | 'predictions'> & { path?: string; branch?: FileEntry['branch'] };

/** A trajectory's facts and the file they were read from. */
export interface PlacedFacts {
  path: string;
  facts: TrajectoryFacts;
}

/**
 * The join over a run's reports, every file's, and its trajectories, taken one at a time: each
 * trajectory's facts can be let go once its row is made, and a cold index reads them back one
 * file at a time from where it wrote them (`rolloutIndex.ts`), so they never stand beside the rows.
 */
export function joinReported(reports: Iterable<RunReports>, trajectories: Iterable<PlacedFacts>): Rollout[] {
  const evaluations = new Map<string, Array<Scoped<Evaluation>>>();
  const predictions = new Map<string, Array<Scoped<Prediction>>>();
  // A Harbor trial's result names the task of every trajectory in its trial folder.
  const harborTrials: Array<Scoped<Evaluation>> = [];
  // Each branched recording's critical step, by the recording's path.
  const branched = new Map<string, CriticalStep | null>();
  const share = sharing();
  for (const e of reports) {
    const recording = e.branch && e.path !== undefined ? recordingOfBranchIndex(e.path) : undefined;
    if (recording !== undefined) branched.set(recording, e.branch!.critical);
    shareReportStrings(e, share.string);
    for (const ev of e.evaluations) {
      const scope = share.string(ev.source === 'harbor-trial' ? posix.dirname(ev.file) : reportScope(ev.file, ev.instanceId));
      const s = scoped(ev, scope, ev.source === 'run-report' ? 0 : 1);
      push(evaluations, ev.instanceId, s);
      if (ev.source === 'harbor-trial') harborTrials.push(s);
    }
    for (const p of e.predictions) {
      push(predictions, p.instanceId, scoped(p, share.string(posix.dirname(p.file)), 0));
    }
  }
  const known = new Set([...evaluations.keys(), ...predictions.keys()]);
  const rollouts: Array<{ rollout: Rollout; explicit: { n: number; source: AttemptSource } | undefined }> = [];
  for (const { path, facts } of trajectories) {
    const folder = posix.dirname(path);
    const trial = nearest(harborTrials, folder);
    // Harbor names trial folders `<task>__<random>`: its trials are numbered in path order.
    const { instance, source } = trial ? { instance: trial.instanceId, source: 'harbor-trial' as const } : instanceOf(facts, path, known);
    const rollout = rolloutOf(
      path,
      facts,
      share.string(instance),
      source,
      nearest(evaluations.get(instance), folder),
      nearest(predictions.get(instance), folder),
    );
    rollout.format = share.string(rollout.format);
    rollout.exitStatus = share.string(rollout.exitStatus);
    rollout.tags = share.tags(rollout.tags);
    rollout.evidence = share.evidence(rollout.evidence);
    rollouts.push({ rollout, explicit: trial ? undefined : explicitAttempt(facts, path, instance) });
  }
  numberAttempts(rollouts);
  const rows = rollouts.map((r) => r.rollout).sort((a, b) => compareLocation(a, b));
  if (branched.size > 0) joinBranchRuns(rows, branched);
  return rows;
}

/**
 * Gives each branched recording's row its critical step. A branch run is of one trajectory (the
 * recording a file holds): a file of several rows is not told which, so none of them gets it.
 */
function joinBranchRuns(rows: Rollout[], branched: ReadonlyMap<string, CriticalStep | null>): void {
  const byPath = new Map<string, Rollout[]>();
  for (const r of rows) if (branched.has(r.path)) push(byPath, r.path, r);
  for (const [path, list] of byPath) if (list.length === 1) list[0]!.critical = branched.get(path)!;
}

/** The items of `list` in order, each slot emptied as its item is taken: `list` no longer holds them. */
function* taken<T>(list: Array<T | undefined>): Generator<T> {
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    list[i] = undefined;
    yield item;
  }
}

/**
 * Each report and prediction parses its instance id and model anew: 100,000 rollouts' 70,000
 * predictions and 70,000 reports held 140,000 copies of 10,000 ids and 70,000 of one model.
 * The join shares them, and so does a cold index as it reads each file, which holds every
 * file's reports until the join.
 */
export function shareReportStrings(reports: RunReports, share: (text: string) => string): void {
  for (const ev of reports.evaluations) ev.instanceId = share(ev.instanceId);
  for (const p of reports.predictions) {
    p.instanceId = share(p.instanceId);
    if (p.model !== undefined) p.model = share(p.model);
  }
}

/** The value kept under `key`, or `value`, kept from now on. */
function intern<T>(map: Map<string, T>, key: string, value: T): T {
  const known = map.get(key);
  if (known !== undefined) return known;
  map.set(key, value);
  return value;
}

/** One copy of each string, the first given: `share(text)` answers it for every equal text. */
export function stringSharing(): (text: string) => string {
  const strings = new Map<string, string>();
  return (text) => intern(strings, text, text);
}

/**
 * Rows with the same instance, format, exit status, tags or evidence share one string, list or
 * object, as the rows decoded from the cache or the worker do: 100,000 rows held 16 MB of equal
 * copies, and 9 MB more when their facts were parsed back from a cold index's spool. Rows are
 * read, never changed in place.
 */
function sharing() {
  const string = stringSharing();
  const tags = new Map<string, FailureClass[]>();
  const evidence = new Map<string, Evidence>();
  return {
    string: <T extends string | undefined>(text: T): T => (text === undefined ? text : (string(text) as T)),
    tags: (list: FailureClass[]) => intern(tags, list.join(' '), list),
    // Failing tests are the evaluation's list, shared with it already; the rest is keyed by its members.
    evidence: (e: Evidence) => (e.tests !== undefined ? e : intern(evidence, `${Object.keys(e).join(' ')}\u0000${e.step}\u0000${e.detail}`, e)),
  };
}

/** A row before its attempt is numbered. */
function rolloutOf(
  path: string,
  facts: TrajectoryFacts,
  instance: string,
  instanceSource: Rollout['instanceSource'],
  evaluation: Evaluation | undefined,
  prediction: Prediction | undefined,
): Rollout {
  const c = classifyRollout(facts, evaluation, prediction);
  return {
    id: facts.line === undefined ? path : `${path}:${facts.line}`,
    path,
    line: facts.line,
    instance,
    instanceSource,
    attempt: 0,
    attemptSource: 'path-order',
    format: facts.format,
    steps: facts.steps,
    exitStatus: facts.exitStatus,
    resolved: c.resolved,
    // The verifier's reward, else the SWE-bench resolve reward, when the trajectory carries none of its own.
    reward: facts.reward ?? evaluation?.reward ?? (c.resolved === null ? undefined : c.resolved ? 1 : 0),
    failure: c.failure,
    tags: c.tags,
    evidence: c.evidence,
    tokens: facts.tokens,
    cost: facts.cost,
    duration: facts.duration,
    submitted: c.submitted,
    patchDigest: facts.patchDigest,
    evaluation,
    prediction,
    critical: undefined,
  };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function compareLocation(a: Rollout, b: Rollout): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0);
}

function reportScope(file: string, instance: string): string {
  const parts = file.split('/');
  const harness = parts.findIndex((p) => p === 'logs' || p === 'run_evaluation');
  if (harness >= 0) return parts.slice(0, harness).join('/') || '.';
  const folder = posix.dirname(file);
  return posix.basename(folder) === instance ? posix.dirname(folder) : folder;
}

function isWithin(folder: string, scope: string): boolean {
  return scope === '.' || folder === scope || folder.startsWith(scope + '/');
}

interface Scoped<T> {
  item: T;
  scope: string;
  depth: number;
  rank: number;
}

function scoped<T>(item: T, scope: string, rank: number): Scoped<T> {
  return { item, scope, depth: scope === '.' ? 0 : scope.split('/').length, rank };
}

function nearest<T>(candidates: Array<Scoped<T>> | undefined, folder: string): T | undefined {
  let best: Scoped<T> | undefined;
  for (const c of candidates ?? []) {
    if (!isWithin(folder, c.scope)) continue;
    if (!best || c.depth > best.depth || (c.depth === best.depth && c.rank > best.rank)) best = c;
  }
  return best?.item;
}

/** An rLLM episode id is `task:rollout_idx`. */
const EPISODE_ID = /^(.+):(\d+)$/;

function instanceOf(facts: TrajectoryFacts, path: string, known: ReadonlySet<string>): { instance: string; source: Rollout['instanceSource'] } {
  if (facts.instanceId !== undefined) return { instance: facts.instanceId, source: 'trajectory' };
  const episode = facts.trajectoryId ? EPISODE_ID.exec(facts.trajectoryId) : null;
  if (episode) return { instance: episode[1]!, source: 'trajectory-id' };
  return { instance: instanceFromFileName(path, known), source: 'file-name' };
}

const TRAJECTORY_EXTENSION = /(\.traj\.json|\.traj|\.jsonl|\.json)$/;
/** `attempt_2`, `rollout-3`, `sample1`, `run_4`, `seed7`... as a whole word in a folder or file name. */
const ATTEMPT = /(?:^|[^a-z])(?:attempt|rollout|sample|run|try|trial|seed)[-_]?(\d+)(?![a-z0-9])/i;

/**
 * A trajectory that does not name its instance is named by its file: the longest instance id
 * known from the reports and predictions that starts the file name, else the file name
 * without its extension and attempt suffix (SWE-agent writes `<instance_id>.traj`,
 * mini-swe-agent `<instance_id>.traj.json`).
 */
function instanceFromFileName(path: string, known: ReadonlySet<string>): string {
  const stem = posix.basename(path).replace(TRAJECTORY_EXTENSION, '');
  // The stem's own prefixes, longest first, looked up: a scan of every known id per file was
  // quadratic (40,000 unnamed trajectories x 10,000 instances in a 100,000-rollout run).
  if (known.has(stem)) return stem;
  for (let end = stem.length - 1; end > 0; end--) {
    const c = stem[end];
    if ((c === '.' || c === '_' || c === '-') && known.has(stem.slice(0, end))) return stem.slice(0, end);
  }
  const m = ATTEMPT.exec(stem);
  return m && m.index > 0 ? stem.slice(0, m.index) : stem;
}

/**
 * An attempt number the files state: an rLLM episode id `task:rollout_idx` (or a numeric
 * SkyRL trajectory_id), then an attempt word in the file name after the instance id, then the
 * deepest folder named like `attempt_N`. An id is an index from 0: its attempt is the index + 1.
 */
function explicitAttempt(facts: TrajectoryFacts, path: string, instance: string): { n: number; source: AttemptSource } | undefined {
  const id = facts.trajectoryId;
  const fromId = id ? (EPISODE_ID.exec(id)?.slice(1) ?? /^(\d+)$/.exec(id)) : null;
  if (fromId) return { n: Number(fromId[fromId.length - 1]) + 1, source: 'trajectory-id' };
  const stem = posix.basename(path).replace(TRAJECTORY_EXTENSION, '');
  const rest = stem.startsWith(instance) ? stem.slice(instance.length) : stem;
  const fromName = ATTEMPT.exec(rest);
  if (fromName) return { n: Number(fromName[1]), source: 'file-name' };
  const folders = posix.dirname(path).split('/').reverse();
  for (const f of folders) {
    const m = ATTEMPT.exec(f);
    if (m) return { n: Number(m[1]), source: 'folder' };
  }
  return undefined;
}

/**
 * Attempts count from 1 in every format. Stated attempt numbers are kept when every rollout
 * of the instance has one and none repeats (names counting from 0, `sample_0`..., move up by
 * one); otherwise the instance's rollouts are numbered 1, 2, 3... in path and line order
 * (`line-order` when they all come from one JSONL file).
 */
function numberAttempts(rows: Array<{ rollout: Rollout; explicit: { n: number; source: AttemptSource } | undefined }>): void {
  const byInstance = new Map<string, typeof rows>();
  for (const r of rows) push(byInstance, r.rollout.instance, r);
  for (const group of byInstance.values()) {
    const stated = group.map((r) => r.explicit?.n);
    const usable = stated.every((n) => n !== undefined) && new Set(stated).size === stated.length;
    if (usable) {
      const from = Math.min(...(stated as number[])) === 0 ? 1 : 0;
      for (const r of group) {
        r.rollout.attempt = r.explicit!.n + from;
        r.rollout.attemptSource = r.explicit!.source;
      }
      continue;
    }
    const oneFile = new Set(group.map((r) => r.rollout.path)).size === 1 && group.every((r) => r.rollout.line !== undefined);
    group.sort((a, b) => compareLocation(a.rollout, b.rollout));
    group.forEach((r, i) => {
      r.rollout.attempt = i + 1;
      r.rollout.attemptSource = oneFile ? 'line-order' : 'path-order';
    });
  }
}
