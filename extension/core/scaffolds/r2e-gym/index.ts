/**
 * R2E-Gym (the scaffold of DeepSWE, rLLM and SkyRL-Agent): `file_editor`, `execute_bash`,
 * `search` and `finish`, called as `<function=...>` XML in the reply text, run one process per
 * call through `/bin/sh -c "timeout 90 ..."` (`file_editor` and `search` from a warm Python
 * that runs the same program without a start-up), observations worded by R2E-Gym's runtime.
 */
import { z } from 'zod';
import type { ParseResult } from '../../parsing/commandSyntax';
import { currentPatch } from '../../aci/repositoryPatch';
import { defineTool, type ToolDefinition } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import { shellQuote } from '../../parsing/shellWords';
import type { Sandbox } from '../../runtime/sandbox';
import { DEFAULT_R2E_IMAGE, NeedsR2eImageError, r2eGymImage } from './image';
import type { Trajectory } from '../../trajectory/model';
import { toolsCalled, type ParsedReply, type Scaffold, type ScaffoldFamily } from '../scaffold';
import { parseR2eAction, r2eActionText, splitR2eReply } from './action';
import { R2E_FINISHED, r2eObservation, runR2eTool } from './runtime';
import { R2E_PROGRAM_PATH, R2E_TOOL_DIR, R2E_TOOL_NAMES, R2E_TOOL_PROGRAM } from './toolProgram';
import { R2E_TOOL_SPECS } from './toolSpecs';
import { r2eGymFormat } from './format';

const R2E_VERSION = '69bc953';
const BUNDLE = 'r2e-gym';

/** R2E-Gym hands any parameter on to the tool's own argument parser, which answers for it. */
const AnyParameters = z.looseObject({});

function commandTool(name: string): ToolDefinition {
  return defineTool({
    name,
    bundle: BUNDLE,
    description: R2E_TOOL_SPECS.find((s) => s.function.name === name)?.function.description ?? name,
    signature: `<function=${name}>`,
    parameters: AnyParameters,
    async run(ctx, args) {
      const run = await runR2eTool(ctx.sandbox, { name, parameters: args }, ctx.signal);
      return { observation: r2eObservation(name, run), exitCode: run.code === '0' ? 0 : Number(/\d+$/.exec(run.code)?.[0] ?? 1) };
    },
  });
}

/** `finish` ends the episode; its command only echoes a marker, so nothing of the repository runs. */
const finish = defineTool({
  name: 'finish',
  bundle: BUNDLE,
  description: R2E_TOOL_SPECS.find((s) => s.function.name === 'finish')!.function.description,
  signature: '<function=finish>',
  parameters: AnyParameters,
  async run(ctx) {
    const diff = await currentPatch(ctx);
    return { observation: R2E_FINISHED, exitCode: 0, submission: 'patch' in diff ? diff.patch : '' };
  },
});

/** The tools, reading actions the way R2E-Gym's agent does (typed text is the XML form). */
class R2eToolSet extends ToolSet {
  constructor() {
    super([BUNDLE], new Map([...R2E_TOOL_NAMES.filter((n) => n !== 'finish').map((n) => [n, commandTool(n)] as const), ['finish', finish] as const]));
  }

  override parseCommand(text: string): ParseResult {
    return this.parseXmlFunctionCall(text);
  }

  override parseXmlFunctionCall(text: string): ParseResult {
    const { action } = splitR2eReply(text);
    if (action === '') return { error: 'no <function=...> call in the reply' };
    const parsed = parseR2eAction(action);
    return this.checked(parsed.name, parsed.parameters);
  }

