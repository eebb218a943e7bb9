/**
 * How a model writes its action, as SWE-agent's parse functions read it: native function calls,
 * a command in a ``` fence after the thought (`thought_action`), or an XML function call in the
 * text (`xml_function_calling`). A reply that cannot be read becomes a format error carrying the
 * message SWE-agent would show the model, never an exception.
 */
import type { ParseResult } from '../../parsing/commandSyntax';
import type { ToolSet } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import type { Action } from '../../trajectory/model';
import type { ParsedReply } from '../scaffold';
import { splitThoughtAction } from '../../parsing/thoughtAction';

/** SWE-agent's reply formats (its parse functions), by the names its config gives them. */
export const SWE_AGENT_REPLY_FORMATS = ['function_calling', 'thought_action', 'xml_function_calling'] as const;
export type SweAgentReplyFormat = (typeof SWE_AGENT_REPLY_FORMATS)[number];

type ActionSyntax = Pick<ToolSet, 'parseCommand' | 'parseFunctionCall' | 'parseXmlFunctionCall'>;

const THOUGHT_ACTION_ERROR = `Your output was not formatted correctly. You must always include one discussion and one command as part of your response. Make sure you do not have multiple discussion/command tags.
Please make sure your output precisely matches the following format:
DISCUSSION
Discuss here with yourself about what your planning and what you're going to do in this step.

\`\`\`
command(s) that you're going to run
\`\`\`
`;

const MISSING_CALL_ERROR = `Your last output did not use any tool calls!
Please make sure your output includes exactly _ONE_ function call!
You must invoke the function directly using the function call format.
You cannot invoke commands with \`\`\`, you have to use the function call format.
If you think you have already resolved the issue, please submit your changes by running the \`submit\` command.
If you think you cannot solve the problem, please run \`exit_forfeit\` (if available) or \`submit\`.
Else, please continue with a new tool call!`;

const MULTIPLE_CALLS_ERROR = `Your last output included multiple tool calls!
Please make sure your output includes a thought and exactly _ONE_ function call.`;

function unparsable(exception: string): string {
  return `Your action could not be parsed properly: ${exception}.`;
}

export function parseReply(reply: PolicyReply, format: SweAgentReplyFormat, syntax: ActionSyntax): ParsedReply {
  switch (format) {
    case 'function_calling':
      return parseFunctionCalling(reply, syntax);
    case 'thought_action':
      return parseThoughtAction(reply.content, syntax);
    case 'xml_function_calling':
      return parseXmlCalling(reply.content, syntax);
  }
}

function failed(thought: string, raw: string, formatError: string, errorMessage: string, toolCallId?: string): ParsedReply {
  const action: Action = toolCallId === undefined ? { raw, tool: null, args: {} } : { raw, tool: null, args: {}, toolCallId };
  return { thought, action, formatError, errorMessage };
}

function fromResult(thought: string, raw: string, result: ParseResult, errorMessage: (e: string) => string, toolCallId?: string): ParsedReply {
  if ('error' in result) return failed(thought, raw, result.error, errorMessage(result.error), toolCallId);
  const action: Action = { raw, tool: result.tool, args: result.args };
  if (toolCallId !== undefined) action.toolCallId = toolCallId;
  return { thought, action };
}

function parseFunctionCalling(reply: PolicyReply, syntax: ActionSyntax): ParsedReply {
  const thought = reply.content;
  const [call, ...others] = reply.toolCalls;
  if (!call) return failed(thought, '', 'no tool call in the reply', MISSING_CALL_ERROR);
  if (others.length > 0) {
    return failed(thought, call.arguments, `${reply.toolCalls.length} tool calls where one is allowed`, MULTIPLE_CALLS_ERROR, call.id);
  }
  return fromResult(thought, call.arguments, syntax.parseFunctionCall(call.name, call.arguments), unparsable, call.id);
}

function parseThoughtAction(text: string, syntax: ActionSyntax): ParsedReply {
  const split = splitThoughtAction(text);
  if (!split) return failed(text, '', 'no command in a ``` block', THOUGHT_ACTION_ERROR);
  return fromResult(split.thought, split.action, syntax.parseCommand(split.action), () => THOUGHT_ACTION_ERROR);
}

const XML_CALL = /<function=[^>\s]+>[\s\S]*?<\/function>/g;

function parseXmlCalling(text: string, syntax: ActionSyntax): ParsedReply {
  const calls = text.match(XML_CALL) ?? [];
  if (calls.length === 0) return failed(text, '', 'no function call in the reply', MISSING_CALL_ERROR);
  if (calls.length > 1) return failed(text, calls.join('\n'), `${calls.length} function calls where one is allowed`, MULTIPLE_CALLS_ERROR);
  const raw = calls[0]!;
  const thought = text.slice(0, text.indexOf(raw)).trimEnd();
  return fromResult(thought, raw, syntax.parseXmlFunctionCall(raw), unparsable);
}
