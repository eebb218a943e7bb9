import path from 'node:path';
import { z } from 'zod';
import { describeZodError, throwIfAborted } from '../errors';
import { bashQuote } from '../runtime/shellSession';
import { restoreFromBase, runLoggedCommand } from '../runtime/repoCommands';
import type { Sandbox } from '../runtime/sandbox';
import { TEST_STATUSES, type TestStatusMap } from '../reward/testStatus';
import { BUG_FILES, bugFileContents, bugPatches, type BugArtifact } from './bugArtifact';

/** Which parts of the bug a test run sees. */
export interface RepoState {
  bug: boolean;
  weaken: boolean;
  /** Files put back to the base version after the bug is applied (inverse mutation). */
  restore?: string[];
}

export type TestRun =
  { ok: true; statuses: TestStatusMap; durationMs: number; outputTail: string } | { ok: false; reason: string; durationMs: number; outputTail: string };

export interface TestRunOptions {
  baseRef: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

const ParserOutputSchema = z.record(
  z.string(),
  z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(TEST_STATUSES)),
);

/** The bug's files live beside the repository, so `git clean` and `git diff` never see them. */
export function bugDirIn(sandbox: Sandbox): string {
  return path.posix.join(path.posix.dirname(sandbox.repoPath), '.swe-workbench-bug');
}

/** Copies the bug's files beside the repository, after checking its diffs stay inside it. */
export async function stageBug(sandbox: Sandbox, bug: BugArtifact): Promise<void> {
  bugPatches(bug);
  const dir = bugDirIn(sandbox);
  for (const [name, content] of bugFileContents(bug)) await sandbox.writeFile(path.posix.join(dir, name), content);
}

async function sh(sandbox: Sandbox, command: string, options: TestRunOptions, timeoutMs = 60_000) {
  throwIfAborted(options.signal);
  return sandbox.exec(command, { cwd: sandbox.repoPath, timeoutMs, signal: options.signal });
}

/**
 * Puts the repository in `state`: base tree, bug applied, some files restored, test files
 * restored to base (a bug must not edit them), weakening applied. Throws with git's words.
 */
export async function prepareRepo(sandbox: Sandbox, bug: BugArtifact, state: RepoState, options: TestRunOptions): Promise<void> {
  const dir = bugDirIn(sandbox);
  const base = bashQuote(options.baseRef);
  const restore = (files: readonly string[]) => restoreFromBase(options.baseRef, files);
  const steps = [
    `git reset -q --hard ${base}`,
    'git clean -fdq',
    ...(state.bug && bug.bugInjectDiff.trim() ? [`git apply --whitespace=nowarn ${bashQuote(`${dir}/${BUG_FILES.bugInjectDiff}`)}`] : []),
    ...restore(state.restore ?? []),
    ...restore(bug.testFiles),
    ...(state.weaken && bug.testWeakenDiff.trim() ? [`git apply --whitespace=nowarn ${bashQuote(`${dir}/${BUG_FILES.testWeakenDiff}`)}`] : []),
  ];
  const r = await sh(sandbox, steps.join(' && '), options);
  if (r.exitCode !== 0) throw new Error(`preparing the repository (${describeState(state)}) failed: ${r.output.trim().slice(-500)}`);
}

function describeState(state: RepoState): string {
  const parts = [state.bug ? 'bug applied' : 'original code', state.weaken ? 'tests weakened' : 'original tests'];
  if (state.restore?.length) parts.push(`restored ${state.restore.join(', ')}`);
  return parts.join(', ');
}

/** Prepares `state`, runs test_script.sh, then test_parser.py on its output. Never throws for a bad script or parser: says why. */
export async function runBugTests(sandbox: Sandbox, bug: BugArtifact, state: RepoState, options: TestRunOptions): Promise<TestRun> {
  const started = Date.now();
  const dir = bugDirIn(sandbox);
  const fail = (reason: string, outputTail = '') => ({ ok: false as const, reason, durationMs: Date.now() - started, outputTail });
  await prepareRepo(sandbox, bug, state, options);
  const log = `${dir}/test_output.txt`;
  const run = await runLoggedCommand(sandbox, `bash ${bashQuote(`${dir}/${BUG_FILES.testScript}`)}`, log, options);
  const tail = run.output.slice(-2000);
  if (run.timedOut) return fail(`test_script.sh timed out after ${Math.round(options.timeoutMs / 1000)} s`, tail);
  const parsed = await sh(
    sandbox,
    `python3 ${bashQuote(`${dir}/${BUG_FILES.testParser}`)} ${bashQuote(log)} > ${bashQuote(`${dir}/parsed.json`)} 2> ${bashQuote(`${dir}/parser.err`)}`,
    options,
  );
  if (parsed.timedOut) return fail('test_parser.py timed out', tail);
  if (parsed.exitCode !== 0) {
    const err = await sandbox.readFile(`${dir}/parser.err`).catch(() => '');
    return fail(`test_parser.py exited with ${parsed.exitCode}: ${err.trim().split('\n').slice(-3).join(' | ')}`, tail);
  }
  const text = await sandbox.readFile(`${dir}/parsed.json`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail(`test_parser.py printed something that is not JSON: ${JSON.stringify(text.slice(0, 120))}`, tail);
  }
  const map = ParserOutputSchema.safeParse(json);
  if (!map.success) {
    return fail(`test_parser.py printed JSON that is not {test_id: status}: ${describeZodError('$', map.error)}`, tail);
  }
  return { ok: true, statuses: new Map(Object.entries(map.data)), durationMs: Date.now() - started, outputTail: tail };
}
