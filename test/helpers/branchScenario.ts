/**
 * The branch-values scenario the integration test and the benchmark share: a task, a recording of
 * it, and a scripted policy whose success probability from every state is known.
 */
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TrajectorySchema } from '../../extension/core/trajectory/model';
import type { ChatRequest, ScriptedReply } from '../../scripts/demo/policy/scriptedPolicyServer';
import { TEST_IMAGE } from './docker';
import { thoughtAction } from './ledgerAgentScript';

/** A git repository the task starts from: its folder and its commits (the last is the task's base). */
interface TaskRepository {
  dir: string;
  commits: ReadonlyArray<{ sha: string }>;
}

/**
 * The sample repository (test/fixtures/sample-repo/tree of the checkout at `repoRoot`) as a
 * one-commit git repository in `dir`: for tests bundled away from the fixture's history (the
 * extension host's and the e2e suite's).
 */
export function sampleRepositoryIn(dir: string, repoRoot: string): TaskRepository {
  cpSync(path.join(repoRoot, 'test/fixtures/sample-repo/tree'), dir, { recursive: true, filter: (src) => !/(__pycache__|\.pytest_cache)$/.test(src) });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample');
  return { dir, commits: [{ sha: git('rev-parse', 'HEAD').trim() }] };
}

/**
 * A task whose policy's success probability from every state is known by construction. The task
 * passes when answer.txt holds 42 (the task's test command). The scripted policy is Markov in its
 * last command:
 *   at the start:                       write 42 (p 3/4) or 41 (p 1/4);
 *   after writing 42:                   submit;
 *   after writing 41:                   write 42 (p 1/4) or submit (p 3/4).
 * The recording wrote 42, then 41, then submitted. So the true values are
 *   V(after 41) = 1/4 (rewrite, then submit a 42),
 *   V(after 42) = 1,
 *   V(start)    = 3/4 * 1 + 1/4 * V(after 41) = 3/4 + 1/16 = 0.8125,
 * that is V(0) = 0.8125, V(1) = 1, V(2) = 0.25: the critical step is step 2 (V falls by 0.75).
 * (The rise across step 1, 0.1875, is too small for 16 samples to show reliably: not asserted.)
 */
export const WRITE_42 = 'echo 42 > answer.txt';
export const WRITE_41 = 'echo 41 > answer.txt';
export const TRUE_VALUES = new Map([
  [0, 0.8125],
  [1, 1],
  [2, 0.25],
]);

/** The command of the last assistant message (thought_action puts it in a ``` block). */
export function lastCommand(request: ChatRequest): string | undefined {
  const said = request.messages.filter((m) => m.role === 'assistant').at(-1);
  if (!said || typeof said['content'] !== 'string') return undefined;
  return [...said['content'].matchAll(/```\n([\s\S]*?)\n```/g)].at(-1)?.[1]?.trim();
}

export function answerPolicy(request: ChatRequest): ScriptedReply {
  const last = lastCommand(request);
  if (last === undefined)
    return {
      choices: [
        { probability: 0.75, reply: thoughtAction('Write the answer.', WRITE_42) },
        { probability: 0.25, reply: thoughtAction('Write the answer.', WRITE_41) },
      ],
    };
  if (last === WRITE_41)
    return {
      choices: [
        { probability: 0.25, reply: thoughtAction('That looks wrong; write it again.', WRITE_42) },
        { probability: 0.75, reply: thoughtAction('Done.', 'submit') },
      ],
    };
  return thoughtAction('Done.', 'submit');
}

const PROBLEM = 'Write the answer, 42, to answer.txt and submit.';

/** Writes the task file (run's) and the recording (42, then 41, then submit; `recordingName`, default recording.json) into `dir`; returns their paths. */
export async function answerTask(dir: string, repo: TaskRepository, recordingName = 'recording.json'): Promise<{ taskFile: string; recordingFile: string }> {
  const taskFile = path.join(dir, 'task.json');
  await writeFile(
    taskFile,
    JSON.stringify({
      image: TEST_IMAGE,
      repo: repo.dir,
      repoPath: '/repo',
      baseCommit: repo.commits.at(-1)!.sha,
      instanceId: 'ledger__answer-1',
      problemStatement: PROBLEM,
      testCommand: 'test "$(cat answer.txt)" = 42',
    }),
  );
  const recordingFile = path.join(dir, recordingName);
  const steps = [
    ['Write the answer.', WRITE_42],
    ['On second thought, 41.', WRITE_41],
    ['Done.', 'submit'],
  ].map(([thought, raw], index) => ({ index, thought, action: { raw, tool: null, args: {} }, observation: '' }));
  const recording = TrajectorySchema.parse({
    format: 'canonical',
    task: { repoPath: '/repo', problemStatement: PROBLEM },
    steps,
    outcome: { exitStatus: 'submitted' },
    meta: { id: 'answer-42', scaffold: 'swe-agent', replyFormat: 'thought_action' },
  });
  await writeFile(recordingFile, JSON.stringify(recording));
  return { taskFile, recordingFile };
}
