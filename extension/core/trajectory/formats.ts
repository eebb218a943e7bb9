/**
 * The generic trajectory formats, registered from core/trajectory itself: a training framework's
 * episode (rLLM, SkyRL), plain chat messages, Harbor's ATIF and our own canonical JSON. A family's
 * own recording format comes with the family (`ScaffoldFamily.formats`).
 *
 * Fingerprint ranks, lowest tried first, across every format (a family's sit between these):
 *   10 ATIF · 20 mini-swe-agent `trajectory_format` · 30 R2E-Gym `trajectory_steps` ·
 *   40 OpenHands events · 50-60 SWE-agent `trajectory` / `history` · 70 rLLM `trajectories` ·
 *   80 canonical · 90 rLLM `steps` · 100 SkyRL · 110 mini-swe-agent messages · 115 Harbor traces ·
 *   120 OpenAI messages
 */
import { toAtif } from './atifExport';
import { toCanonicalJson } from './canonicalExport';
import { firstObject, isMessageList, isObject, isRllmStepList } from './fingerprints';
import { registerGenericFormat, type TrajectoryFormatDefinition } from './formatRegistry';
import { importAtif } from './importers/atif';
import { joinContinuations, openSubagent } from './importers/atifLinks';
import { importCanonical } from './importers/canonical';
import { importHarborTraces } from './importers/harborTraces';
import { importOpenAiMessages } from './importers/openaiMessages';
import { importRllm } from './importers/rllm';
import { importSkyRl } from './importers/skyrl';

/** ATIF names its version (`ATIF-v1.7`); Harbor's models let it be left out, so a session, an agent and steps say it too. */
const atif: TrajectoryFormatDefinition = {
  name: 'atif',
  fingerprints: [
    {
      rank: 10,
      matches: (o) =>
        isObject(o) &&
        ((typeof o.schema_version === 'string' && o.schema_version.startsWith('ATIF-')) ||
          (Array.isArray(o.steps) && isObject(o.agent) && ('session_id' in o || 'trajectory_id' in o))),
    },
  ],
  import: importAtif,
  links: { continued: joinContinuations, subagent: openSubagent },
  exporter: { extension: '.json', write: toAtif },
};

const rllm: TrajectoryFormatDefinition = {
  name: 'rllm',
  fingerprints: [
    {
      rank: 70,
      matches: (o) => {
        const first = isObject(o) && Array.isArray(o.trajectories) ? firstObject(o.trajectories) : undefined;
        return first !== undefined && Array.isArray(first.steps) && isRllmStepList(first.steps);
      },
    },
    { rank: 90, matches: (o) => isObject(o) && Array.isArray(o.steps) && ('uid' in o || 'reward' in o) && isRllmStepList(o.steps) },
  ],
  exitStatuses: { context: /prompt_length|response_length/, maxSteps: /max_turns|turns_exceeded/, budget: /^timeout$/, finished: /^env_done$/ },
  import: importRllm,
};

const canonical: TrajectoryFormatDefinition = {
  name: 'canonical',
  fingerprints: [{ rank: 80, matches: (o) => isObject(o) && Array.isArray(o.steps) && isObject(o.task) && isObject(o.outcome) && isObject(o.meta) }],
  import: importCanonical,
  exporter: { extension: '.json', write: toCanonicalJson },
};

const skyrl: TrajectoryFormatDefinition = {
  name: 'skyrl',
  fingerprints: [{ rank: 100, matches: (o) => isObject(o) && Array.isArray(o.messages) && ('trajectory_id' in o || 'finish_reason' in o) }],
  exitStatuses: {
    infra: /error_runtime/,
    evaluation: /error_evaluation/,
    context: /context_window/,
    maxSteps: /max_iterations/,
    commandTimeout: /cmd_timeout/,
    format: /bad_llm_response/,
    stuck: /stuck_in_a_loop/,
    finished: /^finish_tool$/,
  },
  import: importSkyRl,
};

const openAiMessages: TrajectoryFormatDefinition = {
  name: 'openai-messages',
  // `input`: OpenRLHF's SFT records keep the chat there (SWE-Master's data from R2E-Gym rollouts).
  fingerprints: [
    {
      rank: 120,
      matches: (o) => (Array.isArray(o) ? isMessageList(o) : isObject(o) && [o.messages, o.input].some((list) => Array.isArray(list) && isMessageList(list))),
    },
  ],
  import: importOpenAiMessages,
};

/** Harbor's traces export: rows of one run's LLM calls, each with the conversation it was sent (`conversations`). */
const harborTraces: TrajectoryFormatDefinition = {
  name: 'harbor-traces',
  fingerprints: [
    {
      rank: 115,
      matches: (o) => Array.isArray(o) && o.length > 0 && o.every((r) => isObject(r) && Array.isArray(r.conversations) && isMessageList(r.conversations)),
    },
  ],
  import: importHarborTraces,
  notARollout: "Harbor's traces export, written for training from a trial's trajectory.json (that file is the rollout)",
};

for (const format of [rllm, skyrl, harborTraces, openAiMessages, atif, canonical]) registerGenericFormat(format);
