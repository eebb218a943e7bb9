/**
 * The demo's episode on the sample repository (the `ledger` package): what the scripted
 * stand-in policy answers, in SWE-agent's thought_action scaffold. The demo's trajectories are
 * recorded from it (scripts/demo/generate.ts) and `npm start` serves it on 127.0.0.1 so a fork
 * can be continued by "the policy" without a GPU.
 */
import type { ChatRequest, ScriptedReply } from '../../extension/core/policy/scriptedPolicyServer';

export const DEMO_MODEL = 'scripted-demo-policy';
export const DEMO_IMAGE = 'swe-workbench/base:bookworm';
export const DEMO_INSTANCE = 'ledger__allocate-1';
export const DEMO_PROBLEM = 'Money.allocate must keep every cent: splitting 1.00 three ways gives 0.34, 0.33 and 0.33.';

function thoughtAction(thought: string, command: string): ScriptedReply {
  return { content: `${thought}\n\n\`\`\`\n${command}\n\`\`\`` };
}

/** Step 0 finds the method, step 1 reads it, step 2 counts the tests, step 3 submits. */
export const DEMO_EPISODE: readonly ScriptedReply[] = [
  thoughtAction('Find the allocate method.', 'grep -n "def allocate" ledger/money.py'),
  thoughtAction('Read how it hands out the remainder.', "sed -n '75,92p' ledger/money.py"),
  thoughtAction('How many tests cover money?', 'grep -c "def test_" tests/test_money.py'),
  thoughtAction('The remainder goes to the first parts, so every cent is kept. Submit.', 'submit'),
];

/** What the policy does after a fork at step 2 in the recorded fork: it looks at the journal instead. */
export const FORK_CONTINUATION: readonly ScriptedReply[] = [
  thoughtAction('Which tests call allocate?', 'grep -n "allocate" tests/test_money.py'),
  thoughtAction('Allocation is tested. Submit.', 'submit'),
];

/** What the person typed after a fork at step 1 in the recorded fork by hand. */
export const TYPED_BY_HAND: readonly string[] = ['python3 -c "from ledger.money import Money; print([str(p) for p in Money(\'1.00\', \'USD\').allocate([1, 1, 1])])"', 'submit'];

/**
 * The served script: the reply follows the conversation's length, so a run from the start, a
 * fork at any step and a second run all get the episode's next action.
 */
export function demoReply(request: ChatRequest): ScriptedReply {
  const taken = request.messages.filter((m) => m.role === 'assistant').length;
  return DEMO_EPISODE[Math.min(taken, DEMO_EPISODE.length - 1)]!;
}
