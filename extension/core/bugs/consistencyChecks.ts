import { CancelledError, errorText, throwIfAborted } from '../errors';
import { createUntilStarted } from '../runtime/repoCommands';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shellSession';
import { statusMapToObject, type TestStatus, type TestStatusMap } from '../reward/testStatus';
import { bugPatches, bugScope, type BugArtifact } from './bugArtifact';
import { prepareRepo, runBugTests, stageBug, type RepoState, type TestRun, type TestRunOptions } from './bugTestRun';
import { touchedPaths } from '../diff/unifiedDiff';

export const CHECK_NAMES = [
  'test-files-exist',
  'parser-validity',
  'script-validity',
  'bug-scope',
  'bug-validity',
  'weakening-validity',
  'inverse-mutation',
] as const;
type CheckName = (typeof CHECK_NAMES)[number];

export interface CheckEvidence {
  files?: string[];
  statuses?: Record<string, TestStatus>;
  failing?: string[];
  passing?: string[];
  perFile?: Array<{ file: string; turnedPassing: string[]; durationMs: number; error?: string }>;
  outputTail?: string;
}

export interface CheckResult {
  name: CheckName;
  passed: boolean;
  detail: string;
  durationMs: number;
  evidence: CheckEvidence;
}

export interface ConsistencyOptions {
  /** A fresh sandbox holding the original repository at `baseRef`; each one is disposed here. */
  createSandbox: (signal?: AbortSignal) => Promise<Sandbox>;
  baseRef?: string;
  /** Bug scope: the least number of source files the bug must change. */
  minChangedFiles?: number;
  /** Sandboxes running inverse mutation side by side. */
  parallel?: number;
  testTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called as each check ends, in check order. */
  onCheck?: (result: CheckResult) => void;
}

const isFailing = (s: TestStatus | undefined) => s === undefined || s === 'FAILED' || s === 'ERROR';
const isPassing = (s: TestStatus | undefined) => s === 'PASSED' || s === 'XFAIL';
const idsWhere = (map: TestStatusMap, pred: (s: TestStatus) => boolean) => [...map].filter(([, s]) => pred(s)).map(([id]) => id);

/**
 * Runs the seven SSR consistency checks. A check that cannot run (its sandbox step broke, the
 * parser crashed, an earlier run it needs failed) fails with the reason; none passes by default.
 * The extra inverse-mutation sandboxes start while the first one runs checks 2-6.
 */
export async function runConsistencyChecks(bug: BugArtifact, options: ConsistencyOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const report = (r: CheckResult) => {
    // After an abort a step may fail in other words (its container is gone): cancel, not fail.
    throwIfAborted(options.signal);
    results.push(r);
    options.onCheck?.(r);
  };
  const runOptions: TestRunOptions = { baseRef: options.baseRef ?? 'HEAD', timeoutMs: options.testTimeoutMs ?? 600_000, signal: options.signal };
  const scope = bugScope(bug);
  const parallel = Math.max(1, Math.min(options.parallel ?? 2, scope.sourceFiles.length || 1));
  const extras = Array.from({ length: parallel - 1 }, () => {
    const started = startedSandbox(options, bug);
    started.catch(() => undefined); // a start failure is reported by inverse mutation, or ignored if never needed
    return started;
  });
  const disposeExtras = () =>
    Promise.all(
      extras.map((p) =>
        p.then(
          (s) => s.dispose(),
          () => undefined,
        ),
      ),
    );
  const main = await startedSandbox(options, bug).catch(async (err: unknown) => {
    await disposeExtras();
    throw err;
  });
  try {
    report(await timed('test-files-exist', () => checkTestFilesExist(main, bug, runOptions)));
    const original = await runBugTests(main, bug, { bug: false, weaken: false }, runOptions).catch(brokenRun);
    report(parserCheck(original));
    report(scriptCheck(original));
    report(await timed('bug-scope', async () => scopeCheck(scope, options.minChangedFiles ?? 1)));
    const bugged = await runBugTests(main, bug, { bug: true, weaken: false }, runOptions).catch(brokenRun);
    const exposed = bugValidity(original, bugged);
    report(exposed.result);
    report(await timed('weakening-validity', () => weakeningCheck(main, bug, exposed, runOptions)));
    report(await timed('inverse-mutation', () => inverseMutation(main, extras, bug, scope.sourceFiles, exposed, runOptions)));
    return results;
  } finally {
    await Promise.all([main.dispose(), disposeExtras()]);
  }
}

async function startedSandbox(options: ConsistencyOptions, bug: BugArtifact): Promise<Sandbox> {
  const sandbox = await createUntilStarted(options);
  try {
    await stageBug(sandbox, bug);
    return sandbox;
  } catch (err) {
    await sandbox.dispose();
    throw err;
  }
}

