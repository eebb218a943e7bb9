/**
 * A scaffold is one agent framework's whole contract with its tools, as one unit: the tools and
 * what they print (per version), how an action is read from a model's reply and stored in a
 * recording, what a live policy is given (tool specs, reply format), how a command runs, and
 * which actions run nothing. Replay, fork and live runs take everything scaffold-specific from
 * here, so a fork of an R2E-Gym rollout continues with R2E-Gym's tools in R2E-Gym's format.
 */
import type { AciConfig, ToolResult } from '../aci/toolDefinition';
import type { OpenAiToolSpec, ToolSet } from '../aci/toolRegistry';
import type { PolicyReply } from '../policy/policyClient';
import type { BaseImageOptions, BaseImageResult } from '../runtime/baseImage';
import type { Sandbox } from '../runtime/sandbox';
import type { ShellStartup } from '../runtime/shellSession';
import type { ToolKind } from '../trajectory/actionKind';
import type { TrajectoryFormatDefinition } from '../trajectory/formatRegistry';
import type { Action, Step, Trajectory } from '../trajectory/model';
import type { TextCallFormatDefinition } from '../trajectory/textCalls';

/** What a live run's prompts are made from: where the repository is and what to do. */
export interface TaskStatement {
  repoPath: string;
  problemStatement?: string;
  spec?: string;
}

/** An installed family's name (`registry.ts`; the families are composed in `extension/families.ts`). */
export type ScaffoldName = string;

/**
 * How a model writes its action in a reply, by the name the family's own config gives it
 * (`function_calling`, `thought_action`, `xml_function_calling`, `bash_block`, `terminus_json`...);
 * recorded as `meta.parseFunction`. Each family reads its own (`Scaffold.parseReply`).
 */
type ReplyFormat = string;

/** A model's reply as a scaffold reads it: the thought, the action, or why it could not be read. */
export interface ParsedReply {
  thought: string;
  action: Action;
  /** Every action of a reply that made several tool calls (`action` is the first), run in order in one step (mini-swe-agent 2.x). */
  calls?: Action[];
  /** Why the reply could not be read; `errorMessage` is what the model is told. */
  formatError?: string;
  errorMessage?: string;
  /** What the scaffold tells the model about its reply besides the result (Terminus-2's parser warnings). */
  feedback?: string;
}

/** One scaffold at one version, bound to a recording's settings (or a live run's defaults). */
export interface Scaffold {
  readonly name: ScaffoldName;
  readonly version: string;
  /** The tools, with the parsers a recorded or typed action goes through (`parseCommand` reads this scaffold's own text form). */
  readonly tools: ToolSet;
  readonly replyFormat: ReplyFormat;
  /** Run the sandbox's shell under a pseudo-terminal (SWE-agent 1.x recordings). */
  readonly tty: boolean;
  /**
   * The startup files the scaffold's own persistent shell reads (its profile, SWE-bench's
   * `conda activate testbed`); undefined for scaffolds that run each action in a fresh process
   * started their own way (mini-swe-agent's interpreter, R2E-Gym's `/bin/sh -c`).
   */
  readonly shellStartup?: ShellStartup;
  /** Sent as the request's `parallel_tool_calls` when set, as the recording's config sent it (mini-swe-agent 2.x's swebench.yaml: true). */
  readonly parallelToolCalls?: boolean;
  /** Tool settings (window, line ends, base commit...) for the AciSession. */
  readonly config: Partial<AciConfig>;
  /** Installs what the tools need in a fresh sandbox (R2E-Gym's scripts); nothing for most. */
  prepare?(sandbox: Sandbox, signal?: AbortSignal): Promise<void>;
  /** The observation exactly as the agent read it, from what a tool returned (default: SWE-agent's runtime). */
  present?(result: ToolResult): string;
  /** Reads a policy's reply in this scaffold's reply format. */
  parseReply(reply: PolicyReply): ParsedReply;
  /** The `tools` of a chat request, when the reply format is function calling. */
  toolSpecs(): OpenAiToolSpec[] | undefined;
  /** How the history is put back to a live policy: the observation's wording and, where it differs from the generic one, the reply's. */
  readonly context: { observationTemplate: string; assistantText?: (step: Step) => string };
  /** The system prompt and first user message for a live run without a recording to continue. */
  prompts(task: TaskStatement): { system: string; instructions: string };
  /** The first user message as a live policy is first given it, once the sandbox has started (Terminus-2 fills in the first screen). */
  liveInstructions?(instructions: string): string;
  /** Where the task's files are when neither the recording nor the request says (Harbor's tasks: `/app`). */
  readonly defaultRepoPath?: string;
  /**
   * Whether the tool named `tool` can print differently in the versions detection left undecided
   * (`ScaffoldChoice.undecided`): a replay runs such a step under each to settle the version.
   */
  printsByVersion?(tool: string): boolean;
}

/**
 * A difference between a recorded and a replayed observation that says nothing about the agent's
 * world, forgiven by name: `core/session/divergence` applies it to both texts before comparing
 * them (its generic ones: a pty's line ends, durations, temporary paths...; a family's own come
 * with the family, `ScaffoldFamily.normalisers`).
 */
