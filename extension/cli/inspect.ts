/**
 * `swe-workbench inspect FILE`: what a trajectory file holds, read by the same importers the
 * extension uses. `--json` prints the canonical trajectory for scripts.
 */
import { loadTrajectory } from '../core/trajectory/load';
import { openSteps, type StepSource } from '../core/trajectory/stepSource';
import { toCanonicalJson } from '../core/trajectory/canonicalExport';
import type { Step } from '../core/trajectory/model';
import { agentSteps } from '../core/trajectory/copiedContext';
import { stepErrorMarks } from '../core/trajectory/stepErrors';
import { recordedModelStats } from '../core/trajectory/runFacts';
import { llmCallsText, messageRole, oneLine, STEP_LABEL_WIDTH, stepLabel } from '../core/trajectory/stepLabels';
import { LOSS_MASKED_FINISH_REASONS } from '../core/trajectory/importers/skyrl';
import { detectionEvidence, detectScaffold, describeChoice } from '../core/scaffolds/registry';
import { CliError, parseCommandArgs, type Command } from './command';
import { TRAJECTORY_INPUT_OPTIONS, trajectoryInputUsage, trajectoryInput } from './trajectoryInput';

const usage = () => `usage: swe-workbench inspect FILE [--format NAME] [--line N | --record N] [--json]

Reads a trajectory (SWE-agent .traj, mini-swe-agent, OpenHands events or output.jsonl, an
OpenHands V1 conversation folder or events.jsonl, R2E-Gym JSONL, rLLM, SkyRL, OpenAI messages,
or canonical JSON) and prints a summary, one line a step.
${trajectoryInputUsage()}
  --json          print the canonical trajectory as JSON`;

