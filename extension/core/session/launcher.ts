/**
 * Plans and starts a session: a replay of a recording, a live run against a policy, or a fork
 * that replays a recording up to a step and continues live. `swe-workbench run`, `swe-workbench
 * replay` and the VS Code session controller all come through here, so a session started either
 * way runs the same tools with the same settings and records the same meta.
 *
 * Planning is pure (no container, no policy): `planSession` decides the image, repository path,
 * tools and their variables, terminal mode, scaffold, prompts and the recorded meta. Starting
 * takes the plan, a source for the actions after the recording (a connected policy or a person)
 * and the container's limits.
 */
import { defined } from '../defined';
import type { AciConfig } from '../aci/toolDefinition';
import type { ToolSet } from '../aci/toolRegistry';
import { errorText, InputError } from '../errors';
import type { PolicyClient, RetryRecord } from '../policy/policyClient';
import { chooseScaffold, familyNormalisers, scaffoldName } from '../scaffolds/registry';
import type { Normaliser, Scaffold, ScaffoldChoice } from '../scaffolds/scaffold';
import type { DockerConnectionOptions } from '../runtime/dockerConnection';
import type { SandboxLimits } from '../runtime/sandbox';
import type { Task, Trajectory, TrajectoryMeta } from '../trajectory/model';
import type { AciSession } from '../aci/aciSession';
import { PersonSource, PolicySource, RecordingSource, type ActionSource } from './actionSources';
import type { Breakpoint } from './breakpoints';
import { replaySettings, startContainerSession } from './containerSession';
import { DebugSession } from './debugSession';
import { DEFAULT_NORMALISERS } from './divergence';
import { forkOf } from './fork';
import { forkSnapshots, SessionSnapshots, type SnapshotKeeper } from './forkSnapshots';

type LaunchMode = 'replay' | 'live' | 'fork';

/** A recording and how to name it (its path or URI) in errors and in a fork's `meta.parent`. */
interface LaunchRecording {
  trajectory: Trajectory;
  ref: string;
}

/** What the person asked for: the CLI reads it from arguments and a task file, VS Code from pickers and settings. */
export interface LaunchRequest {
  /** `replay`: the recording's actions; `live`: the policy's; `fork`: the recording's up to `at`, then the live source's. */
  mode: LaunchMode;
  recording?: LaunchRecording;
  /** Fork: steps 0..at-1 come from the recording. Replay: only steps 0..at-1 are replayed. */
  at?: number;
  /** Fork or live run: who gives the actions after the recording's; default the policy. A person needs no problem statement. */
  by?: 'policy' | 'person';
  image: string;
  /** Host folder copied into the container. */
  repoDir: string;
  /** Where the repository sits in the container; default the recording's, else `/repo`. */
  repoPath?: string;
  /** The commit `submit` diffs against; default the recording's. */
  baseCommit?: string;
  /** Tool bundles and where the list came from (for errors); default the recording's, else the standard bundles. */
  bundles?: { names: readonly string[]; file?: string; where?: string };
  /** What is known of the task besides the recording's (instance, problem statement...); wins over the recording's. */
  task?: Partial<Task>;
  /** System prompt when the recording has none; default SWE-agent's. */
  systemPrompt?: string;
  /**
   * The scaffold (core/scaffolds) a person named, as `parseScaffoldSpec` read `NAME` or `NAME@VERSION`
   * (`--scaffold`); default the recording's, else the live default (`extension/families.ts`).
   */
  scaffold?: ScaffoldChoice;
  /** How the model writes its actions, one of a family's reply formats (SWE-agent's `thought_action`, `function_calling`, ...); default the recording's. */
  replyFormat?: string;
  /** What a replayed step's comparison forgives (`normalisersNamed`); default the scaffold family's own, then the generic default ones. */
  normalisers?: readonly Normaliser[];
  maxSteps?: number;
  breakpoints?: Breakpoint[];
  /** Run at the end (e.g. the task's tests); its output goes into the outcome. */
  testCommand?: string;
}

