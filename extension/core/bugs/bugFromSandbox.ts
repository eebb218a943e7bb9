import path from 'node:path';
import { throwIfAborted } from '../errors';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shellSession';
import { BUG_FILES, type BugArtifact } from './bugArtifact';
import { bugDirIn } from './bugTestRun';
import { DEFAULT_TEST_PARSER, DEFAULT_TEST_SCRIPT } from './defaultBugScripts';
import { isPytestTestFile } from './testFiles';

export interface BugFromSandboxOptions {
  /** The commit the diffs are taken against (default HEAD). */
  baseRef?: string;
  /** Overrides pytest's conventions for which files are tests. */
  isTestFile?: (file: string) => boolean;
  testScript?: string;
  testParser?: string;
  /** Keeps bug folders saved in the working tree (untracked, two or more of the five files) out of the new bug. */
  excludeSavedBugs?: boolean;
  signal?: AbortSignal;
}

/**
 * Turns the sandbox's working tree into a bug: source changes against the base commit become
 * bug_inject.diff, test changes test_weaken.diff (new and deleted files included), and every
 * test file of the base tree goes to test_files.txt. A scratch index is used, so the
 * repository's own index is left as it was.
 */
export async function bugFromSandbox(sandbox: Sandbox, options: BugFromSandboxOptions = {}): Promise<BugArtifact> {
  const base = bashQuote(options.baseRef ?? 'HEAD');
  const isTest = options.isTestFile ?? isPytestTestFile;
  const scratch = path.posix.join(bugDirIn(sandbox), 'scratch-index');
  const git = async (args: string, out?: string) => {
    throwIfAborted(options.signal);
    const redirect = out ? ` > ${bashQuote(out)}` : '';
    const r = await sandbox.exec(`GIT_INDEX_FILE=${bashQuote(scratch)} git ${args}${redirect}`, { cwd: sandbox.repoPath, signal: options.signal });
    if (r.exitCode !== 0) throw new Error(`git ${args.split(' ')[0]} failed in the sandbox: ${r.output.trim().slice(-400)}`);
    return out ? sandbox.readFile(out) : r.output;
  };
  const lines = (text: string) => text.split('\n').filter(Boolean);
  const dir = bugDirIn(sandbox);
  await sandbox.exec(`mkdir -p ${bashQuote(dir)}`);
  await git(`read-tree ${base}`);
  await git('add -A');
  if (options.excludeSavedBugs) {
    const saved = savedBugDirs(lines(await git(`-c core.quotePath=false diff --cached --name-only --diff-filter=A ${base}`)));
    // Only the scratch index forgets them: the working tree keeps its saved bugs.
    if (saved.length > 0) await git(`rm -r -q --cached --ignore-unmatch -- ${saved.map(bashQuote).join(' ')}`);
  }
  const changed = lines(await git(`-c core.quotePath=false diff --cached --name-only --no-renames ${base}`, path.posix.join(dir, 'changed.txt')));
  const tracked = lines(await git(`-c core.quotePath=false ls-tree -r --name-only ${base}`, path.posix.join(dir, 'tracked.txt')));
  const diffOf = async (files: string[], name: string) =>
    files.length === 0
      ? ''
      : git(`diff --cached --no-color --no-ext-diff --no-renames --full-index ${base} -- ${files.map(bashQuote).join(' ')}`, path.posix.join(dir, name));
  const testChanges = changed.filter(isTest);
  const sourceChanges = changed.filter((f) => !isTest(f));
  const [bugInjectDiff, testWeakenDiff] = [await diffOf(sourceChanges, 'inject.diff'), await diffOf(testChanges, 'weaken.diff')];
  await sandbox.exec(`rm -f ${bashQuote(scratch)}`);
  return {
    testScript: options.testScript ?? DEFAULT_TEST_SCRIPT,
    testParser: options.testParser ?? DEFAULT_TEST_PARSER,
    testFiles: tracked.filter(isTest),
    bugInjectDiff,
    testWeakenDiff,
  };
}

/** Folders among `added` files holding two or more of the five artifact files: bugs saved earlier. */
function savedBugDirs(added: readonly string[]): string[] {
  const names: ReadonlySet<string> = new Set(Object.values(BUG_FILES));
  const perDir = new Map<string, number>();
  for (const file of added.filter((f) => names.has(path.posix.basename(f))))
    perDir.set(path.posix.dirname(file), (perDir.get(path.posix.dirname(file)) ?? 0) + 1);
  return [...perDir].filter(([dir, count]) => count >= 2 && dir !== '.').map(([dir]) => dir);
}
