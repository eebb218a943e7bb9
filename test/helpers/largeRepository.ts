import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { sampleRepoCopy } from './ledgerAgentScript';

/**
 * The sample repository with about `mb` MB more of committed files of random text (15 KB each, under `big/`), as a
 * task's repository: the files and their git objects (random base64 hardly compresses) make up the size between them.
 * `mb` is the size measured on the host.
 */
export async function largeRepository(mb: number): Promise<{ dir: string; mb: number; cleanup: () => Promise<void> }> {
  const repo = await sampleRepoCopy();
  try {
    const big = path.join(repo.dir, 'big');
    await mkdir(big);
    const files = Math.round((mb * 1024 ** 2) / 2 / 15_000);
    for (let i = 0; i < files; i++) await writeFile(path.join(big, `f${i}.txt`), randomBytes(11_250).toString('base64'));
    const git = (...args: string[]) => promisify(execFile)('git', ['-C', repo.dir, ...args], { maxBuffer: 1024 ** 2 });
    await git('add', '-A');
    await git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--no-verify', '-m', 'big files');
    const du = await promisify(execFile)('du', ['-sm', repo.dir]);
    return { dir: repo.dir, mb: Number(du.stdout.split('\t')[0]), cleanup: repo.cleanup };
  } catch (err) {
    await repo.cleanup();
    throw err;
  }
}