/** Everything decided about a session before anything runs. @internal */
export interface SessionPlan {
  mode: LaunchMode;
  recording?: LaunchRecording;
  at?: number;
  container: {
    image: string;
    repoDir: string;
    repoPath: string;
    /** The shell runs under a pseudo-terminal, as the recording's did. */
    tty: boolean;
    baseCommit?: string;
    /** The tools' variables as the recording had them (`aciConfigForRecording`). */
    config: Partial<AciConfig>;
  };
  tools: ToolSet;
  /** The scaffold the session runs: its tools, reply format, prompts and observation wording. */
  scaffold: Scaffold;
  /** Which scaffold, and why (shown to the person). */
  scaffoldChoice: ScaffoldChoice;
  /** The prompts a live source is given; a fork keeps the recording's, so the conversation continues as it was. */
  systemPrompt: string;
  instructions: string;
  task: Task;
  /** The recorded trajectory's meta, but for the model (known once a policy is connected). */
  meta: TrajectoryMeta;
  normalisers: readonly Normaliser[];
  breakpoints: Breakpoint[];
  maxSteps?: number;
  testCommand?: string;
}

/** The scaffold of a request: the one asked for, a family's reply format, or the recording's; errors name the option or file at fault. */
function scaffoldFor(
  request: Pick<LaunchRequest, 'scaffold' | 'replyFormat' | 'bundles' | 'recording'>,
  recording: Trajectory | undefined,
): { scaffold: Scaffold; choice: ScaffoldChoice } {
  const bundles = request.bundles?.names;
  try {
    return chooseScaffold({ ...defined({ asked: request.scaffold, recording, bundles, replyFormat: request.replyFormat }) });
  } catch (error) {
    const message = errorText(error);
    if (message.startsWith('--reply-format')) throw new InputError(undefined, undefined, message);
    if (request.bundles) throw new InputError(request.bundles.file, request.bundles.where, message);
    // A family's reading of the recording's settings names its place in the file itself (`replay_config...`).
    throw new InputError(request.recording?.ref, message.startsWith('replay_config') ? undefined : "the recording's tool bundles", message);
  }
}

/** What `startToolSession` starts: a scaffold's tools in a container, with no recording and no agent. */
export interface ToolSessionRequest extends Pick<LaunchRequest, 'image' | 'repoDir' | 'baseCommit' | 'scaffold' | 'bundles'> {
  repoPath: string;
  /** Tool settings over the scaffold's (e.g. `crlf`). */
  config?: Partial<AciConfig>;
  /** The container's label (`swe-workbench.role`), so leftovers say where they came from. */
  role: string;
  signal?: AbortSignal;
}

/**
 * A scaffold's tools in a container of their own, called one at a time (`swe-workbench aci`): the
 * scaffold is chosen and the container started as a session's are (its terminal, shell startup,
 * preparation, Pyright for the lsp bundle), so the tools print as they do in a replay or a run.
 */
export async function startToolSession(request: ToolSessionRequest): Promise<{ aci: AciSession; choice: ScaffoldChoice }> {
  const { scaffold, choice } = scaffoldFor(request, undefined);
  const aci = await startContainerSession({
    image: request.image,
    repoDir: request.repoDir,
    repoPath: request.repoPath,
    role: request.role,
    scaffold,
    ...defined({ config: request.config, baseCommit: request.baseCommit, signal: request.signal }),
  });
  return { aci, choice };
}

/** The normalisers a scaffold's family applies to its replays before the default ones. */
function scaffoldNormalisers(scaffold: Scaffold): Normaliser[] {
  return familyNormalisers().flatMap((f) => (f.family === scaffold.name ? [f.normaliser] : []));
}

/**
 * Decides how a session runs, starting nothing (a dry run; `launch` plans every session it starts); throws an
 * `InputError` naming the recording or the option at fault.
 * @internal
 */
