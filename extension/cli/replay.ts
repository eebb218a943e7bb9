/**
 * `swe-workbench replay`: runs a recording's actions again in the task's container and says,
 * step by step, whether each observation is the recorded one.
 */
import { defined } from '../core/defined';
import { CancelledError, errorText, InputError } from '../core/errors';
import { launch } from '../core/session/launcher';
import { replayRequest } from '../core/session/replayRun';
import { DEFAULT_NORMALISERS, knownNormalisers, normalisersNamed } from '../core/session/divergence';
import { loadTrajectory } from '../core/trajectory/load';
import { describeChoice, familyNormalisers, knownScaffolds } from '../core/scaffolds/registry';
import type { Normaliser, ScaffoldChoice } from '../core/scaffolds/scaffold';
import type { DebugSession, Stop } from '../core/session/debugSession';
import { bundleList, checkBundleOption } from './bundleOption';
import { scaffoldOption } from './scaffoldOption';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const usage = () => `usage: swe-workbench replay TRAJ --image IMAGE --repo DIR [--until N] [--json]
                            [--workdir PATH] [--scaffold NAME@VERSION] [--bundles a,b] [--forgive a,b]

Replays the recorded actions of TRAJ (any supported format) in a container of IMAGE with DIR
copied to --workdir (default: the recording's repository path, else /repo), and compares each
observation with the recorded one.
  --scaffold    the scaffold whose tools replay it (default: the one the recording shows;
                its name, version and the evidence are printed first): ${knownScaffolds().join(', ')}
  --bundles     SWE-agent tool bundles instead of the recording's
  --until N     replay the first N steps only (steps 1..N)
  --json        one JSON line per step {"index", "matched", "diff"}, then {"summary": {...}}; index and
                firstDivergence count from 0 (step 1 is index 0), as the recording's steps do
  --forgive     normalisers to apply (default: ${names(DEFAULT_NORMALISERS)}, and a scaffold's
                own: ${familiesOwn()});
                differences the image or machine makes, only when named: ${names(knownNormalisers().filter((n) => n.environment))}
Exit code: 0 when every replayed step matched, 1 at the first divergence or error.`;

const names = (normalisers: readonly Normaliser[]) => normalisers.map((n) => n.name).join(', ');

/** Each installed family's own normalisers, as `family's a, b`. */
function familiesOwn(): string {
  const byFamily = new Map<string, Normaliser[]>();
  for (const { title, normaliser } of familyNormalisers()) byFamily.set(title, [...(byFamily.get(title) ?? []), normaliser]);
  return [...byFamily].map(([title, own]) => `${title}'s ${names(own)}`).join('; ') || 'none';
}

/** `--forgive`: undefined when not given, so the scaffold's own normalisers join the default ones. */
function normalisersOption(value: string | undefined): Normaliser[] | undefined {
  if (value === undefined) return undefined;
  const named = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  try {
    return normalisersNamed(named);
  } catch (err) {
    throw new CliError(`--forgive: ${errorText(err)}`);
  }
}

function nonNegativeInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`${name} must be a whole number, got '${value}'`);
  return Number(value);
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      image: { type: 'string' },
      repo: { type: 'string' },
      workdir: { type: 'string' },
      until: { type: 'string' },
      bundles: { type: 'string' },
      scaffold: { type: 'string' },
      forgive: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new CliError(`expected one trajectory file\n\n${usage()}`);
    if (!values.image || !values.repo) throw new CliError(`--image and --repo are required\n\n${usage()}`);
    const until = nonNegativeInteger('--until', values.until);
    const normalisers = normalisersOption(values.forgive);
    const { trajectory } = await loadTrajectory(file, { signal: ctx.signal });
    const bundles = bundleList(values.bundles);
    if (bundles) checkBundleOption(bundles); // an unknown bundle named on the command line is a usage error (exit 2)
    const { scaffold } = scaffoldOption(values.scaffold);
    const request = replayRequest(
      { trajectory, ref: file },
      { image: values.image, repoDir: values.repo, ...defined({ normalisers, workdir: values.workdir, until, bundles, scaffold }) },
    );
    const sandboxError = (err: unknown) => {
      throw err instanceof CancelledError || err instanceof InputError ? err : new CliError(`could not start the sandbox: ${errorText(err)}`, 1);
    };
    const { debug: session, plan } = await launch(request, {
      role: 'replay',
      signal: ctx.signal,
      // No fork can follow in this process: no snapshots.
      snapshots: false,
      onSettled: (settled) => ctx.stderr.write(`swe-workbench replay: ${describeChoice(settled.scaffoldChoice)}\n`),
    }).catch(sandboxError);
    const choice = plan.scaffoldChoice;
    session.on((event) => {
      if (event.type === 'step-done' && event.comparison) printStep(ctx, values.json, event.comparison);
      if (event.type === 'error') ctx.stderr.write(`swe-workbench replay: step ${event.index + 1}: ${event.message}\n`);
    });
    const stop = await session.continue().finally(() => session.finish());
    if (stop.reason === 'cancelled') return 130;
    return printSummary(session, stop, { choice, recorded: trajectory.steps.length, json: values.json }, ctx);
  },
};

function printStep(ctx: CommandContext, json: boolean, c: { index: number; matched: boolean; diff: string }): void {
  if (json) ctx.stdout.write(JSON.stringify({ index: c.index, matched: c.matched, diff: c.diff }) + '\n');
  // People count steps from 1 (the stepper's Step N); the JSON keeps the 0-based index.
  else ctx.stdout.write(`step ${c.index + 1}: ${c.matched ? 'matched' : 'DIVERGED'}\n${c.matched ? '' : c.diff.replace(/^/gm, '    ') + '\n'}`);
}

/** How many replayed steps matched and where the first divergence is; 0 when none diverged. */
function printSummary(
  session: DebugSession,
  stop: Stop,
  { choice, recorded, json }: { choice: ScaffoldChoice; recorded: number; json: boolean },
  ctx: CommandContext,
): number {
  const total = session.comparisons.length;
  const matched = session.comparisons.filter((c) => c.matched).length;
  const first = session.firstDivergence?.index ?? null;
  if (json) {
    ctx.stdout.write(
      JSON.stringify({
        summary: {
          scaffold: choice,
          steps: total,
          recorded,
          matched,
          firstDivergence: first,
          stop: stop.reason,
          ...(stop.error ? { error: stop.error } : {}),
        },
      }) + '\n',
    );
  } else {
    ctx.stdout.write(`${matched} of ${total} replayed steps matched${first === null ? '' : `; first divergence at step ${first + 1}`}\n`);
  }
  return first === null && stop.reason !== 'error' ? 0 : 1;
}
