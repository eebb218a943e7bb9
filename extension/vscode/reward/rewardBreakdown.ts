import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../core/errors';
import { TEST_LISTS, gradeStatuses, gradeTestLog, resolutionOf, type ExpectedTests, type GradeOutcome, type TestsStatus } from '../../core/reward/grading';
import { readTaskInstance } from '../../core/reward/instance';
import { readReport, type InstanceReport } from '../../core/reward/reports';
import type { Reward } from '../../core/reward/rewardTerms';
import { resolveReward } from '../../core/reward/shapes';
import { START_TEST_OUTPUT, parseTestOutput } from '../../core/reward/testOutput';
import type { GradedTest, RewardBreakdown } from '../../protocol/reward';

/** What to grade: a test output with the instance (or report.json) that names its tests, or a report alone. */
export interface RewardSources {
  testOutput?: string;
  instance?: string;
  instanceId?: string;
  report?: string;
}

/** Grades the sources with the core and lays the result out for the reward view. */
export async function buildRewardBreakdown(sources: RewardSources): Promise<RewardBreakdown> {
  const report = sources.report ? await instanceReport(sources.report) : undefined;
  if (!sources.testOutput) {
    if (!report) throw new InputError(undefined, undefined, 'give a test output with an instance or report.json, or a report.json alone');
    return fromReport(sources.report!, report);
  }
  const output = await readFile(sources.testOutput, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new InputError(sources.testOutput, undefined, err.code === 'ENOENT' ? 'file not found' : err.message);
  });
  const expected: ExpectedTests & { instance_id?: string } = sources.instance
    ? await readTaskInstance(sources.instance, sources.instanceId)
    : report?.tests_status
      ? expectedFromReport(report.tests_status)
      : missingExpectation(sources);
  const outcome = gradeOutput(expected, output);
  const reward = resolveReward(outcome);
  const title = `Reward: ${expected.instance_id ?? instanceFolderName(sources.testOutput)}`;
  const origin = [sources.testOutput, sources.instance, sources.report].filter(Boolean).join(' + ');
  if (outcome.kind === 'infra-failure') {
    return { ...empty(title, origin, reward), hasOutput: true, report: null };
  }
  return {
    title,
    origin,
    resolution: outcome.resolution,
    value: reward.value,
    masked: reward.masked?.reason ?? null,
    terms: reward.terms,
    lists: testLists(outcome.tests, lineIndex(output, outcome.tests)),
    testsFound: outcome.statuses.size,
    report: report && sources.report ? agreement(sources.report, report, outcome.tests, outcome.resolved) : null,
    hasOutput: true,
  };
}

function missingExpectation(sources: RewardSources): never {
  throw new InputError(sources.testOutput, undefined, 'no FAIL_TO_PASS / PASS_TO_PASS lists to grade against: give the task instance or the report.json');
}

async function instanceReport(file: string): Promise<InstanceReport> {
  const report = await readReport(file);
  if (report.kind !== 'instance') throw new InputError(file, '$', `a ${report.kind} report holds no per-test grading; open one instance's report.json`);
  return report.report;
}

/** A harness log is read between its markers; plain test output is read whole (as the CLI does). */
function gradeOutput(expected: ExpectedTests, output: string): GradeOutcome {
  if (output.includes(START_TEST_OUTPUT)) return gradeTestLog(expected, output);
  const statuses = parseTestOutput(output);
  return { kind: 'graded', statuses, ...gradeStatuses(expected, statuses) };
}

function expectedFromReport(tests: TestsStatus): ExpectedTests {
  const all = (name: keyof TestsStatus) => [...tests[name].success, ...tests[name].failure];
  return { FAIL_TO_PASS: all('FAIL_TO_PASS'), PASS_TO_PASS: all('PASS_TO_PASS'), FAIL_TO_FAIL: all('FAIL_TO_FAIL'), PASS_TO_FAIL: all('PASS_TO_FAIL') };
}

function fromReport(file: string, report: InstanceReport): RewardBreakdown {
  const title = `Reward: ${instanceFolderName(file)}`;
  if (report.infra_failure) {
    const reason = report.infra_failure_reason ?? 'infrastructure failure';
    return { ...empty(title, file, { value: 0, terms: [{ name: 'infra failure', value: 0, rule: `report: ${reason}` }], masked: { reason } }), hasOutput: false, report: null };
  }
  if (!report.tests_status) {
    const value = report.resolved ? 1 : 0;
    return { ...empty(title, file, { value, terms: [{ name: 'resolved', value, rule: 'report: resolved flag' }] }), hasOutput: false, report: null };
  }
  const tests = report.tests_status;
  const resolution = resolutionOf(tests);
  const reward = resolveReward({ tests, resolution, resolved: report.resolved });
  return { title, origin: file, resolution, value: reward.value, masked: null, terms: reward.terms, lists: testLists(tests, new Map()), testsFound: null, report: null, hasOutput: false };
}

function empty(title: string, origin: string, reward: Reward): Omit<RewardBreakdown, 'hasOutput' | 'report'> {
  return { title, origin, resolution: null, value: reward.value, masked: reward.masked?.reason ?? null, terms: reward.terms, lists: [], testsFound: null };
}

/** FAIL_TO_PASS and PASS_TO_PASS always; the other two lists only when the task has them. */
function testLists(tests: TestsStatus, lines: ReadonlyMap<string, number>): RewardBreakdown['lists'] {
  return TEST_LISTS.filter((name) => name === 'FAIL_TO_PASS' || name === 'PASS_TO_PASS' || tests[name].success.length + tests[name].failure.length > 0).map((name) => {
    const row = (id: string, passed: boolean): GradedTest => ({ id, passed, line: lines.get(id) ?? null });
    return { name, tests: [...tests[name].failure.map((id) => row(id, false)), ...tests[name].success.map((id) => row(id, true))] };
  });
}

/**
 * Where each graded test first appears in the output, as a whitespace-separated token: one
 * pass over the output whatever the number of tests (a harness log can hold thousands).
 */
export function lineIndex(output: string, tests: TestsStatus): Map<string, number> {
  const wanted = new Set(TEST_LISTS.flatMap((name) => [...tests[name].success, ...tests[name].failure]));
  const found = new Map<string, number>();
  const lines = output.split('\n');
  for (let i = 0; i < lines.length && found.size < wanted.size; i++) {
    for (const token of lines[i]!.split(/\s+/)) {
      if (wanted.has(token) && !found.has(token)) found.set(token, i + 1);
    }
  }
  return found;
}

function agreement(file: string, report: InstanceReport, tests: TestsStatus, resolved: boolean): NonNullable<RewardBreakdown['report']> {
  const differences: string[] = [];
  if (report.resolved !== resolved) differences.push(`resolved: report ${report.resolved}, graded ${resolved}`);
  for (const name of TEST_LISTS) {
    const theirs = new Set(report.tests_status?.[name].success ?? []);
    const changed = tests[name].success.filter((id) => !theirs.has(id)).length + tests[name].failure.filter((id) => theirs.has(id)).length;
    if (changed > 0) differences.push(`${name}: ${changed} test(s) graded otherwise`);
  }
  return { file, resolved: report.resolved, agrees: differences.length === 0, detail: differences.length === 0 ? 'every test and the resolution agree with the report' : differences.join('; ') };
}

/** SWE-smith keeps each instance's report.json and test_output.txt in a folder named for it. */
function instanceFolderName(file: string): string {
  return path.basename(path.dirname(file));
}
