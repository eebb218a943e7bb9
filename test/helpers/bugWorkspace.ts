import { execFileSync } from 'node:child_process';
import { cp, readdir } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from './codeServer';

// Found from the checkout, not from this file: the suites also run bundled under dist/test.
const bugFixtures = path.join(repoRoot, 'test/fixtures/bugs');
const VALID_BUG = 'valid-allocate-and-close';

/** The sample repository's final tree as one commit at `dir`: what the sample bug's diffs apply to (HEAD). */
export async function sampleRepoAtHead(dir: string): Promise<string> {
  await cp(path.join(repoRoot, 'test/fixtures/sample-repo/tree'), dir, { recursive: true, filter: (src) => !/(__pycache__|\.pytest_cache)$/.test(src) });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Sample', '-c', 'user.email=sample@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample repository');
  return dir;
}

/** Copies the valid sample bug, or it with a variant's files laid over (test/fixtures/bugs/README.md), to `dest`. */
export async function copySampleBug(name: string, dest: string): Promise<string> {
  await cp(path.join(bugFixtures, VALID_BUG), dest, { recursive: true });
  if (name === VALID_BUG) return dest;
  const variant = path.join(bugFixtures, 'variants', name);
  for (const file of await readdir(variant)) await cp(path.join(variant, file), path.join(dest, file));
  return dest;
}
