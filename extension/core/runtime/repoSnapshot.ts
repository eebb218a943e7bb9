/**
 * snapshot/reset of the repository through the sandbox's own shell: a tar of the whole
 * repository directory, .git included, so tracked, untracked and ignored files, the index and
 * HEAD all come back. Its cost grows with the repository's size (a SWE-bench repository of a
 * few hundred MB takes seconds), and files outside the repository are not covered.
 */
import { bashQuote } from './shellSession';
import type { ExecResult } from './sandbox';

type Exec = (command: string, options: { timeoutMs: number }) => Promise<ExecResult>;

const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;

async function run(exec: Exec, command: string, what: string): Promise<void> {
  const r = await exec(command, { timeoutMs: SNAPSHOT_TIMEOUT_MS });
  if (r.exitCode !== 0 || r.timedOut) throw new Error(`${what} failed (exit ${r.exitCode}${r.timedOut ? ', timed out' : ''}): ${r.output.slice(-2000)}`);
}

export class RepoSnapshots {
  private count = 0;
  private readonly taken = new Set<string>();

  constructor(
    private readonly exec: Exec,
    private readonly repoPath: string,
    private readonly dir: string,
  ) {}

  async snapshot(): Promise<string> {
    const id = `snapshot-${++this.count}`;
    const file = bashQuote(`${this.dir}/${id}.tar`);
    await run(this.exec, `mkdir -p ${bashQuote(this.dir)} && tar -C ${bashQuote(this.repoPath)} -cf ${file} .`, 'snapshot');
    this.taken.add(id);
    return id;
  }

  async reset(id: string): Promise<void> {
    if (!this.taken.has(id)) throw new Error(`unknown snapshot '${id}' (known: ${[...this.taken].join(', ') || 'none'})`);
    const repo = bashQuote(this.repoPath);
    // The shell may stand in a directory the reset deletes and recreates: enter it again.
    await run(
      this.exec,
      `find ${repo} -mindepth 1 -maxdepth 1 -exec rm -rf {} + && tar -C ${repo} -xpf ${bashQuote(`${this.dir}/${id}.tar`)} && { cd -- "$PWD" 2>/dev/null || cd -- ${repo}; }`,
      'reset',
    );
  }
}
