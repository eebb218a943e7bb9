/**
 * The task file `swe-workbench run` and `branch` take, and VS Code's Branch From Steps asks for:
 * the task's image, repository, problem statement and test command, read once and turned into the
 * launcher's request.
 */
import path from 'node:path';
import { z } from 'zod';
import { defined } from '../defined';
import { readJsonDocument } from '../input/jsonDocument';
import type { ReadOptions } from '../input/readInput';
import { parseInput } from '../trajectory/inputSchema';
import type { Trajectory } from '../trajectory/model';
import type { ScaffoldChoice } from '../scaffolds/scaffold';
import type { LaunchRequest } from '../session/launcher';

const TaskFileSchema = z
  .strictObject({
    image: z.string().min(1),
    repo: z.string().min(1),
    repoPath: z.string().startsWith('/').optional(),
    baseCommit: z
      .string()
      .regex(/^[0-9a-f]{7,40}$/, 'expected a commit sha (7 to 40 hex digits)')
      .optional(),
    instanceId: z.string().optional(),
    problemStatement: z.string().min(1).optional(),
    spec: z.string().min(1).optional(),
    bundles: z.array(z.string().min(1)).optional(),
    testCommand: z.string().min(1).optional(),
    systemPrompt: z.string().min(1).optional(),
  })
  .refine((t) => t.problemStatement !== undefined || t.spec !== undefined, { message: 'needs "problemStatement" or "spec"', path: ['problemStatement'] });
export type TaskFile = z.infer<typeof TaskFileSchema>;

/** Reads the task file through the input layer: size limit, pipe timeout, JSON errors at a line and column. */
export async function readTaskFile(file: string, options: ReadOptions = {}): Promise<TaskFile> {
  const { value } = await readJsonDocument(file, options);
  const task = parseInput(TaskFileSchema, value, file);
  return { ...task, repo: path.resolve(path.dirname(file), task.repo) };
}

/** The session `run` asks for: the task file's settings, and the recording's when forking. */
export function runRequest(
  task: TaskFile,
  taskFile: string,
  options: { fork?: { trajectory: Trajectory; ref: string; at: number }; scaffold?: ScaffoldChoice; replyFormat?: string; maxSteps?: number },
): LaunchRequest {
  return {
    mode: options.fork ? 'fork' : 'live',
    ...(options.fork ? { recording: { trajectory: options.fork.trajectory, ref: options.fork.ref }, at: options.fork.at } : {}),
    image: task.image,
    repoDir: task.repo,
    ...(task.repoPath !== undefined ? { repoPath: task.repoPath } : {}),
    ...(task.bundles ? { bundles: { names: task.bundles, file: taskFile, where: '$.bundles' } } : {}),
    task: defined({ instanceId: task.instanceId, baseCommit: task.baseCommit, problemStatement: task.problemStatement ?? task.spec }),
    ...defined({
      baseCommit: task.baseCommit,
      systemPrompt: task.systemPrompt,
      scaffold: options.scaffold,
      replyFormat: options.replyFormat,
      maxSteps: options.maxSteps,
      testCommand: task.testCommand,
    }),
  };
}
