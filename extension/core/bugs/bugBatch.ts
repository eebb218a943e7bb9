/**
 * A folder of bug folders validated as one batch (`bug validate DIR` where DIR holds bugs, here or
 * as a Slurm job array): which bugs it holds, and the files the batch writes, one per bug and one
 * for all, the same bytes however the work was spread.
 */
import { mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors';
import { BUG_FILES } from './bugArtifact';

/** A bug's checks as the batch files keep them: no durations, which measure a run, not the bug. */
export interface BatchCheck {
  name: string;
  passed: boolean;
  detail: string;
}

export const batchView = (r: BatchCheck): BatchCheck => ({ name: r.name, passed: r.passed, detail: r.detail });

/**
 * The bug folders inside `dir`, by name, when `dir` is not a bug folder itself; undefined when
 * it is one (it holds bug_inject.diff).
 */
export async function bugsIn(dir: string): Promise<string[] | undefined> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new InputError(dir, undefined, 'not a bug folder nor a folder of bugs (no such directory)');
  const names = await readdir(dir, { withFileTypes: true });
  if (names.some((e) => e.name === BUG_FILES.bugInjectDiff)) return undefined;
  const bugs: string[] = [];
  for (const e of names) {
    if (!e.isDirectory()) continue;
    if (await stat(path.join(dir, e.name, BUG_FILES.bugInjectDiff)).catch(() => undefined)) bugs.push(e.name);
  }
  if (bugs.length === 0) {
    // Neither: say what a bug folder lacks here (the files, in their fixed order), and what a folder of bugs would hold.
    const files = Object.values(BUG_FILES);
    const missing = files.filter((name) => !names.some((e) => e.name === name));
    throw new InputError(
      dir,
      undefined,
      `missing ${missing.join(', ')}: a bug folder holds ${files.join(', ')}; nor is it a folder of bugs (no folder inside holds ${BUG_FILES.bugInjectDiff})`,
    );
  }
  return bugs.sort();
}

/** The checks file of the whole batch: bug name to its checks, what `rollouts list --bug-checks` reads. */
const CHECKS_FILE = 'checks.json';

/** Writes OUT/<bug>.json for each bug and OUT/checks.json for all, each file whole. */
export async function writeBatchFiles(outDir: string, results: ReadonlyMap<string, readonly BatchCheck[]>): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const put = async (name: string, value: unknown) => {
    const tmp = path.join(outDir, `.${name}.tmp`);
    await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
    await rename(tmp, path.join(outDir, name));
  };
  const names = [...results.keys()].sort();
  for (const name of names) await put(`${name}.json`, results.get(name));
  await put(CHECKS_FILE, Object.fromEntries(names.map((n) => [n, results.get(n)])));
}
