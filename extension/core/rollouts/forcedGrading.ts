import path from 'node:path';
import { CancelledError, errorText, throwIfAborted } from '../errors';
import { parseUnifiedDiff, touchedPaths } from '../diff/unifiedDiff';
import { gradeOutput } from '../reward/evaluate';
import type { ListOutcome } from '../reward/grading';
import type { TaskInstance } from '../reward/instance';
import { createUntilStarted, restoreFromBase, runLoggedCommand } from '../runtime/repoCommands';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shellSession';
import type { ForcedCandidate } from './forcedSubmission';
import { testCommandFor } from './testCommand';

/**
 * Forced submission, graded for real: each candidate's last-state patch goes into a fresh
 * container holding the repository at the instance's base commit, the instance's tests run
 * there, and the output is graded against FAIL_TO_PASS / PASS_TO_PASS as SWE-bench does. A
 * patch that does not apply is a verdict of its own; a run whose output says nothing about the
 * patch (the container broke, the tests timed out, the log is unusable) is an infrastructure
 * error with its reason, never a failure to pass.
 */

export type ForcedVerdict = 'passed' | 'failed' | 'patch-does-not-apply' | 'infrastructure-error' | 'not-graded';

export interface ForcedGrade {
  id: string;
  instance: string;
  attempt: number;
  verdict: ForcedVerdict;
  /** Why, in words: git's message, the infrastructure fault, the tests that did not pass, or why nothing was graded. */
  reason: string;
  /** The lists' outcomes when the tests ran and were graded. */
  tests?: { FAIL_TO_PASS: ListOutcome; PASS_TO_PASS: ListOutcome };
  durationMs: number;
}

export interface ForcedGrading {
  grades: ForcedGrade[];
  candidates: number;
  passed: number;
  failed: number;
  doesNotApply: number;
  infraErrors: number;
  notGraded: number;
  /** Forced submissions graded: passed, failed and patches that do not apply (a harness counts those unresolved). */
  measured: number;
  /** passed / measured; null when nothing was measured. */
  passRate: number | null;
}

export interface ForcedGradingOptions {
  /** A fresh sandbox holding the repository (with its git history) at its repoPath; each one is disposed here. */
  createSandbox: (signal?: AbortSignal) => Promise<Sandbox>;
  /** Task instances by id: base commit, test lists, test patch. */
  instances: ReadonlyMap<string, TaskInstance>;
  /** The test command; default the instance's test_cmd, else pytest over the files its test ids name. */
  testCommand?: string;
  /** Containers side by side (default 1). */
  parallel?: number;
  testTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called as each candidate is graded, in the order they end. */
  onGrade?: (grade: ForcedGrade) => void;
}

/** Grades every candidate in its own container, `parallel` at a time; the grades keep the candidates' order. */
export async function gradeForcedInContainers(candidates: readonly ForcedCandidate[], options: ForcedGradingOptions): Promise<ForcedGrading> {
  const grades: ForcedGrade[] = new Array<ForcedGrade>(candidates.length);
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const i = next++;
      throwIfAborted(options.signal);
      grades[i] = await gradeCandidate(candidates[i]!, options);
      options.onGrade?.(grades[i]!);
    }
  };
  const parallel = Math.max(1, Math.min(options.parallel ?? 1, candidates.length || 1));
  const settled = await Promise.allSettled(Array.from({ length: parallel }, worker));
  // Every worker has ended (so every container is removed) before a cancellation or bug surfaces.
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return summarizeForcedGrades(grades);
}

/** The counts and pass rate of a run's grades (a local run's, or a Slurm array's merged shards). */
export function summarizeForcedGrades(grades: ForcedGrade[]): ForcedGrading {
  const count = (v: ForcedVerdict) => grades.filter((g) => g.verdict === v).length;
  const passed = count('passed');
  const failed = count('failed');
  const doesNotApply = count('patch-does-not-apply');
  const measured = passed + failed + doesNotApply;
  return {
    grades,
    candidates: grades.length,
    passed,
    failed,
    doesNotApply,
    infraErrors: count('infrastructure-error'),
    notGraded: count('not-graded'),
    measured,
    passRate: measured ? passed / measured : null,
  };
}