export interface Normaliser {
  /** How a person names it (`swe-workbench replay --forgive`). */
  readonly name: string;
  /** What differences it hides, in the words shown to the person. */
  readonly forgives: string;
  /** The difference comes from the image or the machine, not from the tools: off unless chosen (or the family's own). */
  readonly environment?: boolean;
  apply(text: string): string;
}

/** What a request sets of a family's scaffold besides its version; each family reads what it has. */
export interface ScaffoldOptions {
  /** Replaces the recording's tool bundles (SWE-agent's `--bundles`). */
  bundles?: readonly string[];
  /** One of the family's `replyFormats`, over the recording's. */
  replyFormat?: string;
}

/**
 * How a family replays a recorded step its own way (the tool set's `readRecorded`, when it has
 * one): what runs, a step that runs nothing, or a reply that could not be read.
 */
export interface RecordedStepReading {
  action: Action;
  calls?: Action[];
  formatError?: string;
  errorMessage?: string;
  /** The step is shown but runs nothing and is not compared (a turn that was not the agent's action). */
  runsNothing?: boolean;
  /** What the scaffold told the model about the reply besides its result (Terminus-2's parser warnings). */
  feedback?: string;
}

/** Which scaffold a recording was made with, and why we think so (shown to the person). */
export interface ScaffoldChoice {
  name: ScaffoldName;
  version: string;
  reason: string;
  /** Set when the asked-for or recorded version is not one we know: what we use instead. */
  fallback?: string;
  /**
   * Versions the recording's observations, read without running anything, do not tell apart
   * (`version` first): a replay runs the step that tells them apart under each (`session/launcher.ts`).
   */
  undecided?: readonly string[];
  /**
   * Set when neither the file nor any family's evidence names the scaffold: the tools its steps
   * call (`name@version` is then only what a replay runs, the default family's, never a label).
   */
  unknown?: { tools: readonly string[] };
}

/** The tools a recording's steps call (parsed names only), for families recognised by their tools. */
export function toolsCalled(recording: Trajectory): Set<string> {
  return new Set(recording.steps.flatMap((s) => (s.action.tool ? [s.action.tool] : [])));
}

/** An image a family's tools need beyond the base image (R2E-Gym's interpreter), built offline from it. */
export interface FamilyImage {
  readonly tag: string;
  /** What it adds to the base image, in words for the person. */
  readonly adds: string;
  /** Builds it from the base image (built first when missing); returns at once when it exists, unless `force`. */
  ensure(options: Omit<BaseImageOptions, 'mirror'> & { base?: string }): Promise<BaseImageResult>;
}

export interface ScaffoldFamily {
  readonly name: ScaffoldName;
  /** Its name as a person reads it (`SWE-agent`); default `name`. */
  readonly title?: string;
  /** The family's own recording formats (fingerprint, importer, exporter), registered when the family is installed. */
  readonly formats?: readonly TrajectoryFormatDefinition[];
  /** The family's own reply formats as a chat's text holds them (another format's messages: an ATIF step's, an OpenAI message's), read into calls by `core/trajectory/textCalls.ts`. */
  readonly textCalls?: readonly TextCallFormatDefinition[];
  /** What the family's own tools do, for the stepper's icons, the output-error rule and the compare view (`core/trajectory/actionKind.ts`). */
  readonly toolKinds?: Readonly<Record<string, ToolKind>>;
  /** The image its tools need beyond the base image, if any (`swe-workbench image build` builds it too). */
  readonly image?: FamilyImage;
  /**
   * Normalisers a replay of the family's recordings applies before the generic default ones (what
   * its recordings rewrite of an observation, Harbor's screens); any replay may name them.
   */
  readonly normalisers?: readonly Normaliser[];
  /** Whether an action submits in a way of the family's own, besides a tool `toolKinds` names `submit` (mini-swe-agent's marker echoed from bash). */
  submits?(action: Pick<Action, 'tool' | 'args' | 'raw'>): boolean;
  /** Tools whose call, in the family's own formats, is the model's reply text rather than an action (OpenHands' `message`). */
  readonly replyTools?: readonly string[];
  /** Known versions, oldest first; the last is the default for a live run. */
  readonly versions: readonly string[];
  /**
   * The version a recording of this family shows, with the evidence; undefined when the recording
   * is not of this family. Asked only when the file names no scaffold (`meta.scaffold`, read first by the registry).
   */
  detect(recording: Trajectory): { version: string; reason: string; undecided?: readonly string[] } | undefined;
  /**
   * How many characters of each step's observation `detect` reads (SWE-agent's: a window's header, a
   * rejection's first sentence), so a reader that keeps every step for detection (`inspect`) keeps only
   * that; a family whose `detect` reads observations says so here, one that reads none leaves it out.
   */
  readonly observationHead?: number;
  /** The known version a version string belongs to (`1.17.5` is `1`), or undefined. */
  matchVersion(version: string): string | undefined;
  /**
   * The reply formats a person may ask the family's tools to be driven in (`run --reply-format`),
   * when it has several; a request naming one chooses this family.
   */
  readonly replyFormats?: readonly string[];
  /** The tool bundles a person may name (`--bundles`), checked before anything starts; an Error naming the unknown one. */
  checkBundles?(bundles: readonly string[]): void;
  create(version: string, recording?: Trajectory, options?: ScaffoldOptions): Scaffold;
}
