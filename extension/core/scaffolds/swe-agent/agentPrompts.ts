import type { TaskStatement } from '../scaffold';

/** SWE-agent's default system message. */
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant that can interact with a computer to solve tasks.';

/** SWE-agent's instance template, with the task's repository path. */
export function instructionsFor(task: TaskStatement): string {
  return `<uploaded_files>
${task.repoPath}
</uploaded_files>
I've uploaded a code repository in the directory ${task.repoPath}. Consider the following ${task.problemStatement ? 'PR description' : 'specification'}:

<pr_description>
${task.problemStatement ?? task.spec}
</pr_description>

Can you help me implement the necessary changes to the repository so that the requirements specified in the <pr_description> are met?
Your thinking should be thorough and so it's fine if it's very long.`;
}