async function gradeCandidate(c: ForcedCandidate, options: ForcedGradingOptions): Promise<ForcedGrade> {
  const started = Date.now();
  const grade = (verdict: ForcedVerdict, reason: string, tests?: ForcedGrade['tests']): ForcedGrade => ({
    id: c.id,
    instance: c.instance,
    attempt: c.attempt,
    verdict,
    reason,
    ...(tests ? { tests } : {}),
    durationMs: Date.now() - started,
  });
  if (c.patch === null) return grade('not-graded', `no patch: ${c.source}`);
  const instance = options.instances.get(c.instance);
  if (!instance) return grade('not-graded', `no task instance '${c.instance}' in the instances file`);
  const command = testCommandFor(instance, options.testCommand);
  if (typeof command !== 'string') return grade('not-graded', command.error);
  let sandbox: Sandbox;
  try {
    sandbox = await createUntilStarted(options);
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    throwIfAborted(options.signal);
    return grade('infrastructure-error', `the container did not start: ${errorText(err)}`);
  }
  try {
    return await inSandbox(sandbox, c.patch, instance, command, options, grade);
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    throwIfAborted(options.signal);
    return grade('infrastructure-error', errorText(err));
  } finally {
    await sandbox.dispose();
  }
}

async function inSandbox(
  sandbox: Sandbox,
  patch: string,
  instance: TaskInstance,
  command: string,
  options: ForcedGradingOptions,
  grade: (verdict: ForcedVerdict, reason: string, tests?: ForcedGrade['tests']) => ForcedGrade,
): Promise<ForcedGrade> {
  // The patches and the log live beside the repository, so git never sees them.
  const dir = path.posix.join(path.posix.dirname(sandbox.repoPath), '.swe-workbench-forced');
  const base = instance.base_commit ?? 'HEAD';
  const sh = async (cmd: string) => {
    throwIfAborted(options.signal);
    return sandbox.exec(cmd, { cwd: sandbox.repoPath, timeoutMs: 60_000, signal: options.signal });
  };
  const reset = await sh(`git reset -q --hard ${bashQuote(base)} && git clean -fdq`);
  if (reset.exitCode !== 0) return grade('infrastructure-error', `checking out the base commit ${base} failed: ${lastLines(reset.output)}`);
  await sandbox.writeFile(`${dir}/forced.patch`, patch);
  const applied = await sh(`git apply --whitespace=nowarn ${bashQuote(`${dir}/forced.patch`)}`);
  if (applied.exitCode !== 0) return grade('patch-does-not-apply', lastLines(applied.output) || `git apply exited with ${applied.exitCode}`);
  const testPatch = instance.test_patch;
  if (testPatch !== undefined && testPatch.trim() !== '') {
    // As the harness does: the test files go back to the base commit, then the test patch goes on.
    await sandbox.writeFile(`${dir}/test.patch`, testPatch);
    const files = touchedPaths(parseUnifiedDiff(testPatch));
    const r = await sh([...restoreFromBase(base, files), `git apply --whitespace=nowarn ${bashQuote(`${dir}/test.patch`)}`].join(' && '));
    if (r.exitCode !== 0) return grade('infrastructure-error', `the instance's test patch does not apply: ${lastLines(r.output)}`);
  }
  const timeoutMs = options.testTimeoutMs ?? 1_800_000;
  const run = await runLoggedCommand(sandbox, command, `${dir}/test_output.txt`, { timeoutMs, signal: options.signal });
  if (run.timedOut) return grade('infrastructure-error', `the tests timed out after ${Math.round(timeoutMs / 1000)} s`);
  if (run.fault) return grade('infrastructure-error', `the test run broke: ${run.fault}`);
  const outcome = gradeOutput(instance, run.output);
  if (outcome.kind === 'infra-failure') return grade('infrastructure-error', `unusable test output: ${outcome.reason}`);
  const tests = { FAIL_TO_PASS: outcome.tests.FAIL_TO_PASS, PASS_TO_PASS: outcome.tests.PASS_TO_PASS };
  if (outcome.resolved)
    return grade('passed', `${tests.FAIL_TO_PASS.success.length} FAIL_TO_PASS and ${tests.PASS_TO_PASS.success.length} PASS_TO_PASS tests pass`, tests);
  const broken = [...tests.FAIL_TO_PASS.failure.map((t) => `FAIL_TO_PASS ${t}`), ...tests.PASS_TO_PASS.failure.map((t) => `PASS_TO_PASS ${t}`)];
  return grade('failed', `${broken.length} test(s) do not pass: ${broken.slice(0, 5).join(', ')}${broken.length > 5 ? ', ...' : ''}`, tests);
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ').slice(-500);
}

/** The label of the containers `rollouts grade` starts (swe-workbench.command=...). */
export const FORCED_GRADE_LABEL = 'rollouts-forced-grade';
