/**
 * SWE-agent as a scaffold: its tools and bundles (`tools/`, on the tool host in core/aci), its
 * reply parsers (replyFormats.ts) and prompts. The version follows from the
 * recording's bundles and format version, then from its observations.
 */
import { aciConfigForRecording } from './recordingConfig';
import { ToolSet07 } from './tools/windowed07';
import { DEFAULT_BUNDLES, toolSetFor } from './tools/standardTools';
import { DEFAULT_OBSERVATION_TEMPLATE } from '../../policy/context';
import { parseReply, SWE_AGENT_REPLY_FORMATS, type SweAgentReplyFormat as ReplyFormatName } from './replyFormats';
import { DEFAULT_SYSTEM_PROMPT, instructionsFor } from './agentPrompts';
import { SWE_AGENT_VERSIONS, parseSweAgentVersion, type SweAgentVersion } from './tools/sweAgentVersion';
import { EVIDENCE_HEAD, printsByVersion, readVersionEvidence } from './versionEvidence';
import type { ShellStartup } from '../../runtime/shellSession';
import type { Trajectory } from '../../trajectory/model';
import { toolsCalled, type Scaffold, type ScaffoldFamily, type ScaffoldOptions } from '../scaffold';
import { sweAgentFormat } from './format';
// The lsp bundle (Pyright's navigation) registers itself with SWE-agent's bundles.
import './tools/lspTools';

/** How the recording's actions were written (SWE-agent's `parse_function` type). */
function replyFormatOf(parseFunction: string | undefined): ReplyFormatName {
  if (parseFunction === 'function_calling') return 'function_calling';
  if (parseFunction === 'xml_function_calling') return 'xml_function_calling';
  return 'thought_action';
}

/**
 * The shell SWE-agent's commands run in, and so what of the image's profile they see. 0.x
 * runs `docker exec -i CONTAINER /bin/bash -l -m`: a login shell (/etc/profile, ~/.profile).
 * 1.x runs SWE-ReX's bash session, an interactive bash under a pty (/etc/bash.bashrc,
 * ~/.bashrc), created with `startup_source=["/root/.bashrc"]`, sourced once more.
 */
function sweAgentShellStartup(version: SweAgentVersion): ShellStartup {
  return version.startsWith('0.') ? { login: true } : { interactive: true, source: ['/root/.bashrc'] };
}

const isReplyFormat = (text: string | undefined): text is ReplyFormatName => (SWE_AGENT_REPLY_FORMATS as readonly (string | undefined)[]).includes(text);

/** `options.replyFormat` overrides the recording's reply format (`run --reply-format function_calling`). */
function createSweAgent(version: string, recording?: Trajectory, options: ScaffoldOptions = {}): Scaffold {
  const { bundles } = options;
  const format: ReplyFormatName = isReplyFormat(options.replyFormat) ? options.replyFormat : replyFormatOf(recording?.meta.parseFunction);
  const dialect = parseSweAgentVersion(version).version;
  const bundled = toolSetFor(bundles ?? recording?.meta.toolBundles ?? DEFAULT_BUNDLES);
  // 0.x sent a command line to its shell functions as typed: they, not a parser, refused bad arguments.
  const tools = dialect.startsWith('0.') ? new ToolSet07(bundled) : bundled;
  return {
    name: 'swe-agent',
    version,
    tools,
    replyFormat: format,
    tty: recording?.meta.pty ?? false,
    shellStartup: sweAgentShellStartup(dialect),
    config: { ...(recording ? aciConfigForRecording(recording, version) : {}), sweAgentVersion: dialect },
    parseReply: (reply) => parseReply(reply, format, tools),
    toolSpecs: () => (format === 'function_calling' ? tools.openAiToolSpecs() : undefined),
    context: { observationTemplate: DEFAULT_OBSERVATION_TEMPLATE },
    prompts: (task) => ({ system: DEFAULT_SYSTEM_PROMPT, instructions: instructionsFor(task) }),
    printsByVersion: (tool) => printsByVersion(tools.get(tool)?.bundle ?? ''),
  };
}

/** Tools no other family has (the windowed viewer and search, `submit`), and SWE-agent's others, which some share. */
const OWN_TOOLS: ReadonlySet<string> = new Set([
  'submit',
  'exit_forfeit',
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'find_file',
  'search_dir',
  'search_file',
]);
const SHARED_TOOLS: ReadonlySet<string> = new Set(['bash', 'str_replace_editor', 'create', 'edit', 'insert', 'filemap']);
/** A chat file's calls (native or `<function=...>`) came with SWE-agent 1.x's tools; the file does not tell its 1.x versions apart. */
const CHAT_VERSIONS: readonly SweAgentVersion[] = ['3ea751c0', '1.1.0', '1.0.1', '1.0.0'];

/**
 * Another format's recording (chat messages, ATIF) is SWE-agent's when every tool it calls is
 * SWE-agent's and one is SWE-agent's alone (SWE-smith's fine-tuning data: bash, str_replace_editor, submit).
 */
function byTools(recording: Trajectory): { version: string; reason: string; undecided: readonly string[] } | undefined {
  const called = [...toolsCalled(recording)].sort();
  const own = called.filter((t) => OWN_TOOLS.has(t));
  if (own.length === 0 || !called.every((t) => OWN_TOOLS.has(t) || SHARED_TOOLS.has(t))) return undefined;
  return {
    version: CHAT_VERSIONS[0]!,
    reason: `the steps call SWE-agent's tools (${called.join(', ')}; ${own.join(', ')} ${own.length === 1 ? 'is' : 'are'} SWE-agent's alone), as function calls, which SWE-agent 1.x makes`,
    undecided: CHAT_VERSIONS,
  };
}

export const sweAgentFamily: ScaffoldFamily = {
  name: 'swe-agent',
  title: 'SWE-agent',
  replyFormats: SWE_AGENT_REPLY_FORMATS,
  checkBundles: (bundles) => void toolSetFor(bundles),
  formats: [sweAgentFormat],
  toolKinds: {
    open: 'view',
    goto: 'view',
    scroll_up: 'view',
    scroll_down: 'view',
    create: 'create',
    edit: 'edit',
    linting_edit: 'edit',
    search_dir: 'search',
    search_file: 'search',
    find_file: 'search',
    submit: 'submit',
    str_replace_editor: 'editor',
  },
  versions: SWE_AGENT_VERSIONS,
  detect(recording) {
    if (recording.format !== 'swe-agent') return byTools(recording);
    // The version decides what the tools print: the labels (the file's own word, its bundles, its line ends) propose, its observations decide.
    const read = readVersionEvidence(recording);
    return { version: read.version, reason: read.reason, ...(read.undecided ? { undecided: read.undecided } : {}) };
  },
  observationHead: EVIDENCE_HEAD,
  matchVersion(version) {
    const parsed = parseSweAgentVersion(version);
    return parsed.fallback?.startsWith('unknown') ? undefined : parsed.version;
  },
  create: (version, recording, options) => createSweAgent(version, recording, options),
};