function brokenRun(err: unknown): TestRun {
  if (err instanceof CancelledError) throw err;
  return { ok: false, reason: errorText(err), durationMs: 0, outputTail: '' };
}

async function timed(name: CheckName, body: () => Promise<Omit<CheckResult, 'name' | 'durationMs'>>): Promise<CheckResult> {
  const started = Date.now();
  try {
    const outcome = await body();
    return { name, durationMs: Date.now() - started, ...outcome };
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    return { name, passed: false, detail: `could not run: ${errorText(err)}`, durationMs: Date.now() - started, evidence: {} };
  }
}

async function checkTestFilesExist(sandbox: Sandbox, bug: BugArtifact, options: TestRunOptions) {
  await prepareRepo(sandbox, bug, { bug: false, weaken: false }, options);
  const missing: string[] = [];
  for (const file of bug.testFiles) {
    const r = await sandbox.exec(`test -f ${bashQuote(file)}`, { cwd: sandbox.repoPath, signal: options.signal });
    if (r.exitCode !== 0) missing.push(file);
  }
  const listed = new Set(bug.testFiles);
  const stray = touchedPaths(bugPatches(bug).weaken).filter((f) => !listed.has(f));
  const problems = [
    ...(bug.testFiles.length === 0 ? ['test_files.txt lists no file'] : []),
    ...(missing.length ? [`listed but not in the repository: ${missing.join(', ')}`] : []),
    ...(stray.length ? [`test_weaken.diff touches files not in test_files.txt: ${stray.join(', ')}`] : []),
  ];
  return {
    passed: problems.length === 0,
    detail: problems.length ? problems.join('; ') : `${bug.testFiles.length} test files exist; the weakening stays inside them`,
    evidence: { files: bug.testFiles, failing: [...missing, ...stray] },
  };
}

function runEvidence(run: TestRun): CheckEvidence {
  return run.ok ? { statuses: statusMapToObject(run.statuses), outputTail: run.outputTail } : { outputTail: run.outputTail };
}

function parserCheck(run: TestRun): CheckResult {
  const base = { name: 'parser-validity' as const, durationMs: run.durationMs };
  if (!run.ok) return { ...base, passed: false, detail: run.reason, evidence: runEvidence(run) };
  if (run.statuses.size === 0)
    return { ...base, passed: false, detail: 'test_parser.py found no test in the output of test_script.sh', evidence: runEvidence(run) };
  return { ...base, passed: true, detail: `parsed ${run.statuses.size} tests from the original code's run`, evidence: runEvidence(run) };
}

function scriptCheck(run: TestRun): CheckResult {
  const base = { name: 'script-validity' as const, durationMs: 0 };
  if (!run.ok) return { ...base, passed: false, detail: `no parsed run of the original code: ${run.reason}`, evidence: runEvidence(run) };
  const failing = idsWhere(run.statuses, (s) => isFailing(s));
  const passing = idsWhere(run.statuses, isPassing);
  const passed = failing.length === 0 && passing.length > 0;
  const detail = passed
    ? `${passing.length} tests pass on the original code, none fails`
    : failing.length
      ? `${failing.length} tests fail on the original code: ${failing.slice(0, 5).join(', ')}`
      : 'no test passes on the original code';
  return { ...base, passed, detail, evidence: { ...runEvidence(run), failing, passing } };
}

function scopeCheck(scope: { sourceFiles: string[]; testFilesTouched: string[] }, minFiles: number) {
  const problems = [
    ...(scope.sourceFiles.length < minFiles ? [`changes ${scope.sourceFiles.length} source files, at least ${minFiles} needed`] : []),
    ...(scope.testFilesTouched.length ? [`touches test files: ${scope.testFilesTouched.join(', ')}`] : []),
  ];
  return {
    passed: problems.length === 0,
    detail: problems.length ? problems.join('; ') : `changes ${scope.sourceFiles.length} source files and no test file`,
    evidence: { files: scope.sourceFiles, failing: scope.testFilesTouched },
  };
}

/** `failing` are the tests the bug broke; `unrunnable` says why there is no such list at all. */
interface Exposure {
  result: CheckResult;
  failing: string[];
  unrunnable?: string;
}

