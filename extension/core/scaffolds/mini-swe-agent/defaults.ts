/**
 * What mini-swe-agent uses when a recording does not carry its config: the templates and
 * environment of its `default.yaml` at v1.17.5 and v2.4.6 (learned from
 * ../shared/oracles/mini-swe-agent), and the agent's built-in timeout template.
 */
export type MiniVersion = '1.x' | '2.x';

const LONG_OUTPUT = `{%- else -%}
<warning>
The output of your last command was too long.
Please try a different command that produces less output.
If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.
If you're using grep or find and it produced too much output, you can use a more selective search pattern.
If you really need to see something from the full command's output, you can redirect output to a file and then search in that file.
</warning>
{%- set elided_chars = output.output | length - 10000 -%}
<output_head>
{{ output.output[:5000] }}
</output_head>
<elided_chars>
{{ elided_chars }} characters elided
</elided_chars>
<output_tail>
{{ output.output[-5000:] }}
</output_tail>
{%- endif -%}
`;

const OBSERVATION_1 = `<returncode>{{output.returncode}}</returncode>
{% if output.output | length < 10000 -%}
<output>
{{ output.output -}}
</output>
${LONG_OUTPUT}`;

const OBSERVATION_2 = `{% if output.exception_info -%}
<exception>{{output.exception_info}}</exception>
{% endif -%}
${OBSERVATION_1}`;

const FORMAT_GUIDE = (fence: string) => `Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.
If you want to end the task, please issue the following command: \`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\`
without any other command.
Else, please format your response exactly as follows:

<response_example>
Here are some thoughts about why you want to perform the action.

\`\`\`${fence}
<action>
\`\`\`
</response_example>

Note: In rare cases, if you need to reference a similar format in your command, you might have
to proceed in two steps, first writing TRIPLEBACKTICKSBASH, then replacing them with \`\`\`${fence}.`;

const FORMAT_ERROR_2 = `{% if finish_reason is defined and finish_reason in ["length", "tool_calls"] -%}
Your previous response reached the output token limit (finish_reason={{ finish_reason }}) before you produced a complete action, so it was cut off. Respond more concisely and provide exactly one action in the required format. If you need to think more, do so briefly.
{%- else -%}
Format error:

<error>
{{error}}
</error>

Here is general guidance on how to format your response:

${FORMAT_GUIDE('mswea_bash_command')}
{%- endif %}`;

const TIMEOUT = `The last command <command>{{action['action']}}</command> timed out and has been killed.
The output of the command was:
 <output>
{{output}}
</output>
Please try another command and make sure to avoid those requiring interactive input.`;

const ENV = { PAGER: 'cat', MANPAGER: 'cat', LESS: '-R', PIP_PROGRESS_BAR: 'off', TQDM_DISABLE: '1' };

const SYSTEM = (fence: string) => `You are a helpful assistant that can interact with a computer.

Your response must contain exactly ONE bash code block with ONE command (or commands connected with && or ||).
Include a THOUGHT section before your command where you explain your reasoning process.
Format your response as shown in <format_example>.

<format_example>
Your reasoning and analysis here. Explain why you want to perform the action.

\`\`\`${fence}
your_command_here
\`\`\`
</format_example>

Failure to follow these rules will cause your response to be rejected.
To finish, issue the following command: \`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\`
without any other command.`;

export const MINI_DEFAULTS: Record<
  MiniVersion,
  {
    fence: string;
    observationTemplate: string;
    formatErrorTemplate: string;
    timeoutTemplate: string;
    actionRegex: string;
    env: Record<string, string>;
    timeoutS: number;
    systemPrompt: string;
  }
> = {
  '1.x': {
    fence: 'bash',
    observationTemplate: OBSERVATION_1,
    formatErrorTemplate: `${FORMAT_GUIDE('bash')}\n`,
    timeoutTemplate: TIMEOUT,
    // Older runs fenced with mswea_bash_command; 1.17's default is bash.
    actionRegex: '```(?:bash|mswea_bash_command)\\s*\\n(.*?)\\n```',
    env: ENV,
    timeoutS: 30,
    systemPrompt: SYSTEM('bash'),
  },
  '2.x': {
    fence: 'mswea_bash_command',
    observationTemplate: OBSERVATION_2,
    formatErrorTemplate: FORMAT_ERROR_2,
    timeoutTemplate: TIMEOUT,
    actionRegex: '```mswea_bash_command\\s*\\n(.*?)\\n```',
    env: ENV,
    timeoutS: 30,
    systemPrompt: SYSTEM('mswea_bash_command'),
  },
};

/** The words of mini-swe-agent's command that ends a run and submits (1.x and 0.x). */
export const MINI_SUBMIT_MARKERS = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;
