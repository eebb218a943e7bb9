/**
 * Settles the version of a scaffold a recording leaves undecided by running the recorded steps
 * under each candidate, in lockstep, until one prints what the recording holds.
 */
import type { ScaffoldChoice } from '../scaffolds/scaffold';
import type { DebugSession } from './debugSession';
import type { StartOptions } from './sessionContainer';
import { planSession, type LaunchRequest, type SessionPlan } from './sessionPlan';
import { startSession } from './sessionStart';

/** The versions a probe of `plan` compares, and why none is needed when there is nothing to compare. */
function probeVersions(request: LaunchRequest, plan: SessionPlan): readonly string[] | undefined {
  const undecided = plan.scaffoldChoice.undecided;
  if (request.scaffold !== undefined || plan.mode === 'live' || !plan.recording || !undecided || undecided.length < 2) return undefined;
  const steps = plan.recording.trajectory.steps.slice(0, plan.at ?? undefined);
  // Only steps whose tool prints differently across the candidates can tell them apart.
  const { printsByVersion } = plan.scaffold;
  const telling = printsByVersion !== undefined && steps.some((s) => s.action.tool !== null && printsByVersion(s.action.tool));
  return telling ? undecided : undefined;
}

/**
 * A replay or fork whose recording leaves versions of its scaffold undecided (`ScaffoldChoice.undecided`):
 * the recorded steps run under each version in lockstep, each in its own container, until a step's
 * output tells them apart; the version(s) that reproduced the recording there are kept. Returns the
 * plan for the version chosen, its reason saying which step decided (or that none could), and the
 * probes' containers removed. A plan with nothing to decide comes back as it was (`launch` settles
 * every plan it starts).
 */
export async function settleVersion(request: LaunchRequest, plan: SessionPlan, options: StartOptions): Promise<SessionPlan> {
  const versions = probeVersions(request, plan);
  if (!versions) return plan;
  const { testCommand: _test, breakpoints: _breakpoints, ...base } = request;
  // Each version of the recording's family, as chosen: nothing to read again.
  const spec = (version: string): ScaffoldChoice => ({ name: plan.scaffold.name, version, reason: plan.scaffoldChoice.reason });
  const probes: Array<{ version: string; debug: DebugSession }> = [];
  let alive: typeof probes = [];
  let told: { index: number; command: string } | undefined;
  let unmatched: number | undefined;
  try {
    for (const version of versions) {
      const probe = planSession({ ...base, mode: 'replay', scaffold: spec(version), ...(plan.mode === 'fork' ? { at: plan.at ?? 0 } : {}) });
      const started = await startSession(probe, { ...options, snapshots: false, live: undefined });
      probes.push({ version, debug: started.debug });
    }
    alive = probes;
    while (alive.length > 1) {
      const before = alive.map((p) => p.debug.comparisons.length);
      const stops = await Promise.all(alive.map((p) => p.debug.step()));
      const compared = alive.map((p, i) => (p.debug.comparisons.length > before[i]! ? p.debug.comparisons.at(-1) : undefined));
      if (compared.some((c) => c === undefined)) break;
      const reproduced = alive.filter((_, i) => compared[i]!.matched);
      if (reproduced.length === 0) {
        // No version reproduces this step: the repository or image differs, which no version explains.
        unmatched = compared[0]!.index;
        break;
      }
      if (reproduced.length < alive.length) {
        const index = compared[0]!.index;
        told = { index, command: plan.recording!.trajectory.steps[index]?.action.raw.trim().split('\n', 1)[0] ?? '' };
        alive = reproduced;
      }
      if (stops.some((s) => s.done)) break;
    }
  } finally {
    await Promise.allSettled(probes.map((p) => p.debug.finish()));
  }
  const kept = alive.map((p) => p.version);
  const version = kept[0]!;
  const tried = versions.join(' and ');
  const found = told
    ? `step ${told.index + 1} (\`${told.command}\`), replayed under ${tried}, prints what ${kept.join(' and ')} ${kept.length === 1 ? 'prints' : 'print'}`
    : unmatched !== undefined
      ? `replayed under ${tried}, step ${unmatched + 1} matched under none before any step told them apart: using ${version}`
      : `replayed under ${tried}, every step printed alike: using ${version}`;
  const settled = version === plan.scaffold.version ? plan : planSession({ ...request, scaffold: spec(version) });
  const { undecided: _undecided, ...choice } = plan.scaffoldChoice;
  return {
    ...settled,
    scaffoldChoice: { ...choice, version, reason: `${choice.reason}; ${found}`, ...(told && kept.length > 1 ? { undecided: kept } : {}) },
  };
}
