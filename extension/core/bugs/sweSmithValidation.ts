import type { Sandbox } from '../runtime/sandbox';
import type { TaskInstance } from '../reward/instance';
import { isValidBug, validationLists, type ValidationLists } from '../reward/validationLists';
import type { BugArtifact } from './bugArtifact';
import { runBugTests, stageBug, type TestRun } from './bugTestRun';
import { DEFAULT_TEST_PARSER, DEFAULT_TEST_SCRIPT } from './defaultBugScripts';
import { parseUnifiedDiff, reverseDiff, touchedPaths } from '../diff/unifiedDiff';

export interface SweSmithValidation {
  valid: boolean;
  lists: ValidationLists;
  /** The gold fix: the reverse of the bug patch. */
  goldPatch: string;
  reference: TestRun;
  bugged: TestRun;
}

/**
 * SWE-smith's validation: the tests on the reference code, then with the bug (tests as they
 * are: SWE-smith does not weaken). Valid with at least one FAIL_TO_PASS and one PASS_TO_PASS.
 */
export async function validateLikeSweSmith(
  sandbox: Sandbox,
  bug: BugArtifact,
  options: { baseRef?: string; testTimeoutMs?: number; signal?: AbortSignal } = {},
): Promise<SweSmithValidation> {
  const runOptions = { baseRef: options.baseRef ?? 'HEAD', timeoutMs: options.testTimeoutMs ?? 600_000, signal: options.signal };
  await stageBug(sandbox, bug);
  const reference = await runBugTests(sandbox, bug, { bug: false, weaken: false }, runOptions);
  if (!reference.ok) throw new Error(`the reference run has no test map: ${reference.reason}`);
  const bugged = await runBugTests(sandbox, bug, { bug: true, weaken: false }, runOptions);
  if (!bugged.ok) throw new Error(`the bugged run has no test map: ${bugged.reason}`);
  const lists = validationLists(reference.statuses, bugged.statuses);
  return { valid: isValidBug(lists), lists, goldPatch: reverseDiff(parseUnifiedDiff(bug.bugInjectDiff, 'bug_inject.diff')), reference, bugged };
}

export interface InstanceContext {
  instanceId: string;
  repo: string;
  baseCommit: string;
  imageName?: string;
  problemStatement?: string;
}

/** A SWE-smith instance: its `patch` introduces the bug, the lists come from validation. */
export function bugToSweSmithInstance(bug: BugArtifact, lists: ValidationLists, ctx: InstanceContext): TaskInstance {
  return {
    instance_id: ctx.instanceId,
    repo: ctx.repo,
    base_commit: ctx.baseCommit,
    patch: bug.bugInjectDiff,
    FAIL_TO_PASS: lists.FAIL_TO_PASS,
    PASS_TO_PASS: lists.PASS_TO_PASS,
    ...(ctx.imageName ? { image_name: ctx.imageName } : {}),
    problem_statement: ctx.problemStatement ?? '',
    created_at: new Date().toISOString(),
  };
}

/** As the SWE-bench dataset stores it: the test lists are JSON-encoded strings. */
export interface SweBenchInstanceRecord {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
  test_patch: string;
  problem_statement: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  image_name?: string;
}

/**
 * A SWE-bench instance for the broken repository at `ctx.baseCommit` (a commit holding the bug
 * and the weakening): `patch` is the gold fix and `test_patch` restores the weakened tests.
 */
export function bugToSweBenchInstance(bug: BugArtifact, lists: ValidationLists, ctx: InstanceContext): SweBenchInstanceRecord {
  return {
    instance_id: ctx.instanceId,
    repo: ctx.repo,
    base_commit: ctx.baseCommit,
    patch: reverseDiff(parseUnifiedDiff(bug.bugInjectDiff, 'bug_inject.diff')),
    test_patch: reverseDiff(parseUnifiedDiff(bug.testWeakenDiff, 'test_weaken.diff')),
    problem_statement: ctx.problemStatement ?? '',
    FAIL_TO_PASS: JSON.stringify(lists.FAIL_TO_PASS),
    PASS_TO_PASS: JSON.stringify(lists.PASS_TO_PASS),
    ...(ctx.imageName ? { image_name: ctx.imageName } : {}),
  };
}

const testFilesOf = (ids: readonly string[]) => [...new Set(ids.map((id) => id.split('::')[0] as string).filter((f) => f.endsWith('.py')))].sort();

/** A SWE-smith instance as a bug on its base commit: `patch` is the bug; SWE-smith weakens nothing. */
export function bugFromSweSmithInstance(instance: TaskInstance): BugArtifact {
  if (!instance.patch) throw new Error(`instance ${instance.instance_id} has no patch`);
  parseUnifiedDiff(instance.patch, `${instance.instance_id}.patch`);
  return {
    testScript: DEFAULT_TEST_SCRIPT,
    testParser: DEFAULT_TEST_PARSER,
    testFiles: testFilesOf([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]),
    bugInjectDiff: instance.patch,
    testWeakenDiff: '',
  };
}

/**
 * A SWE-bench instance as a bug on the *fixed* tree (base_commit + patch + test_patch, which the
 * caller commits): removing the fix is the bug, removing the new tests is the weakening.
 */
export function bugFromSweBenchInstance(instance: TaskInstance): BugArtifact {
  if (!instance.patch || !instance.test_patch) throw new Error(`instance ${instance.instance_id} needs both patch and test_patch`);
  const testPatch = parseUnifiedDiff(instance.test_patch, `${instance.instance_id}.test_patch`);
  return {
    testScript: DEFAULT_TEST_SCRIPT,
    testParser: DEFAULT_TEST_PARSER,
    testFiles: touchedPaths(testPatch),
    bugInjectDiff: reverseDiff(parseUnifiedDiff(instance.patch, `${instance.instance_id}.patch`)),
    testWeakenDiff: reverseDiff(testPatch),
  };
}
