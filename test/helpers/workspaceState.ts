import assert from 'node:assert/strict';
import type { AciSession } from '../../extension/core/aci/aciSession';

/**
 * What a person finds in a session's container: every file with its content (.git's objects and
 * index aside: the index's bytes hold inodes and times, so its entries are compared instead),
 * git's view, the diff, the tools' state and the shell's working directory. Two sessions on the
 * same workspace give equal values.
 */
export async function workspaceState(aci: AciSession): Promise<Record<string, unknown>> {
  const exec = async (command: string) => {
    const r = await aci.sandbox.exec(command, { cwd: '/repo' });
    assert.equal(r.exitCode, 0, `${command}: ${r.output}`);
    return r.output;
  };
  return {
    files: await exec(`find . \\( -path ./.git/objects -o -path ./.git/index \\) -prune -o -type f -print0 | sort -z | xargs -0 sha1sum`),
    index: await exec('git ls-files --stage'),
    status: await exec('git status --porcelain=v1 --untracked-files=all'),
    diff: await exec('git diff && git diff --cached'),
    tools: aci.toolState(),
    step: aci.stepState(),
    pwd: (await aci.sandbox.exec('pwd')).output.trim(),
  };
}
