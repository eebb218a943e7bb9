/**
 * The demo's episode on the sample repository (the `ledger` package): what the scripted
 * stand-in policy answers, in SWE-agent's thought_action scaffold and in each other scaffold's
 * own reply format (DEMO_EPISODE_IN), chosen by the request (demoScaffoldOf). The demo's
 * trajectories are recorded from it (scripts/demo/generate.ts) and `npm start` serves it on
 * 127.0.0.1 so a fork of any of them can be continued by "the policy" without a GPU.
 */
import type { ChatRequest, ScriptedReply } from './policy/scriptedPolicyServer';

export const DEMO_MODEL = 'scripted-demo-policy';
export const DEMO_IMAGE = 'swe-workbench/base:bookworm';
export const DEMO_INSTANCE = 'ledger__allocate-1';
export const DEMO_PROBLEM = 'Money.allocate must keep every cent: splitting 1.00 three ways gives 0.34, 0.33 and 0.33.';

function thoughtAction(thought: string, command: string): ScriptedReply {
  return { content: `${thought}\n\n\`\`\`\n${command}\n\`\`\`` };
}

/** The episode's thoughts and commands: find the method, read it, count the tests, then submit. */
const STEPS: readonly (readonly [thought: string, command: string])[] = [
  ['Find the allocate method.', 'grep -n "def allocate" ledger/money.py'],
  ['Read how it hands out the remainder.', "sed -n '75,92p' ledger/money.py"],
  ['How many tests cover money?', 'grep -c "def test_" tests/test_money.py'],
];
const SUBMIT_THOUGHT = 'The remainder goes to the first parts, so every cent is kept. Submit.';

/** Step 0 finds the method, step 1 reads it, step 2 counts the tests, step 3 submits. */
export const DEMO_EPISODE: readonly ScriptedReply[] = [
  ...STEPS.map(([thought, command]) => thoughtAction(thought, command)),
  thoughtAction(SUBMIT_THOUGHT, 'submit'),
];

const r2eCall = (name: string, params: Record<string, string>) =>
  `<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>${v}</parameter>`)
    .join('\n')}\n</function>`;

/**
 * The same episode in each scaffold's own reply format, for the live recordings in that
 * scaffold: mini-swe-agent 1.x's fenced bash block and its completion marker, R2E-Gym's
 * `<function=...>` XML ending with `finish`, OpenHands' `execute_bash` / `finish` function calls.
 */
export const DEMO_EPISODE_IN = {
  'swe-agent': { scaffold: 'swe-agent', replies: DEMO_EPISODE },
  'mini-swe-agent': {
    scaffold: 'mini-swe-agent@1.x',
    replies: [...STEPS, [SUBMIT_THOUGHT, 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'] as const].map(([thought, command]) => ({
      content: `${thought}\n\n\`\`\`bash\n${command}\n\`\`\``,
    })),
  },
  'r2e-gym': {
    scaffold: 'r2e-gym',
    replies: [
      ...STEPS.map(([thought, command]) => ({ content: `${thought}\n${r2eCall('execute_bash', { cmd: command })}` })),
      { content: `${SUBMIT_THOUGHT}\n${r2eCall('finish', { command: 'submit' })}` },
    ],
  },
  openhands: {
    scaffold: 'openhands',
    replies: [
      ...STEPS.map(([thought, command], i) => ({
        content: thought,
        toolCalls: [{ id: `call_${i}`, name: 'execute_bash', arguments: JSON.stringify({ command }) }],
      })),
      { content: SUBMIT_THOUGHT, toolCalls: [{ id: `call_${STEPS.length}`, name: 'finish', arguments: '{}' }] },
    ],
  },
} as const satisfies Record<string, { scaffold: string; replies: readonly ScriptedReply[] }>;

/** What the policy does after a fork at step 2 in the recorded fork: it looks at the journal instead. */
export const FORK_CONTINUATION: readonly ScriptedReply[] = [
  thoughtAction('Which tests call allocate?', 'grep -n "allocate" tests/test_money.py'),
  thoughtAction('Allocation is tested. Submit.', 'submit'),
];

/** What the person typed after a fork at step 1 in the recorded fork by hand. */
export const TYPED_BY_HAND: readonly string[] = [
  "python3 -c \"from ledger.money import Money; print([str(p) for p in Money('1.00', 'USD').allocate([1, 1, 1])])\"",
  'submit',
];

/**
 * Which scaffold a request comes from, by what it offers the model: OpenHands' `execute_bash`
 * function, R2E-Gym's functions listed in its system prompt, mini-swe-agent's completion marker
 * in its system prompt; anything else is SWE-agent's thought_action.
 */
export function demoScaffoldOf(request: ChatRequest): keyof typeof DEMO_EPISODE_IN {
  if (request.tools?.some((t) => t.function.name === 'execute_bash')) return 'openhands';
  const system = request.messages.find((m) => m.role === 'system')?.content;
  const text = typeof system === 'string' ? system : '';
  if (text.includes('---- BEGIN FUNCTION: execute_bash ----')) return 'r2e-gym';
  if (text.includes('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT')) return 'mini-swe-agent';
  return 'swe-agent';
}

/**
 * The served script: the episode in the requesting scaffold's reply format (SWE-agent's
 * thought_action unless the request is another scaffold's); the reply follows the conversation's
 * length, so a run from the start, a fork at any step and a second run all get the episode's
 * next action.
 */
export function demoReply(request: ChatRequest): ScriptedReply {
  const episode: readonly ScriptedReply[] = DEMO_EPISODE_IN[demoScaffoldOf(request)].replies;
  const taken = request.messages.filter((m) => m.role === 'assistant').length;
  return episode[Math.min(taken, episode.length - 1)]!;
}
