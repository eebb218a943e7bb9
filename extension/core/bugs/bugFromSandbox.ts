import path from 'node:path';
import { throwIfAborted } from '../errors';
import type { Sandbox } from '../runtime/sandbox';
import { bashQuote } from '../runtime/shell-session';
import type { BugArtifact } from './bugArtifact';
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
  await sandbox.exec(`mkdir -p ${bashQuote(bugDirIn(sandbox))}`);
  await git(`read-tree ${base}`);
  await git('add -A');
  const listFile = path.posix.join(bugDirIn(sandbox), 'list.txt');
  const changed = (await git(`diff --cached --name-only --no-renames -z ${base}`, listFile)).split('\0').filter(Boolean);
  const tracked = (await git(`ls-tree -r --name-only -z ${base}`, listFile)).split('\0').filter(Boolean);
  const diffOf = async (files: string[]) =>
    files.length === 0 ? '' : git(`diff --cached --no-color --no-ext-diff --no-renames --full-index ${base} -- ${files.map(bashQuote).join(' ')}`, path.posix.join(bugDirIn(sandbox), 'part.diff'));
  const testChanges = changed.filter(isTest);
  const sourceChanges = changed.filter((f) => !isTest(f));
  await sandbox.exec(`rm -f ${bashQuote(scratch)}`);
  return {
    testScript: options.testScript ?? DEFAULT_TEST_SCRIPT,
    testParser: options.testParser ?? DEFAULT_TEST_PARSER,
    testFiles: tracked.filter(isTest),
    bugInjectDiff: await diffOf(sourceChanges),
    testWeakenDiff: await diffOf(testChanges),
  };
}
