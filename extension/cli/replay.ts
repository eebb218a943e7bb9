/**
 * `swe-workbench replay`: runs a recording's actions again in the task's container and says,
 * step by step, whether each observation is the recorded one.
 */
import type { SweAgentVersionVerdict } from '../core/aci/sweAgentVersion';
import { CancelledError } from '../core/errors';
import { RecordingSource } from '../core/session/actionSources';
import { replaySettings, startContainerSession, type ReplaySettings } from '../core/session/containerSession';
import { DebugSession } from '../core/session/debugSession';
import { DEFAULT_NORMALISERS, NORMALISER_NAMES, NORMALISERS, type NormaliserName } from '../core/session/divergence';
import { loadTrajectory } from '../core/trajectory/load';
import type { Trajectory } from '../core/trajectory/model';
import { bundleList, toolSetOption } from './bundleOption';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const USAGE = `usage: swe-workbench replay TRAJ --image IMAGE --repo DIR [--until N] [--json]
                            [--workdir PATH] [--bundles a,b] [--forgive a,b]

Replays the recorded actions of TRAJ (any supported format) in a container of IMAGE with DIR
copied to --workdir (default: the recording's repository path, else /repo), and compares each
observation with the recorded one.
  --until N     replay steps 0..N-1 only
  --json        one JSON line per step {"index", "matched", "diff"}, then {"summary": {...}}
  --forgive     normalisers to apply (default: all): ${NORMALISER_NAMES.join(', ')}
Exit code: 0 when every replayed step matched, 1 at the first divergence or error.`;

function normalisersOption(value: string | undefined): NormaliserName[] {
  if (value === undefined) return [...DEFAULT_NORMALISERS];
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(n in NORMALISERS));
  if (unknown.length > 0) throw new CliError(`--forgive: unknown normaliser(s) ${unknown.join(', ')}; choose from ${NORMALISER_NAMES.join(', ')}`);
  return names as NormaliserName[];
}

function nonNegativeInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`${name} must be a whole number, got '${value}'`);
  return Number(value);
}

/** The recording's settings; a bad tool variable in it is an error about the file. */
function recordingSettings(trajectory: Trajectory, file: string): ReplaySettings {
  try {
    return replaySettings(trajectory);
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`);
  }
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      image: { type: 'string' },
      repo: { type: 'string' },
      workdir: { type: 'string' },
      until: { type: 'string' },
      bundles: { type: 'string' },
      forgive: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new CliError(`expected one trajectory file\n\n${USAGE}`);
    if (!values.image || !values.repo) throw new CliError(`--image and --repo are required\n\n${USAGE}`);
    const until = nonNegativeInteger('--until', values.until);
    const normalisers = normalisersOption(values.forgive);
    const { trajectory } = await loadTrajectory(file, { signal: ctx.signal });
    const settings = recordingSettings(trajectory, file);
    if (settings.sweAgentVersion) ctx.stderr.write(`swe-workbench replay: ${describeVersion(settings.sweAgentVersion)}\n`);
    const bundles = bundleList(values.bundles);
    const tools = bundles ? toolSetOption(bundles) : toolSetOption(settings.bundles, `${file}: the recording's tool bundles`);
    const aci = await startContainerSession({
      image: values.image,
      repoDir: values.repo,
      repoPath: values.workdir ?? settings.repoPath ?? '/repo',
      tty: settings.tty,
      role: 'replay',
      signal: ctx.signal,
      tools,
      config: settings.config,
    }).catch((err: unknown) => {
      throw err instanceof CancelledError ? err : new CliError(`could not start the sandbox: ${(err as Error).message}`, 1);
    });
    const session = new DebugSession({ aci, sources: [new RecordingSource(trajectory.steps, aci.tools, until)], task: trajectory.task, normalisers, signal: ctx.signal });
    session.on((event) => {
      if (event.type === 'step-done' && event.comparison) printStep(ctx, values.json, event.comparison);
      if (event.type === 'error') ctx.stderr.write(`swe-workbench replay: step ${event.index}: ${event.message}\n`);
    });
    const stop = await session.continue().finally(() => session.finish());
    if (stop.reason === 'cancelled') return 130;
    const total = session.comparisons.length;
    const matched = session.comparisons.filter((c) => c.matched).length;
    const first = session.firstDivergence?.index ?? null;
    if (values.json) {
      ctx.stdout.write(JSON.stringify({ summary: { steps: total, recorded: trajectory.steps.length, matched, firstDivergence: first, stop: stop.reason, ...(stop.error ? { error: stop.error } : {}) } }) + '\n');
    } else {
      ctx.stdout.write(`${matched} of ${total} replayed steps matched${first === null ? '' : `; first divergence at step ${first}`}\n`);
    }
    return first === null && stop.reason !== 'error' ? 0 : 1;
  },
};

/** `SWE-agent 1.0.1 tools (the file says ...)`, and the fallback when the version was not one we know. */
export function describeVersion(verdict: SweAgentVersionVerdict): string {
  return `SWE-agent ${verdict.version} tools (${verdict.reason})${verdict.fallback ? `; ${verdict.fallback}` : ''}`;
}

function printStep(ctx: CommandContext, json: boolean, c: { index: number; matched: boolean; diff: string }): void {
  if (json) ctx.stdout.write(JSON.stringify({ index: c.index, matched: c.matched, diff: c.diff }) + '\n');
  else ctx.stdout.write(`step ${c.index}: ${c.matched ? 'matched' : 'DIVERGED'}\n${c.matched ? '' : c.diff.replace(/^/gm, '    ') + '\n'}`);
}
