import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError } from '../errors';
import { readReport } from '../reward/rewardFiles';
import type { Trajectory } from '../trajectory/model';
import type { Rollout } from './record';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';

/**
 * Forced submission, measured (SWE-Master: 24.3% of the runs cut by the turn limit held a
 * passing patch). A run that stopped at the step limit without submitting is a candidate; its
 * last state's patch is what a forced submission would send, when the record keeps it. The
 * patches go out as SWE-bench predictions, one file per attempt (the harness takes one patch
 * per instance), named so the harness's run report names its attempt back; the reports then say
 * how many would have passed.
 */

export interface ForcedCandidate {
  id: string;
  instance: string;
  attempt: number;
  steps: number;
  /** The last state's patch; null when the record keeps none. */
  patch: string | null;
  /** Where the patch was found, or why there is none. */
  source: string;
}

/** Cut by the step limit and not submitted: what a forced submission would change. */
function isForcedCandidate(r: Rollout): boolean {
  return (r.failure === 'max-steps' || r.tags.includes('max-steps')) && r.submitted !== true;
}

/** The patch of the trajectory's last state: the working-tree diff of the last step that records one, else an unsubmitted submission field. */
function lastStatePatch(t: Trajectory): { patch: string | null; source: string } {
  for (let i = t.steps.length - 1; i >= 0; i--) {
    const diff = t.steps[i]!.state?.diff;
    if (diff !== undefined && diff.trim() !== '')
      return { patch: diff.endsWith('\n') ? diff : `${diff}\n`, source: `the working-tree diff recorded at step ${i + 1}` };
  }
  if (t.outcome.submission && t.outcome.submission.trim() !== '')
    return { patch: t.outcome.submission, source: 'the submission field (written though the run did not submit)' };
  return { patch: null, source: `the ${t.format} record keeps no diff of its last state` };
}

export async function forcedCandidates(root: string, rollouts: readonly Rollout[], signal?: AbortSignal): Promise<ForcedCandidate[]> {
  const chosen = rollouts.filter(isForcedCandidate);
  const found = new Map<string, ForcedCandidate>();
  await forEachRolloutText(
    root,
    chosen,
    (text, r) => {
      const last = lastStatePatch(importRolloutTrajectory(JSON.parse(text), r.path, r.line));
      found.set(r.id, { id: r.id, instance: r.instance, attempt: r.attempt, steps: r.steps, ...last });
    },
    { ...(signal ? { signal } : {}), onUnreadable: () => undefined },
  );
  return chosen.map(
    (r) =>
      found.get(r.id) ?? { id: r.id, instance: r.instance, attempt: r.attempt, steps: r.steps, patch: null, source: 'the trajectory could not be read again' },
  );
}

const FORCED_MODEL_PREFIX = 'forced-attempt-';

/** Writes the recovered patches as SWE-bench predictions, `forced-attempt-<a>.jsonl` per attempt; returns the files. */
export async function writeForcedPredictions(dir: string, candidates: readonly ForcedCandidate[]): Promise<string[]> {
  await mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new InputError(dir, undefined, `cannot create the folder: ${err.message}`);
  });
  const byAttempt = new Map<number, ForcedCandidate[]>();
  for (const c of candidates) if (c.patch !== null) byAttempt.set(c.attempt, [...(byAttempt.get(c.attempt) ?? []), c]);
  const files: string[] = [];
  for (const [attempt, list] of [...byAttempt].sort(([a], [b]) => a - b)) {
    const file = join(dir, `${FORCED_MODEL_PREFIX}${attempt}.jsonl`);
    const out = createWriteStream(file);
    for (const c of list)
      if (!out.write(JSON.stringify({ instance_id: c.instance, model_name_or_path: `${FORCED_MODEL_PREFIX}${attempt}`, model_patch: c.patch }) + '\n'))
        await once(out, 'drain');
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    files.push(file);
  }
  return files;
}

export interface ForcedMeasure {
  /** Runs that stopped at the step limit without submitting. */
  candidates: number;
  /** Of those, the ones whose record keeps a last-state patch. */
  withPatch: number;
  /** Patches a harness report graded, and how many of them passed. */
  graded: number;
  passed: number;
  /** passed / graded; null when nothing was graded. */
  passRate: number | null;
  /** Candidates with a patch that no report graded. */
  ungraded: string[];
}

/**
 * Grades the candidates with SWE-bench run reports of the forced predictions: a report named
 * `forced-attempt-<a>.<run_id>.json` (the harness names it after model_name_or_path) grades attempt a.
 */
export async function gradeForced(candidates: readonly ForcedCandidate[], reports: readonly string[]): Promise<ForcedMeasure> {
  const verdicts = new Map<string, boolean>();
  for (const file of reports) {
    const m = new RegExp(`^${FORCED_MODEL_PREFIX}(\\d+)\\.`).exec(basename(file));
    if (!m)
      throw new InputError(
        file,
        undefined,
        `not a report of forced predictions: its name should start with ${FORCED_MODEL_PREFIX}<attempt>. as the harness names it`,
      );
    const report = await readReport(file);
    if (report.kind !== 'run') throw new InputError(file, '$', `expected a run report (resolved_ids...), got a ${report.kind} report`);
    const attempt = Number(m[1]);
    for (const id of report.summary.resolvedIds) verdicts.set(`${attempt}/${id}`, true);
    for (const id of [...report.summary.unresolvedIds, ...report.summary.emptyPatchIds]) verdicts.set(`${attempt}/${id}`, false);
  }
  const withPatch = candidates.filter((c) => c.patch !== null);
  const graded = withPatch.filter((c) => verdicts.has(`${c.attempt}/${c.instance}`));
  const passed = graded.filter((c) => verdicts.get(`${c.attempt}/${c.instance}`)).length;
  return {
    candidates: candidates.length,
    withPatch: withPatch.length,
    graded: graded.length,
    passed,
    passRate: graded.length ? passed / graded.length : null,
    ungraded: withPatch.filter((c) => !verdicts.has(`${c.attempt}/${c.instance}`)).map((c) => c.id),
  };
}
