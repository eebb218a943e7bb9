/**
 * `swe-workbench reward`: grades a test log against an instance's FAIL_TO_PASS / PASS_TO_PASS,
 * or reads a SWE-bench / SWE-smith report, and prints the grading and the reward term by term.
 */
import { readInputText } from '../core/input/readInput';
import { gradeTestOutput, resolutionOf, type GradeOutcome, type TestsStatus } from '../core/reward/grading';
import { readTaskInstance } from '../core/reward/instance';
import { readReport, type Report } from '../core/reward/reports';
import type { Reward } from '../core/reward/rewardTerms';
import { resolveReward } from '../core/reward/shapes';
import type { TestOutputFormat } from '../core/reward/testOutput';
import { isValidBug } from '../core/reward/validationLists';
import { CliError, parseCommandArgs, type Command } from './command';

const USAGE = `usage: swe-workbench reward --test-output FILE --instance INSTANCE.json [--instance-id ID] [--format pytest|unittest|auto] [--json]
       swe-workbench reward --report report.json [--json]

With --test-output: the tests in FILE (a SWE-bench / SWE-smith log with its '>>>>> Start Test
Output' markers, or plain pytest / unittest output) graded against the instance's
FAIL_TO_PASS and PASS_TO_PASS lists. With --report: a per-instance report, a run report or a
validation report. Prints the grading and the reward with each of its terms.`;

const FORMATS: readonly TestOutputFormat[] = ['pytest', 'unittest', 'auto'];

interface RewardView {
  kind: string;
  [key: string]: unknown;
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      'test-output': { type: 'string' },
      instance: { type: 'string' },
      'instance-id': { type: 'string' },
      format: { type: 'string' },
      report: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    }, false);
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length > 0) throw new CliError(USAGE);
    const format = (values.format ?? 'auto') as TestOutputFormat;
    if (!FORMATS.includes(format)) throw new CliError(`--format expects one of ${FORMATS.join(', ')}, got '${values.format}'`);
    let view: RewardView;
    if (values.report && !values['test-output'] && !values.instance) view = reportView(await readReport(values.report));
    else if (values['test-output'] && values.instance && !values.report) view = await testOutputView(values['test-output'], values.instance, values['instance-id'], format);
    else throw new CliError(`give --test-output with --instance, or --report alone\n\n${USAGE}`);
    ctx.stdout.write(values.json ? JSON.stringify(view, null, 2) + '\n' : readable(view));
    // Test output that could not be graded is an input error: masked in the output, and exit 1 so no script takes it for a grade.
    if (view.kind === 'infra-failure') {
      ctx.stderr.write(`swe-workbench: ${values['test-output']}: ${String(view.reason)}\n`);
      return 1;
    }
    return 0;
  },
};

async function testOutputView(file: string, instanceFile: string, instanceId: string | undefined, format: TestOutputFormat): Promise<RewardView> {
  const instance = await readTaskInstance(instanceFile, instanceId);
  const { text } = await readInputText(file);
  // A harness log is read between its markers; plain test output is read whole.
  const outcome: GradeOutcome = gradeTestOutput(instance, text, format);
  const reward = resolveReward(outcome);
  if (outcome.kind === 'infra-failure') return { kind: 'infra-failure', instanceId: instance.instance_id, reason: outcome.reason, reward };
  return { kind: 'grading', instanceId: instance.instance_id, testsFound: outcome.statuses.size, resolution: outcome.resolution, resolved: outcome.resolved, tests_status: outcome.tests, reward };
}

function reportView(report: Report): RewardView {
  switch (report.kind) {
    case 'instance': {
      const r = report.report;
      const reward: Reward = r.infra_failure
        ? { value: 0, terms: [{ name: 'infra failure', value: 0, rule: `report: ${r.infra_failure_reason ?? 'infrastructure failure'}` }], masked: { reason: r.infra_failure_reason ?? 'infra failure' } }
        : r.tests_status
          ? resolveReward({ tests: r.tests_status, resolution: resolutionOf(r.tests_status), resolved: r.resolved })
          : { value: r.resolved ? 1 : 0, terms: [{ name: 'resolved', value: r.resolved ? 1 : 0, rule: 'report: resolved flag' }] };
      return { kind: 'instance-report', shape: report.shape, instanceId: report.instanceId, resolved: r.resolved, patchApplied: r.patch_successfully_applied, tests_status: r.tests_status, reward };
    }
    case 'run': {
      const s = report.summary;
      const rate = s.total === 0 ? 0 : s.resolvedIds.length / s.total;
      return {
        kind: 'run-report',
        shape: report.shape,
        total: s.total,
        resolved: s.resolvedIds.length,
        unresolved: s.unresolvedIds.length,
        errors: s.errorIds.length,
        emptyPatches: s.emptyPatchIds.length,
        reward: { value: rate, terms: [{ name: 'resolve rate', value: rate, rule: `${s.resolvedIds.length} of ${s.total} instances resolved` }] },
      };
    }
    case 'validation': {
      const valid = isValidBug(report.lists);
      const counts = Object.fromEntries(Object.entries(report.lists).map(([k, v]) => [k, v.length]));
      return { kind: 'validation-report', valid, counts, lists: report.lists, reward: { value: valid ? 1 : 0, terms: [{ name: 'valid bug', value: valid ? 1 : 0, rule: 'SWE-smith: at least one FAIL_TO_PASS and one PASS_TO_PASS test' }] } };
    }
  }
}

function readable(view: RewardView): string {
  const lines: string[] = [];
  const { reward, tests_status: tests, ...rest } = view as RewardView & { reward: Reward; tests_status?: TestsStatus };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined && typeof v !== 'object') lines.push(`${k}: ${v}`);
  if (rest.counts) for (const [k, v] of Object.entries(rest.counts as Record<string, number>)) lines.push(`${k}: ${v} tests`);
  if (tests) {
    for (const [list, { success, failure }] of Object.entries(tests)) {
      if (success.length + failure.length === 0) continue;
      lines.push(`${list}: ${success.length} pass, ${failure.length} fail`);
      for (const id of failure) lines.push(`  FAIL ${id}`);
    }
  }
  lines.push(`reward: ${reward.value}${reward.masked ? ` (masked: ${reward.masked.reason})` : ''}`);
  for (const t of reward.terms) lines.push(`  ${t.name} = ${t.value}    ${t.rule}`);
  return lines.join('\n') + '\n';
}