function bugValidity(original: TestRun, bugged: TestRun): Exposure {
  const base = { name: 'bug-validity' as const, durationMs: bugged.durationMs };
  if (!original.ok || !bugged.ok) {
    const reason = !bugged.ok ? bugged.reason : `no parsed run of the original code: ${(original as { reason: string }).reason}`;
    return {
      result: { ...base, passed: false, detail: reason, evidence: runEvidence(bugged) },
      failing: [],
      unrunnable: `bug validity could not run (${reason})`,
    };
  }
  const failing = idsWhere(original.statuses, isPassing).filter((id) => isFailing(bugged.statuses.get(id)));
  const passing = idsWhere(bugged.statuses, isPassing);
  const passed = failing.length > 0 && passing.length > 0;
  const detail = passed
    ? `${failing.length} tests break with the bug, ${passing.length} still pass`
    : failing.length === 0
      ? 'the bug breaks no test'
      : 'no test passes with the bug: the environment looks broken';
  return { result: { ...base, passed, detail, evidence: { ...runEvidence(bugged), failing, passing } }, failing };
}

async function weakeningCheck(sandbox: Sandbox, bug: BugArtifact, exposure: Exposure, options: TestRunOptions) {
  const exposed = exposure.failing;
  if (bug.testWeakenDiff.trim() === '') {
    return {
      passed: false,
      detail:
        'test_weaken.diff is empty, so nothing hides the bug from the tests' +
        (exposed.length ? ` (${exposed.length} tests it breaks: ${exposed.slice(0, 3).join(', ')}${exposed.length > 3 ? ', …' : ''})` : '') +
        ': remove or relax the assertions of those tests in the files test_files.txt lists and capture the bug again, or write the diff by hand (git diff -- <test files>)',
      evidence: { failing: exposed },
    };
  }
  if (exposed.length === 0) return { passed: false, detail: exposure.unrunnable ?? 'nothing to hide: the bug breaks no test', evidence: {} };
  const run = await runBugTests(sandbox, bug, { bug: true, weaken: true }, options);
  if (!run.ok) return { passed: false, detail: run.reason, evidence: runEvidence(run) };
  // Only the bug's failures count: a test already failing on the original code is script validity's concern.
  const stillFailing = exposed.filter((id) => run.statuses.has(id) && isFailing(run.statuses.get(id)));
  const passing = idsWhere(run.statuses, isPassing);
  const passed = stillFailing.length === 0 && passing.length > 0;
  const detail = passed
    ? `the weakening hides the bug: none of the ${exposed.length} tests it broke fails, ${passing.length} tests pass`
    : stillFailing.length
      ? `the weakened suite still exposes the bug: ${stillFailing.slice(0, 5).join(', ')}`
      : 'no test passes with the weakening';
  return { passed, detail, evidence: { ...runEvidence(run), failing: stillFailing, passing } };
}

async function inverseMutation(main: Sandbox, extras: Array<Promise<Sandbox>>, bug: BugArtifact, files: string[], exposure: Exposure, options: TestRunOptions) {
  const exposed = exposure.failing;
  if (exposed.length === 0) return { passed: false, detail: exposure.unrunnable ?? 'no failing test to turn back: the bug breaks no test', evidence: {} };
  if (files.length === 0) return { passed: false, detail: 'the bug changes no source file', evidence: {} };
  const queue = [...files];
  const perFile: NonNullable<CheckEvidence['perFile']> = [];
  const worker = async (sandbox: Sandbox) => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) perFile.push(await restoreOne(sandbox, bug, file, exposed, options));
  };
  const pool = [Promise.resolve(main), ...extras];
  const outcomes = await Promise.allSettled(pool.map(async (p) => worker(await p)));
  const startFailure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (queue.length > 0 || perFile.length < files.length) throw startFailure?.reason ?? new Error('inverse mutation left files unchecked');
  perFile.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file));
  const redundant = perFile.filter((f) => f.turnedPassing.length === 0);
  return {
    passed: redundant.length === 0,
    detail: redundant.length
      ? `restoring ${redundant.map((f) => f.file).join(', ')} turns no failing test back to passing: ${
          redundant.some((f) => f.error)
            ? redundant
                .map((f) => f.error)
                .filter(Boolean)
                .join('; ')
            : 'the change is redundant'
        }`
      : `each of ${files.length} changed files is needed: restoring it alone turns failing tests back to passing`,
    evidence: { files, perFile },
  };
}

async function restoreOne(sandbox: Sandbox, bug: BugArtifact, file: string, exposed: string[], options: TestRunOptions) {
  const state: RepoState = { bug: true, weaken: false, restore: [file] };
  const run = await runBugTests(sandbox, bug, state, options).catch(brokenRun);
  if (!run.ok) return { file, turnedPassing: [], durationMs: run.durationMs, error: `${file}: ${run.reason}` };
  return { file, turnedPassing: exposed.filter((id) => isPassing(run.statuses.get(id))), durationMs: run.durationMs };
}
