import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);

const repoRoot = path.resolve(__dirname, '../..');
const fixtureDir = path.join(repoRoot, 'test/fixtures/sample-repo');

/** The sample repository's final tree: the `ledger` package and its pytest suite. */
export const sampleRepoTree = path.join(fixtureDir, 'tree');

/** Files a test run or an editor may leave in the tree; never part of the sample. */
const ignoredNames = new Set(['__pycache__', '.pytest_cache', '.git']);

const historySchema = z.strictObject({
  author: z.strictObject({ name: z.string().min(1), email: z.string().min(1) }),
  commits: z
    .array(
      z.strictObject({
        date: z.iso.datetime({ offset: true }),
        message: z.string().min(1),
        paths: z.array(z.string().min(1)).min(1),
        patch: z.string().min(1).optional(),
        bugFix: z.literal(true).optional(),
      }),
    )
    .min(1),
});

type History = z.infer<typeof historySchema>;

export interface SampleRepo {
  dir: string;
  /** Oldest first. */
  commits: { sha: string; message: string }[];
  bugFixCommit: string;
}

async function loadHistory(): Promise<History> {
  const file = path.join(fixtureDir, 'history.json');
  return historySchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

/** Relative paths of every file under `dir`, sorted, skipping caches and `.git`. */
export async function listTreeFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((rel) => !rel.split(path.sep).some((part) => ignoredNames.has(part)))
    .sort();
}

async function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run('git', ['-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false', '-c', 'core.fileMode=true', ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...env },
  });
  return stdout.trim();
}

/**
 * Each commit's files as they were then: walking back from the final tree, a commit's files
 * are read before its patch is reverse-applied, which yields the tree its parent saw.
 */
async function contentsPerCommit(history: History): Promise<Map<string, string>[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'sample-repo-history-'));
  try {
    await cp(sampleRepoTree, scratch, { recursive: true, filter: (src) => !ignoredNames.has(path.basename(src)) });
    const perCommit: Map<string, string>[] = [];
    for (const commit of [...history.commits].reverse()) {
      const files = new Map<string, string>();
      for (const rel of commit.paths) files.set(rel, await readFile(path.join(scratch, rel), 'utf8'));
      perCommit.unshift(files);
      if (commit.patch) {
        await git(scratch, ['apply', '--reverse', '--whitespace=nowarn', path.join(fixtureDir, commit.patch)]);
      }
    }
    return perCommit;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Creates the sample repository at `dest` (which must not exist or be empty) with its full
 * history. Authors, committers and dates are fixed, so the shas are the same on every machine.
 */
export async function materializeSampleRepo(dest: string): Promise<SampleRepo> {
  const history = await loadHistory();
  const contents = await contentsPerCommit(history);
  await mkdir(dest, { recursive: true });
  await git(dest, ['init', '-q', '-b', 'main']);
  const commits: SampleRepo['commits'] = [];
  let bugFixCommit: string | undefined;
  for (const [i, commit] of history.commits.entries()) {
    for (const [rel, text] of contents[i] ?? []) {
      await mkdir(path.dirname(path.join(dest, rel)), { recursive: true });
      await writeFile(path.join(dest, rel), text, { mode: 0o644 });
    }
    await git(dest, ['add', '--', ...commit.paths]);
    const who = {
      GIT_AUTHOR_NAME: history.author.name,
      GIT_AUTHOR_EMAIL: history.author.email,
      GIT_AUTHOR_DATE: commit.date,
      GIT_COMMITTER_NAME: history.author.name,
      GIT_COMMITTER_EMAIL: history.author.email,
      GIT_COMMITTER_DATE: commit.date,
    };
    await git(dest, ['commit', '-q', '--no-verify', '-m', commit.message], who);
    const sha = await git(dest, ['rev-parse', 'HEAD']);
    commits.push({ sha, message: commit.message });
    if (commit.bugFix) bugFixCommit = sha;
  }
  if (bugFixCommit === undefined) throw new Error('test/fixtures/sample-repo/history.json: no commit has "bugFix": true');
  return { dir: dest, commits, bugFixCommit };
}