export function planSession(request: LaunchRequest): SessionPlan {
  const { mode } = request;
  const recording = request.recording?.trajectory;
  if (mode !== 'live' && !request.recording) throw new InputError(undefined, undefined, `a ${mode} needs a recording`);

  if (request.at !== undefined && recording && (!Number.isInteger(request.at) || request.at < 0 || request.at > recording.steps.length)) {
    throw new InputError(
      request.recording?.ref,
      undefined,
      `cannot ${mode === 'fork' ? 'fork at' : 'replay until'} step ${request.at}: the recording has ${recording.steps.length} steps (0..${recording.steps.length})`,
    );
  }
  const { scaffold, choice } = scaffoldFor(request, recording);
  const tools = scaffold.tools;
  const settings = recording && replaySettings(recording);
  const repoPath = request.repoPath ?? settings?.repoPath ?? scaffold.defaultRepoPath ?? '/repo';
  const baseCommit = request.baseCommit ?? settings?.baseCommit;
  const task: Task = { ...recording?.task, ...defined(request.task ?? {}), image: request.image, repoPath, ...(baseCommit ? { baseCommit } : {}) };
  const prompts = scaffold.prompts({ repoPath, problemStatement: task.problemStatement ?? '' });
  const systemPrompt = recording?.meta.systemPrompt ?? request.systemPrompt ?? prompts.system;
  let instructions = recording?.meta.instructions;
  if (instructions === undefined) {
    if (mode !== 'replay' && request.by !== 'person' && task.problemStatement === undefined) {
      throw new InputError(
        request.recording?.ref,
        undefined,
        `a ${mode} run needs a problem statement for the policy, and ${recording ? 'the recording has none' : 'none was given'}`,
      );
    }
    instructions = prompts.instructions;
  }
  // The recording's terminal and tool variables go into the new trajectory: its replayed steps print as they did.
  const inherited = recording
    ? defined({
        pty: recording.meta.pty,
        toolEnvVariables: recording.meta.toolEnvVariables,
        toolRegistryVariables: recording.meta.toolRegistryVariables,
        scaffoldConfig: recording.meta.scaffoldConfig,
      })
    : {};
  const meta: TrajectoryMeta = {
    parseFunction: mode === 'replay' ? (recording?.meta.parseFunction ?? scaffold.replyFormat) : scaffold.replyFormat,
    scaffold: scaffoldName(scaffold),
    toolBundles: [...tools.bundles],
    ...(mode === 'replay' ? {} : { systemPrompt, instructions }),
    ...inherited,
    ...(mode === 'fork' && recording ? { parent: { id: recording.meta.id ?? request.recording!.ref, forkStep: (request.at ?? 0) - 1 } } : {}),
  };
  return {
    mode,
    ...(request.recording ? { recording: request.recording } : {}),
    ...(request.at !== undefined ? { at: request.at } : mode === 'fork' ? { at: 0 } : {}),
    container: {
      image: request.image,
      repoDir: request.repoDir,
      repoPath,
      tty: settings?.tty ?? scaffold.tty,
      ...(baseCommit ? { baseCommit } : {}),
      // The family's settings for this recording (SWE-agent's window, its version) with the recording's own.
      config: settings ? { ...scaffold.config, ...settings.config } : {},
    },
    tools,
    scaffold,
    scaffoldChoice: choice,
    systemPrompt,
    instructions,
    task,
    meta,
    normalisers: request.normalisers ?? [...scaffoldNormalisers(scaffold), ...DEFAULT_NORMALISERS],
    breakpoints: request.breakpoints ?? [],
    ...defined({ maxSteps: request.maxSteps, testCommand: request.testCommand }),
  };
}

/** Who gives the actions after the recording's. */
export type LiveSource =
  | {
      kind: 'policy';
      client: PolicyClient;
      observationWindow?: number;
      onRetry?: (record: RetryRecord) => void;
    }
  | { kind: 'person' };

/** The sources in turn and the final meta of a plan, given its live source. @internal */
export function sessionSources(plan: SessionPlan, live: LiveSource | undefined): { sources: ActionSource[]; meta: TrajectoryMeta; person?: PersonSource } {
  if (plan.mode === 'replay') return { sources: [new RecordingSource(plan.recording!.trajectory.steps, plan.tools, plan.at)], meta: plan.meta };
  if (!live) throw new Error(`a ${plan.mode} needs a policy or a person to give the actions`);
  const { tools, scaffold, systemPrompt, instructions } = plan;
  const person = live.kind === 'person' ? new PersonSource(tools) : undefined;
  const source: ActionSource =
    person ??
    new PolicySource({
      client: (live as Extract<LiveSource, { kind: 'policy' }>).client,
      tools,
      scaffold,
      systemPrompt,
      instructions,
      ...defined({
        onRetry: (live as Extract<LiveSource, { kind: 'policy' }>).onRetry,
        observationWindow: (live as Extract<LiveSource, { kind: 'policy' }>).observationWindow,
      }),
    });
  const meta: TrajectoryMeta = live.kind === 'policy' ? { model: live.client.model, ...plan.meta } : plan.meta;
  const sources = plan.mode === 'fork' ? forkOf(plan.recording!.trajectory, plan.recording!.ref, plan.at ?? 0, tools, source).sources : [source];
  return { sources, meta, ...(person ? { person } : {}) };
}

