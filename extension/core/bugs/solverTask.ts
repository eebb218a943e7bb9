import { throwIfAborted } from '../errors';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shellSession';
import type { BugArtifact } from './bugArtifact';
import { bugFromSandbox } from './bugFromSandbox';
import { bugDirIn, prepareRepo, stageBug } from './bugTestRun';
import { isPytestTestFile } from './testFiles';
import { parseUnifiedDiff, reverseDiff } from '../diff/unifiedDiff';

/** The solver's only spec: the reverse of the weakening, "make the code pass these tests". */
export function solverSpec(bug: BugArtifact): string {
  return reverseDiff(parseUnifiedDiff(bug.testWeakenDiff, 'test_weaken.diff'));
}

export interface SolverTask {
  spec: string;
  /** The original test files (path -> content), restored before the solver's patch is graded. */
  originalTests: Map<string, string>;
}

/**
 * Leaves the sandbox's repository as the solver must find it: bug and weakening applied, and a
 * fresh one-commit history, so `git log` and `git diff` cannot leak the answer.
 */
export async function prepareSolverRepo(sandbox: Sandbox, bug: BugArtifact, options: { baseRef?: string; signal?: AbortSignal } = {}): Promise<SolverTask> {
  const baseRef = options.baseRef ?? 'HEAD';
  await stageBug(sandbox, bug);
  await prepareRepo(sandbox, bug, { bug: false, weaken: false }, { baseRef, timeoutMs: 60_000, signal: options.signal });
  const originalTests = new Map<string, string>();
  for (const file of bug.testFiles) originalTests.set(file, await sandbox.readFile(file));
  await prepareRepo(sandbox, bug, { bug: true, weaken: true }, { baseRef, timeoutMs: 60_000, signal: options.signal });
  throwIfAborted(options.signal);
  const fresh = [
    'rm -rf .git',
    'git init -q',
    'git add -A',
    "git -c user.name=solver -c user.email=solver@localhost -c commit.gpgsign=false commit -q -m 'Initial commit'",
    `rm -rf ${bashQuote(bugDirIn(sandbox))}`,
  ].join(' && ');
  const r = await sandbox.exec(fresh, { cwd: sandbox.repoPath, signal: options.signal });
  if (r.exitCode !== 0) throw new Error(`removing the git history failed: ${r.output.trim().slice(-400)}`);
  return { spec: solverSpec(bug), originalTests };
}

/**
 * A higher-order bug: a solver's failed `pred_patch.diff` applied on top of the bug becomes the
 * new bug (its source changes only; the weakening and scripts are kept).
 */
export async function higherOrderBug(
  sandbox: Sandbox,
  bug: BugArtifact,
  predPatch: string,
  options: { baseRef?: string; signal?: AbortSignal } = {},
): Promise<BugArtifact> {
  const baseRef = options.baseRef ?? 'HEAD';
  parseUnifiedDiff(predPatch, 'pred_patch.diff');
  await stageBug(sandbox, bug);
  await prepareRepo(sandbox, bug, { bug: true, weaken: false }, { baseRef, timeoutMs: 60_000, signal: options.signal });
  const file = `${bugDirIn(sandbox)}/pred_patch.diff`;
  await sandbox.writeFile(file, predPatch);
  const r = await sandbox.exec(`git apply --whitespace=nowarn ${bashQuote(file)}`, { cwd: sandbox.repoPath, signal: options.signal });
  if (r.exitCode !== 0) throw new Error(`pred_patch.diff does not apply on top of the bug: ${r.output.trim().slice(-400)}`);
  const listed = new Set(bug.testFiles);
  // The solver's edits of test files are dropped: a bug never touches tests.
  const combined = await bugFromSandbox(sandbox, { baseRef, isTestFile: (f) => listed.has(f) || isPytestTestFile(f), signal: options.signal });
  return { ...bug, bugInjectDiff: combined.bugInjectDiff };
}
