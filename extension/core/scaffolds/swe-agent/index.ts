/**
 * SWE-agent as a scaffold: a thin adapter over the ACI in core/aci (its tools, bundles and
 * parsers stay there). The version follows from the recording's bundles and format version.
 */
import { aciConfigForRecording } from './recordingConfig';
import { DEFAULT_BUNDLES, toolSetFor } from '../../aci/standardTools';
import { DEFAULT_OBSERVATION_TEMPLATE } from '../../policy/context';
import { parseReply, type Scaffold as ReplyFormatName } from '../../policy/scaffolds';
import { DEFAULT_SYSTEM_PROMPT, instructionsFor } from './agentPrompts';
import type { Trajectory } from '../../trajectory/model';
import type { Scaffold, ScaffoldFamily } from '../scaffold';

export const SWE_AGENT_VERSIONS = ['0.7', '1.0', '1.1'] as const;

/** How the recording's actions were written (SWE-agent's `parse_function` type). */
export function replyFormatOf(parseFunction: string | undefined): ReplyFormatName {
  if (parseFunction === 'function_calling') return 'function_calling';
  if (parseFunction === 'xml_function_calling') return 'xml_function_calling';
  return 'thought_action';
}

/** `format` overrides the recording's reply format (`run --scaffold function_calling`). */
export function createSweAgent(version: string, recording?: Trajectory, bundles?: readonly string[], format: ReplyFormatName = replyFormatOf(recording?.meta.parseFunction)): Scaffold {
  const tools = toolSetFor(bundles ?? recording?.meta.toolBundles ?? DEFAULT_BUNDLES);
  return {
    name: 'swe-agent',
    version,
    tools,
    replyFormat: format,
    tty: recording?.meta.pty ?? false,
    config: recording ? aciConfigForRecording(recording) : {},
    parseReply: (reply) => parseReply(reply, format, tools),
    toolSpecs: () => (format === 'function_calling' ? tools.openAiToolSpecs() : undefined),
    context: { observationTemplate: DEFAULT_OBSERVATION_TEMPLATE },
    prompts: (task) => ({ system: DEFAULT_SYSTEM_PROMPT, instructions: instructionsFor(task) }),
  };
}

function versionOf(recording: Trajectory): { version: string; reason: string } {
  const declared = recording.meta.formatVersion;
  const bundles = (recording.meta.toolBundles ?? []).map((b) => b.replace(/\/+$/, '').split('/').pop() ?? b);
  if (declared && /^\d/.test(declared)) {
    const known = sweAgentFamily.matchVersion(declared);
    if (known) return { version: known, reason: `the recording's SWE-agent version is ${declared}` };
  }
  if (bundles.some((b) => b === 'windowed' || b.startsWith('windowed_'))) return { version: '1.1', reason: `replay_config bundles include '${bundles.find((b) => b.startsWith('windowed'))}' (SWE-agent 1.1 and later)` };
  if (bundles.includes('defaults')) return { version: '1.0', reason: "replay_config bundles include 'defaults' (SWE-agent 1.0)" };
  if (bundles.length > 0) return { version: '1.1', reason: `replay_config bundles ${bundles.join(', ')}` };
  return { version: '1.1', reason: 'a SWE-agent trajectory without replay_config bundles: the default tools of SWE-agent 1.1' };
}

export const sweAgentFamily: ScaffoldFamily = {
  name: 'swe-agent',
  versions: SWE_AGENT_VERSIONS,
  detect(recording) {
    if (recording.meta.scaffold?.startsWith('swe-agent')) return { version: recording.meta.scaffold.split('@')[1] ?? '1.1', reason: `meta.scaffold is '${recording.meta.scaffold}'` };
    if (recording.format === 'swe-agent') return versionOf(recording);
    return undefined;
  },
  matchVersion(version) {
    const [major, minor] = version.replace(/^v/, '').split('.');
    if (major === '0') return '0.7';
    if (major === '1' && (minor === undefined || minor === '0')) return minor === undefined ? '1.1' : '1.0';
    if (major === '1') return '1.1';
    return undefined;
  },
  create: (version, recording, bundles) => createSweAgent(version, recording, bundles),
};
