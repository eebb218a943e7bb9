/**
 * What a session will be, decided before anything runs: `planSession` turns a request (a replay of
 * a recording, a live run against a policy, or a fork that replays a recording up to a step and
 * continues live) into the image, repository path, tools and their variables, terminal mode,
 * scaffold, prompts and the recorded meta. Pure: no container, no policy (a dry run plans alone;
 * `launcher.ts` plans every session it starts).
 */
import { defined } from '../defined';
import type { AciConfig } from '../aci/toolDefinition';
import type { ToolSet } from '../aci/toolRegistry';
import { errorText, InputError } from '../errors';
import { chooseScaffold, familyNormalisers, scaffoldName } from '../scaffolds/registry';
import type { Normaliser, Scaffold, ScaffoldChoice } from '../scaffolds/scaffold';
import type { Task, Trajectory, TrajectoryMeta } from '../trajectory/model';
import type { Breakpoint } from './breakpoints';
import { replaySettings } from './containerSession';
import { DEFAULT_NORMALISERS } from './divergence';

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

/** Everything decided about a session before anything runs. */
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
export function scaffoldFor(
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

/** The normalisers a scaffold's family applies to its replays before the default ones. */
function scaffoldNormalisers(scaffold: Scaffold): Normaliser[] {
  return familyNormalisers().flatMap((f) => (f.family === scaffold.name ? [f.normaliser] : []));
}

/**
 * Decides how a session runs, starting nothing (a dry run; `launch` plans every session it starts); throws an
 * `InputError` naming the recording or the option at fault.
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
