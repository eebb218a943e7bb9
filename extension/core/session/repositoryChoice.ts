/**
 * Which host folder a session copies into its container, when the recording says: the task's
 * repository as a local path, a folder whose git history holds the recorded base commit, or a
 * folder named as the task's repository (`owner/name` or the working directory's last part).
 * The front ends ask the person only when none of this answers (and remember the answer).
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Task } from '../trajectory/model';

export interface RecordedRepository {
  dir: string;
  /** Why this folder, for the log and the messages. */
  reason: string;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `dir` is a git repository whose history holds `commit`. */
function hasCommit(dir: string, commit: string): Promise<boolean> {
  if (!/^[0-9a-f]{7,64}$/i.test(commit) || !existsSync(dir)) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, 'cat-file', '-e', `${commit}^{commit}`], { timeout: 10_000 }, (error) => resolve(!error));
  });
}

/**
 * The folder among `folders` (host paths) the recording's task names, or undefined. The base
 * commit decides first (it names the exact history); then a local path in `task.repo`; then a
 * folder named as the repository.
 */
export async function recordedRepository(task: Task, folders: readonly string[]): Promise<RecordedRepository | undefined> {
  if (task.baseCommit) {
    for (const dir of folders)
      if (await hasCommit(dir, task.baseCommit)) return { dir, reason: `it holds the recorded base commit ${task.baseCommit.slice(0, 12)}` };
  }
  if (task.repo && path.isAbsolute(task.repo) && isDirectory(task.repo)) return { dir: task.repo, reason: `the recording names it as the task's repository` };
  const names = [task.repo?.split('/').filter(Boolean).at(-1), task.repoPath && task.repoPath !== '/' ? path.posix.basename(task.repoPath) : undefined].filter(
    (n): n is string => !!n && !['repo', 'testbed', 'workspace'].includes(n),
  );
  for (const name of names) {
    const dir = folders.find((f) => path.basename(f) === name);
    if (dir) return { dir, reason: `it is named '${name}' as the recorded repository` };
  }
  return undefined;
}
