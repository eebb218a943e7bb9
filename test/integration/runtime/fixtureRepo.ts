import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../../..');

/** The project's sample repository as a real git repository (one commit) in a temporary folder. */
export function sampleGitRepo(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'swe-workbench-sample-'));
  cpSync(join(repoRoot, 'test/fixtures/sample-repo/tree'), dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'sample');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
