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

/** Runs the problem statement's example: 1.00 split three ways. */
const SPLIT_THREE_WAYS = "python3 -c \"from ledger.money import Money; print([str(p) for p in Money('1.00', 'USD').allocate([1, 1, 1])])\"";

/**
 * The fix the policy types (a Python heredoc, which every scaffold's shell runs): round each part
 * as before, then hand the cents rounding lost or invented to the first parts, one by one.
 */
const FIX_ALLOCATE = `python3 - <<'EOF'
from pathlib import Path

path = Path("ledger/money.py")
old = "        return [(self * (to_decimal(r) / whole)).rounded() for r in ratios]\\n"
new = """        parts = [(self * (to_decimal(r) / whole)).rounded() for r in ratios]
        leftover = self.rounded().amount - sum(p.amount for p in parts)
        step = CENT if leftover > 0 else -CENT
        for i in range(int(abs(leftover) / CENT)):
            parts[i % len(parts)] = Money(parts[i % len(parts)].amount + step, self.currency)
        return parts
"""
path.write_text(path.read_text().replace(old, new))
EOF`;

/**
 * The episode's thoughts and commands, on the tree before the fix (the task's base commit): find
 * the method, read it, reproduce the lost cent, fix it, check the example and the tests, submit.
 */
const STEPS: readonly (readonly [thought: string, command: string])[] = [
  ['Find the allocate method.', 'grep -n "def allocate" ledger/money.py'],
  ['Read how it splits the amount.', "sed -n '75,80p' ledger/money.py"],
  ['Every part is rounded on its own. Reproduce the example from the issue.', SPLIT_THREE_WAYS],
  ['0.33 three times loses a cent. Hand the cents rounding lost to the first parts.', FIX_ALLOCATE],
  ['Check the example, then the tests.', `${SPLIT_THREE_WAYS} && python3 -m pytest -q -p no:cacheprovider tests | grep -oE '[0-9]+ (passed|failed)'`],
];
const SUBMIT_THOUGHT = 'Every cent is kept and the tests pass. Submit.';
/** mini-swe-agent's submission as its SWE-bench configuration asks for it: the marker, then the patch. */
const MINI_SUBMIT = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached';

/** Steps 1-5 (0-based 0-4) find, read, reproduce, fix and check; step 6 submits. */
export const DEMO_EPISODE: readonly ScriptedReply[] = [
  ...STEPS.map(([thought, command]) => thoughtAction(thought, command)),
  thoughtAction(SUBMIT_THOUGHT, 'submit'),
];

/**
 * The episode recorded on the buggy tree (`on-the-buggy-tree.traj`): it only reads, so its replay
 * on the sample repository diverges exactly where the tree differs (the method it reads, the patch).
 */
export const READING_EPISODE: readonly ScriptedReply[] = [
  thoughtAction('Find the allocate method.', 'grep -n "def allocate" ledger/money.py'),
  thoughtAction('Read how it hands out the remainder.', "sed -n '75,92p' ledger/money.py"),
  thoughtAction('How many tests cover money?', 'grep -c "def test_" tests/test_money.py'),
  thoughtAction('The remainder goes to the first parts, so every cent is kept. Submit.', 'submit'),
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
    replies: [...STEPS, [SUBMIT_THOUGHT, MINI_SUBMIT] as const].map(([thought, command]) => ({
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

/** What the policy does after a fork at step 2 in the recorded fork: it reads the tests instead and submits no fix. */
export const FORK_CONTINUATION: readonly ScriptedReply[] = [
  thoughtAction('Which tests call allocate?', 'grep -n "allocate" tests/test_money.py'),
  thoughtAction('Allocation is tested. Submit.', 'submit'),
];

/** What the person typed after a fork at step 1 in the recorded fork by hand. */
export const TYPED_BY_HAND: readonly string[] = [SPLIT_THREE_WAYS, 'submit'];

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