/** How a plan's container and session start (`launch` takes them with the live source). */
interface StartOptions {
  /** What the session is for (`replay`, `run`, `vscode-session`), as a container label. */
  role: string;
  /** Live and fork: who gives the actions after the recording's. */
  live?: LiveSource;
  limits?: Partial<SandboxLimits>;
  docker?: DockerConnectionOptions;
  signal?: AbortSignal;
  /**
   * Snapshots after every step, so a later fork of the same actions restores instead of replaying
   * (core/session/forkSnapshots): on by default, `false` turns them off (and a fork then replays).
   * With a `keeper`, the snapshots and their container outlive the session's `finish` until the
   * keeper lets them go, so a fork started after this session ended restores them too.
   */
  snapshots?:
    | false
    | {
        budgetBytes?: number;
        keeper?: SnapshotKeeper;
        /** true: differentials even for a small repository; false: the whole repository every step; by default by the repository's size. */
        differential?: boolean;
        /**
         * true: an image of every level-0 dump, whatever its size; false: none, and a fork does not start from its source's;
         * by default for a large repository.
         */
        images?: boolean;
      };
}

/** How a fork reached its step: from a running session's snapshot, or by replaying. */
export interface ForkStart {
  /** The snapshot's step (0: none was found); steps from it to the fork's step were replayed. */
  restoredAt: number;
  replayed: number;
  /** In words, for the person. */
  note: string;
}

export interface StartedSession {
  plan: SessionPlan;
  aci: AciSession;
  debug: DebugSession;
  /** The person's source, when the person gives the live actions. */
  person?: PersonSource;
  /** A fork: whether it restored a snapshot or replayed. */
  fork?: ForkStart;
  /** The snapshots the session takes after each step, unless turned off. */
  snapshots?: SessionSnapshots;
}

/** What a session's snapshots may be reused for: the same image, repository, tools and settings. */
function snapshotSetup(plan: SessionPlan): string {
  const { image, repoDir, repoPath, tty, baseCommit, config } = plan.container;
  return JSON.stringify({
    image,
    repoDir,
    repoPath,
    tty,
    baseCommit: baseCommit ?? null,
    config,
    scaffold: scaffoldName(plan.scaffold),
    bundles: plan.tools.bundles,
  });
}

/** What the Session view says of how a fork reached its step. @internal */
export function forkNote(at: number, restoredAt: number, restoreFailed: string | undefined): string {
  // A live run from a recording's task replays nothing: there is no step 1..0 to speak of.
  if (at === 0) return "a live run of the recording's task from step 1: no recorded step to replay";
  if (restoreFailed !== undefined) return `could not restore the snapshot (${restoreFailed}): replaying steps 1..${at} to fork`;
  if (restoredAt === 0) return `no running or kept session has a snapshot of this recording's steps: replaying steps 1..${at} to fork`;
  const rest = at - restoredAt;
  const replaying = rest === 0 ? '' : rest === 1 ? `, replaying step ${at}` : `, replaying steps ${restoredAt + 1}..${at}`;
  return `restored the snapshot after step ${restoredAt}${replaying}`;
}

/**
 * Starts the plan's container and a debug session in it; the session disposes the container at `finish`.
 * A fork restores the latest snapshot a running or kept session of this process took of the recording's
 * actions (core/session/forkSnapshots) and replays only the steps after it; `restoreFailed` says
 * why that failed (the source ended meanwhile), and the fork replays from the start. The front ends
 * start a session with `launch`; tests start a plan of their own here.
 * @internal
 */