  override parseFunctionCall(name: string, args: string | Record<string, unknown>): ParseResult {
    let values: unknown = args;
    if (typeof args === 'string') {
      try {
        values = JSON.parse(args);
      } catch {
        // R2E-Gym's function-calling parser turns any failure into an action without a call.
        return { error: 'tool call arguments are not valid JSON' };
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) return { error: 'tool call arguments are not a JSON object' };
    return this.checked(name, values as Record<string, unknown>);
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return R2E_TOOL_SPECS.map((s) => structuredClone(s));
  }

  private checked(name: string, parameters: Record<string, unknown>): ParseResult {
    if (!this.get(name))
      return {
        error: `Invalid Action: input action must be one of allowed actions \n Allowed actions: ${JSON.stringify(R2E_TOOL_NAMES)} \n Input action: ${name}\t`,
      };
    return { tool: name, args: parameters };
  }
}

/** Installs our tool program under each tool's name, where R2E-Gym puts its own. */
async function installTools(sandbox: Sandbox): Promise<void> {
  const program = R2E_PROGRAM_PATH;
  await sandbox.writeFile(program, R2E_TOOL_PROGRAM);
  const links = R2E_TOOL_NAMES.map((n) => `ln -sf ${shellQuote(program)} ${shellQuote(`${R2E_TOOL_DIR}/${n}`)}`).join(' && ');
  const result = await sandbox.exec(`chmod +x ${shellQuote(program)} && ${links} && test -x /root/.venv/bin/python`, { timeoutMs: 30_000 });
  if (result.exitCode !== 0) {
    throw new NeedsR2eImageError(
      'R2E-Gym tools need /root/.venv/bin/python in the image (R2E-Gym images have it; for a SWE-bench image R2E-Gym links /root/.venv to the testbed env; ' +
        `${DEFAULT_R2E_IMAGE}, built offline by \`swe-workbench image build\`, has it): ` +
        (result.output.trim() || `exit code ${result.exitCode}`),
    );
  }
}

function parseReply(reply: PolicyReply, tools: R2eToolSet): ParsedReply {
  const call = reply.toolCalls[0];
  if (call) {
    const parsed = tools.parseFunctionCall(call.name, call.arguments);
    const raw = 'error' in parsed ? call.arguments : r2eActionText({ name: parsed.tool, parameters: parsed.args });
    if ('error' in parsed)
      return { thought: reply.content, action: { raw, tool: null, args: {}, toolCallId: call.id }, formatError: parsed.error, errorMessage: NO_CALL_MESSAGE };
    return { thought: reply.content, action: { raw, tool: parsed.tool, args: parsed.args, toolCallId: call.id } };
  }
  const { thought, action } = splitR2eReply(reply.content);
  if (action === '')
    return { thought, action: { raw: '', tool: null, args: {} }, formatError: 'no <function=...> call in the reply', errorMessage: NO_CALL_MESSAGE };
  const parsed = parseR2eAction(action);
  const raw = r2eActionText(parsed);
  const checked = tools.parseXmlFunctionCall(action);
  if ('error' in checked) return { thought, action: { raw, tool: null, args: {} }, formatError: checked.error, errorMessage: checked.error };
  return { thought, action: { raw, tool: checked.tool, args: checked.args } };
}

/**
 * What the agent is told after a reply without a call. R2E-Gym's own text (`CONTINUE_MSG`) is
 * not in the reference checkout; a replay shows the recorded one, a live run this.
 */
const NO_CALL_MESSAGE = 'Please continue working on the task. Use exactly one function call in the <function=NAME>...</function> format.';

function systemPrompt(): string {
  const tools = R2E_TOOL_SPECS.map(
    (s) =>
      `---- BEGIN FUNCTION: ${s.function.name} ----\n${s.function.description.trim()}\nParameters: ${JSON.stringify(s.function.parameters)}\n---- END FUNCTION: ${s.function.name} ----`,
  ).join('\n\n');
  return `You are a programming agent who is provided a github issue and repository bash environment and is tasked to solve certain tasks (e.g., file localization, testcase generation, code repair and editing etc) to resolve the issue.

We have access to the following functions:

${tools}

If you choose to call a function ONLY reply in the following format with NO suffix:

<function=example_function_name>
<parameter=example_parameter_1>value_1</parameter>
<parameter=example_parameter_2>
This is the value for the second parameter
that can span
multiple lines
</parameter>
</function>

Reminder:
- Function calls MUST follow the specified format, start with <function= and end with </function>
- Required parameters MUST be specified
- Only call one function at a time
- Always provide reasoning for your function call in natural language BEFORE the function call (not after)`;
}

function createR2eGym(version = R2E_VERSION): Scaffold {
  const tools = new R2eToolSet();
  return {
    name: 'r2e-gym',
    version,
    tools,
    replyFormat: 'xml_function_calling',
    tty: false,
    config: {},
    prepare: installTools,
    present: (result) => result.observation,
    parseReply: (reply) => parseReply(reply, tools),
    toolSpecs: () => undefined,
    // R2E-Gym's agent appends the observation as the user's message, word for word.
    context: { observationTemplate: '{observation}' },
    prompts: ({ problemStatement, spec, repoPath }) => ({
      system: systemPrompt(),
      instructions: `Consider the following github issue:\n<github_issue>\n${problemStatement ?? spec}\n</github_issue>\n\nCan you help me implement the necessary changes to the repository to fix the <github_issue>?\nI've already taken care of all changes to any of the test files described in the <github_issue>. This means you DON'T have to modify the testing logic or any of the tests in any way!\nYour task is to make the minimal changes to non-tests files in the ${repoPath} directory to ensure the <github_issue> is satisfied.`,
    }),
  };
}

export const r2eGymFamily: ScaffoldFamily = {
  name: 'r2e-gym',
  title: 'R2E-Gym',
  formats: [r2eGymFormat],
  image: r2eGymImage,
  toolKinds: { execute_bash: 'run', file_editor: 'editor', search: 'search', finish: 'submit' },
  versions: [R2E_VERSION],
  detect(recording: Trajectory) {
    if (recording.format === 'r2e-gym') return { version: R2E_VERSION, reason: 'an R2E-Gym JSONL record (`trajectory_steps` with `<function=...>` actions)' };
    // rLLM and SkyRL-Agent episodes of R2E-Gym environments: recognised by the tools they call.
    const called = [...toolsCalled(recording)];
    const own: readonly string[] = R2E_TOOL_NAMES;
    if (called.length > 0 && called.every((t) => own.includes(t)) && called.some((t) => t !== 'finish')) {
      return { version: R2E_VERSION, reason: `the actions call R2E-Gym's tools (${called.join(', ')})` };
    }
    return undefined;
  },
  matchVersion: (version) => (R2E_VERSION.startsWith(version.slice(0, 7)) && version.length >= 4 ? R2E_VERSION : undefined),
  create: (version) => createR2eGym(version),
};
