/**
 * A short agent episode on the sample repository (the `ledger` package), as a scripted policy
 * would answer in SWE-agent's thought_action scaffold, and the pieces sessions in tests share.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AciSession } from '../../extension/core/aci/aciSession';
import { PolicyClient, type PolicyClientOptions } from '../../extension/core/policy/policyClient';
import { PolicySource } from '../../extension/core/session/actionSources';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo, type SampleRepo } from './sampleRepo';
import type { ScriptedReply } from '../../scripts/demo/policy/scriptedPolicyServer';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { sweAgentFamily } from '../../extension/core/scaffolds/swe-agent';

export const SYSTEM_PROMPT = 'You are a careful software engineer working in a bash shell.';
export const INSTRUCTIONS = 'Money.allocate must keep every cent. Check the implementation and submit.';

export function thoughtAction(thought: string, command: string, tokenLogprobs?: number[]): ScriptedReply {
  return { content: `${thought}\n\n\`\`\`\n${command}\n\`\`\``, ...(tokenLogprobs ? { tokenLogprobs } : {}) };
}

/** Step 0 finds the method, step 1 opens the file at it, step 2 counts the tests, step 3 submits. */
export const LEDGER_EPISODE: ScriptedReply[] = [
  thoughtAction('Find the allocate method.', 'grep -n "def allocate" ledger/money.py', [-0.05, -1.5, -0.25]),
  thoughtAction('Open the file at the method.', 'open "ledger/money.py" 75'),
  thoughtAction('How many tests cover money?', 'grep -c "def test_" tests/test_money.py'),
  thoughtAction('The implementation keeps every cent.', 'submit'),
];

export async function sampleRepoCopy(): Promise<SampleRepo & { cleanup(): Promise<void> }> {
  const parent = await mkdtemp(path.join(tmpdir(), 'swb-session-repo-'));
  const repo = await materializeSampleRepo(path.join(parent, 'repo'));
  return { ...repo, cleanup: () => rm(parent, { recursive: true, force: true }) };
}

export async function policySource(url: string, aci: AciSession, options: Partial<PolicyClientOptions> = {}): Promise<PolicySource> {
  const client = await PolicyClient.connect({
    baseUrl: url,
    logprobs: true,
    topLogprobs: 2,
    sampling: { temperature: 0.6, topP: 0.95, topK: 20 },
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  const scaffold = sweAgentFamily.create(sweAgentFamily.versions.at(-1)!, undefined, { replyFormat: 'thought_action' });
  return new PolicySource({ client, tools: aci.tools, scaffold, systemPrompt: SYSTEM_PROMPT, instructions: INSTRUCTIONS });
}

export function aciFor(sandbox: Sandbox): AciSession {
  return new AciSession(sandbox, { tools: toolSetFor() });
}