function size(chars: number): string {
  if (chars < 1000) return `${chars} B`;
  if (chars < 1_000_000) return `${(chars / 1000).toFixed(1)} kB`;
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

/** The error marks, then the step's other flags and how many calls it made. */
function marks(step: Step): string {
  const errors = stepErrorMarks(step);
  const others = (step.flags ?? []).filter((f) => !errors.includes(f));
  const effort = step.sampling?.reasoning_effort;
  return [
    ...errors,
    ...others,
    ...(step.calls ? [`${step.calls.length} calls`] : []),
    ...(step.llmCalls !== undefined ? [llmCallsText(step.llmCalls)] : []),
    ...(typeof effort === 'string' || typeof effort === 'number' ? [`reasoning effort ${effort}`] : []),
  ].join(', ');
}

function outcomeLine(loaded: StepSource): string {
  const o = loaded.header.outcome;
  // As the stepper reads them: a zero cost beside uncounted tokens is not a cost, it is unknown.
  const stats = recordedModelStats(o.modelStats, loaded.stepCount);
  return [
    o.exitStatus ?? 'no exit status',
    ...(loaded.format === 'skyrl' && o.exitStatus !== undefined && LOSS_MASKED_FINISH_REASONS.has(o.exitStatus) ? ['loss masked in training'] : []),
    ...(o.submission !== undefined ? [`submission ${size(o.submission.length)}`] : []),
    ...(o.reward !== undefined ? [`reward ${o.reward}`] : []),
    ...(o.resolved !== undefined ? [o.resolved ? 'resolved' : 'not resolved'] : []),
    ...(stats?.instanceCost !== undefined ? [`cost $${stats.instanceCost.toFixed(4)}`] : o.modelStats?.instanceCost !== undefined ? ['cost unknown'] : []),
    ...(stats?.apiCalls !== undefined ? [`${stats.apiCalls} API calls`] : []),
    ...(o.error !== undefined ? [`error: ${oneLine(o.error, 80)}`] : []),
  ].join(' · ');
}

/** The other branches of a tree-shaped recording (OpenHands V1): where each leaves this one, counted from 1 as the stepper counts. */
function forksLine(forks: NonNullable<StepSource['header']['meta']['forks']>): string {
  const each = forks.map(
    (f) => `${f.id} (${f.inUse ? 'in use, ' : ''}${f.steps} steps, ${f.sharedSteps === 0 ? 'none shared' : `steps 1-${f.sharedSteps} shared`})`,
  );
  return `${forks.length} other branch${forks.length === 1 ? '' : 'es'}: ${each.join('; ')}`;
}

/**
 * The readable summary: header lines, then one row a step (index, tool, action, observation
 * size, marks). Steps are read one at a time, so a large indexed file is never held whole.
 */
export async function summarize(loaded: StepSource): Promise<string> {
  const { header: t } = loaded;
  const task = [
    t.task.instanceId,
    t.task.repo,
    t.task.baseCommit && `@ ${/^[0-9a-f]{40}$/.test(t.task.baseCommit) ? t.task.baseCommit.slice(0, 12) : t.task.baseCommit}`,
    t.task.image && `image ${t.task.image}`,
  ]
    .filter(Boolean)
    .join('  ');
  // An ATIF file says which agent wrote it, the way another format's name does.
  const producer = loaded.format === 'atif' && t.meta.scaffold ? `(agent ${t.meta.scaffold})` : undefined;
  const format = [loaded.format, t.meta.formatVersion, t.meta.parseFunction && `(${t.meta.parseFunction})`, producer].filter(Boolean).join(' ');
  const rows: Array<{ index: number; tool: string; label: string; size: string; marks: string }> = [];
  const evidence: Step[] = [];
  const flags: Array<Pick<Step, 'flags'>> = [];
  for (let i = 0; i < loaded.stepCount; i++) {
    const s = await loaded.step(i);
    rows.push({ index: s.index, tool: s.action.tool ?? messageRole(s) ?? '?', label: stepLabel(s), size: size(s.observation.length), marks: marks(s) });
    evidence.push(detectionEvidence(s));
    flags.push({ flags: s.flags });
  }
  // The producer's count, when messages or copied context are shown among the steps.
  const agent = agentSteps(flags).length;
  const steps = agent === loaded.stepCount ? '' : ` (${agent} agent step${agent === 1 ? '' : 's'}; the rest are messages or copied context)`;
  const lines = [
    loaded.line === undefined ? loaded.file : `${loaded.file}:${loaded.line} (record ${loaded.record! + 1} of ${loaded.records})`,
    `format   ${format}`,
    `task     ${task || '-'}`,
    `model    ${t.meta.model ?? '-'}`,
    `outcome  ${outcomeLine(loaded)}`,
    `steps    ${loaded.stepCount}${steps}`,
    ...(t.meta.forks && t.meta.forks.length > 0 ? [`forks    ${forksLine(t.meta.forks)}`] : []),
    ...(t.meta.segments ? [`segments ${t.meta.segments.join(', ')} (one run continued over ${t.meta.segments.length} files)`] : []),
    ...(t.meta.warnings ?? []).map((w) => `warning  ${w}`),
    '',
  ];
  // Which scaffold (and version) a replay would run, and the evidence, after the header's other lines.
  lines.splice(lines.length - 1, 0, describeChoice(detectScaffold({ ...t, steps: evidence })));
  const toolWidth = Math.max(4, ...rows.map((r) => r.tool.length));
  for (const r of rows) {
    // Step numbers as the stepper shows them: from 1 (the JSON keeps the 0-based index).
    const row = `${String(r.index + 1).padStart(4)}  ${r.tool.padEnd(toolWidth)}  ${r.label.padEnd(STEP_LABEL_WIDTH)}  ${r.size.padStart(8)}`;
    lines.push(r.marks ? `${row}  ${r.marks}` : row);
  }
  return lines.join('\n') + '\n';
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...TRAJECTORY_INPUT_OPTIONS,
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new CliError(`expected exactly one FILE\n\n${usage()}`);
    const options = { ...trajectoryInput(values), signal: ctx.signal };
    ctx.stdout.write(values.json ? toCanonicalJson((await loadTrajectory(file, options)).trajectory) : await summarize(await openSteps(file, options)));
    return 0;
  },
};
