import type { Sandbox } from '../runtime/sandbox';
import type { TaskInstance } from '../reward/instance';
import { isValidBug, validationLists, type ValidationLists } from '../reward/validationLists';
import type { BugArtifact } from './bugArtifact';
import { runBugTests, stageBug, type TestRun } from './bugTestRun';
import { parseUnifiedDiff, reverseDiff } from '../diff/unifiedDiff';

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