export async function startSession(plan: SessionPlan, options: StartOptions, restoreFailed?: string): Promise<StartedSession> {
  const { sources, meta, person } = sessionSources(plan, options.live);
  const { container } = plan;
  const setup = snapshotSetup(plan);
  const at = plan.at ?? 0;
  const found =
    restoreFailed === undefined && plan.mode === 'fork' && at > 0 && options.snapshots !== false
      ? forkSnapshots.find(setup, plan.recording!.trajectory.steps, at, plan.tools)
      : undefined;
  // A fork from a snapshot starts with an empty repository folder, into which the snapshot goes from its session's container,
  // or from the image of the snapshot's level-0 dump, made while its session ran, which holds all but the differential.
  const fromImage = options.snapshots && options.snapshots.images === false ? undefined : found?.image;
  const starting = startContainerSession({
    image: fromImage ?? container.image,
    ...(found ? {} : { repoDir: container.repoDir }),
    repoPath: container.repoPath,
    tty: container.tty,
    role: options.role,
    scaffold: plan.scaffold,
    tools: plan.tools,
    config: container.config,
    ...defined({ baseCommit: container.baseCommit, limits: options.limits, docker: options.docker, signal: options.signal }),
  });
  // The image goes with its source session's snapshots, which may have gone meanwhile: replay instead.
  const aci = fromImage === undefined ? await starting : await starting.catch((err: unknown) => errorText(err));
  if (typeof aci === 'string') {
    options.signal?.throwIfAborted();
    return startSession(plan, options, aci);
  }
  if (found) {
    try {
      await found.restore(aci, options.signal, fromImage !== undefined);
    } catch (err) {
      await aci.dispose().catch(() => undefined);
      options.signal?.throwIfAborted();
      // The source session ended meanwhile, or its container went: replay instead.
      return startSession(plan, options, errorText(err));
    }
  }
  const snapshots =
    options.snapshots === false
      ? undefined
      : new SessionSnapshots(
          setup,
          aci,
          options.snapshots?.budgetBytes,
          undefined,
          options.snapshots?.differential !== false,
          options.snapshots?.differential ? 0 : undefined,
          options.snapshots?.images === undefined ? undefined : options.snapshots.images ? 0 : Infinity,
          container.image,
        );
  // Some first prompts are known only now (Terminus-2 shows the first screen): the new recording keeps it as the policy reads it.
  const { liveInstructions } = plan.scaffold;
  const startedMeta = meta.instructions !== undefined && liveInstructions ? { ...meta, instructions: liveInstructions(meta.instructions) } : meta;
  const debug = new DebugSession({
    aci,
    sources,
    ...(found ? { history: found.steps } : {}),
    ...(snapshots ? { snapshots } : {}),
    ...(snapshots && options.snapshots && options.snapshots.keeper ? { keeper: options.snapshots.keeper } : {}),
    task: plan.task,
    meta: startedMeta,
    breakpoints: plan.breakpoints,
    normalisers: plan.normalisers,
    ...defined({ maxSteps: plan.maxSteps, testCommand: plan.testCommand, signal: options.signal }),
  });
  if (snapshots) forkSnapshots.add(snapshots, () => debug.steps);
  const restoredAt = found?.at ?? 0;
  const fork = plan.mode === 'fork' ? { restoredAt, replayed: at - restoredAt, note: forkNote(at, restoredAt, restoreFailed) } : undefined;
  return { plan, aci, debug, ...(person ? { person } : {}), ...(fork ? { fork } : {}), ...(snapshots ? { snapshots } : {}) };
}

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
 * every plan it starts; a benchmark settles one of its own).
 * @internal
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

/** How `launch` starts a request: the container's options, and who gives the live actions. */
export interface LaunchOptions extends Omit<StartOptions, 'live'> {
  /**
   * Live and fork: who gives the actions after the recording's, or how to get them once the request
   * is planned (a policy connected only after the request proved sound).
   */
  live?: LiveSource | (() => Promise<LiveSource | undefined>);
  /** Told the plan with its settled version before the session's container starts (to tell the person the scaffold). */
  onSettled?(plan: SessionPlan): void;
}

/**
 * Plans a request, settles the version its recording leaves undecided and starts the session: the
 * one way the CLI's `run` and `replay` and the VS Code session controller start one. The session's
 * `plan` is the settled one (`plan.scaffoldChoice` names the version and why). `planSession` alone
 * plans without starting anything (a dry run).
 */
export async function launch(request: LaunchRequest, options: LaunchOptions): Promise<StartedSession> {
  const { live: given, onSettled, ...start } = options;
  const planned = planSession(request);
  const live = typeof given === 'function' ? await given() : given;
  // Versions the recording's observations leave undecided are told apart by running the step that differs under each.
  const plan = await settleVersion(request, planned, start);
  onSettled?.(plan);
  return startSession(plan, { ...start, ...defined({ live }) });
}
