import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors';
import { isNoSuchFile } from '../input/inputSource';
import { readInputText, type ReadOptions } from '../input/readInput';
import { isPytestTestFile } from './testFiles';
import { parseUnifiedDiff, touchedPaths, type FilePatch } from '../diff/unifiedDiff';

/** The five files of a self-play bug (SSR). */
export interface BugArtifact {
  testScript: string;
  /** Repository-relative test files, restored before every test run. */
  testFiles: string[];
  testParser: string;
  bugInjectDiff: string;
  testWeakenDiff: string;
}

export const BUG_FILES = {
  testScript: 'test_script.sh',
  testFiles: 'test_files.txt',
  testParser: 'test_parser.py',
  bugInjectDiff: 'bug_inject.diff',
  testWeakenDiff: 'test_weaken.diff',
} as const satisfies Record<keyof BugArtifact, string>;

/** The five files' names and contents, as a folder holds them. */
export function bugFileContents(bug: BugArtifact): Array<[string, string]> {
  const contents: Record<keyof BugArtifact, string> = { ...bug, testFiles: bug.testFiles.map((f) => `${f}\n`).join('') };
  return (Object.entries(BUG_FILES) as Array<[keyof BugArtifact, string]>).map(([key, name]) => [name, contents[key]]);
}

/**
 * Reads and checks a bug folder: every file present, paths inside the repository, diffs
 * readable. Each file goes through the input layer (size limit, pipe timeout).
 */
export async function loadBugArtifact(dir: string, options: ReadOptions = {}): Promise<BugArtifact> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new InputError(dir, undefined, 'not a bug folder (no such directory)');
  // Every file is read before any error is raised, so a folder missing several names them all,
  // in the fixed order of BUG_FILES, whatever order the reads finish in.
  const names = Object.values(BUG_FILES);
  const results = await Promise.allSettled(names.map(async (name) => (await readInputText(path.join(dir, name), options)).text));
  const missing = names.filter((_, i) => results[i]?.status === 'rejected' && isNoSuchFile((results[i] as PromiseRejectedResult).reason));
  const holds = `a bug folder holds ${names.join(', ')}`;
  if (missing.length === 1) throw new InputError(path.join(dir, missing[0]!), undefined, `missing: ${holds}`);
  if (missing.length > 1) throw new InputError(dir, undefined, `missing ${missing.join(', ')}: ${holds}`);
  const failed = results.findIndex((r) => r.status === 'rejected');
  if (failed >= 0) throw (results[failed] as PromiseRejectedResult).reason;
  const [testScript, testFilesText, testParser, bugInjectDiff, testWeakenDiff] = results.map((r) => (r as PromiseFulfilledResult<string>).value) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const bug: BugArtifact = {
    testScript,
    testFiles: parseTestFilesList(testFilesText, path.join(dir, BUG_FILES.testFiles)),
    testParser,
    bugInjectDiff,
    testWeakenDiff,
  };
  bugPatches(bug, dir);
  return bug;
}

/** Parses both diffs (throwing located errors); the paths are checked to stay inside the repository. */
export function bugPatches(bug: BugArtifact, dir?: string): { inject: FilePatch[]; weaken: FilePatch[] } {
  const where = (name: string) => (dir ? path.join(dir, name) : name);
  return {
    inject: parseUnifiedDiff(bug.bugInjectDiff, where(BUG_FILES.bugInjectDiff)),
    weaken: parseUnifiedDiff(bug.testWeakenDiff, where(BUG_FILES.testWeakenDiff)),
  };
}

function parseTestFilesList(text: string, file?: string): string[] {
  const files: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    if (line.startsWith('/') || line.split('/').includes('..'))
      throw new InputError(file, `line ${i + 1}`, `test file ${JSON.stringify(line)} is outside the repository`);
    files.push(line.replace(/^\.\//, ''));
  });
  return files;
}

/**
 * Writes the folder atomically: the five files go to a temporary sibling that is renamed over
 * the target, so a reader sees the old bug or the new one, never a mix.
 */
export async function saveBugArtifact(dir: string, bug: BugArtifact): Promise<void> {
  bugPatches(bug);
  parseTestFilesList(bug.testFiles.join('\n'));
  const target = path.resolve(dir);
  const temp = `${target}.tmp-${randomBytes(4).toString('hex')}`;
  const old = `${target}.old-${randomBytes(4).toString('hex')}`;
  await mkdir(temp, { recursive: true });
  try {
    for (const [name, content] of bugFileContents(bug)) {
      await writeFile(path.join(temp, name), content, { mode: name.endsWith('.sh') || name.endsWith('.py') ? 0o755 : 0o644 });
    }
    const existed = await stat(target).then(
      () => true,
      () => false,
    );
    if (existed) await rename(target, old);
    await rename(temp, target);
    if (existed) await rm(old, { recursive: true, force: true });
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
}

/** Source files the bug changes, and any test file it touches (listed or by pytest's conventions). */
export function bugScope(bug: BugArtifact): { sourceFiles: string[]; testFilesTouched: string[] } {
  const listed = new Set(bug.testFiles);
  const touched = touchedPaths(bugPatches(bug).inject);
  const isTest = (f: string) => listed.has(f) || isPytestTestFile(f);
  return { sourceFiles: touched.filter((f) => !isTest(f)), testFilesTouched: touched.filter(isTest) };
}
