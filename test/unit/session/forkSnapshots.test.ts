import '../../helpers/families';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AciSession, type AciToolState } from '../../../extension/core/aci/aciSession';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import { SessionSnapshots } from '../../../extension/core/session/forkSnapshots';
import type { Step } from '../../../extension/core/trajectory/model';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

function step(index: number, raw: string): Step {
  return { index, thought: '', action: { raw, tool: 'bash', args: { command: raw } }, observation: '' };
}

test('snapshots of the whole repository each step (no differentials): a step that changed nothing shares the last file; over the budget every other one goes; a fork finds the latest of its own actions', async () => {
  const repo = await mkdtemp(path.join(tmpdir(), 'swb-fork-snapshots-'));
  await writeFile(path.join(repo, 'a.txt'), 'a\n');
  const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo, repoPath: '/repo' });
  const aci = new AciSession(sandbox, { tools: toolSetFor() });
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'swb-fork-snapshot-dir-')), 'snaps');
  // A tar of this repository is 10 KB: a 25 KB budget holds two of them.
  const snapshots = new SessionSnapshots('setup', aci, 25 * 1024, dir, false);
  try {
    const history: Step[] = [];
    for (let i = 0; i < 4; i++) {
      const raw = i === 1 ? 'true' : `echo ${i} > f${i}.txt`;
      await aci.runCommand(raw);
      history.push(step(i, raw));
      await snapshots.take(history);
    }
    assert.equal(snapshots.failure, undefined);
    // After steps 1 and 2 (the second changed nothing) one file; 3 and 4 would make three: thinned to 2 and 4.
    assert.deepEqual(snapshots.steps, [2, 4]);
    // Step 2's snapshot is step 1's file; step 3's file went with the thinning.
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tar')).sort(), ['1.tar', '4.tar']);
    const found = snapshots.find(history, 3, aci.tools, history);
    assert.equal(found?.at, 2, 'a fork at 3 restores the snapshot after step 2 and replays one step');
    const other = [...history.slice(0, 1), step(1, 'echo other > o.txt')];
    assert.equal(snapshots.find(other, 2, aci.tools, history), undefined, 'other actions after step 1, no snapshot at 1 kept: none');
    await snapshots.dispose();
    await assert.rejects(readdir(dir), /ENOENT/, 'dispose removes the snapshot files');
    assert.equal(snapshots.find(history, 4, aci.tools, history), undefined);
  } finally {
    await aci.dispose();
    await rm(repo, { recursive: true, force: true });
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
});

test('snapshots: a step of a tool that only reads (open, goto, search_file) takes no tar and restores the step before; a bash step that rewrites a file does', async () => {
  const repo = await mkdtemp(path.join(tmpdir(), 'swb-fork-readonly-'));
  const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo, repoPath: '/repo' });
  const aci = new AciSession(sandbox, { tools: toolSetFor() });
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'swb-fork-readonly-dir-')), 'snaps');
  const snapshots = new SessionSnapshots('setup', aci, 1024 ** 3, dir);
  const contentOf = async (at: number) => {
    const kept = (snapshots as unknown as { kept: Map<number, { tar: { file: string } }> }).kept.get(at);
    assert.ok(kept, `a snapshot after step ${at}`);
    return (await sandbox.exec(`tar -xOf ${kept.tar.file} ./f.txt 2>&1`)).output;
  };
  try {
    const history: Step[] = [];
    const commands: [string, string][] = [
      ['bash', 'printf "a\\n" > f.txt'],
      ['open', 'open f.txt'],
      ['goto', 'goto 1'],
      ['bash', 'printf "b\\n" > f.txt'],
      ['search_file', 'search_file b'],
    ];
    for (const [i, [tool, raw]] of commands.entries()) {
      const r = await aci.runCommand(raw);
      assert.equal(r.exitCode, 0, `${raw}: ${r.observation}`);
      history.push({ ...step(i, raw), action: { raw, tool, args: {} } });
      await snapshots.take(history);
    }
    assert.equal(snapshots.failure, undefined);
    assert.equal(snapshots.unchanged, 3, 'open, goto and search_file took no tar');
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map(contentOf)), ['a\n', 'a\n', 'a\n', 'b\n', 'b\n']);
    assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith('.tar')).sort(), ['1.tar', '4.tar']);
    // One file, but each step's own tools' state: no file open after step 1, f.txt after open.
    const kept = (snapshots as unknown as { kept: Map<number, { tools: AciToolState }> }).kept;
    const openFile = (step: number) => (kept.get(step)?.tools.state.families['swe-agent'] as { openFile: string | null } | undefined)?.openFile;
    assert.equal(openFile(1), null);
    assert.match(openFile(2) ?? '', /f\.txt$/);
  } finally {
    await snapshots.dispose();
    await aci.dispose();
    await rm(repo, { recursive: true, force: true });
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
});

test('differential snapshots: the first step is a level-0 dump, later ones differ from it; thinning keeps the dump while a kept differential needs it, and dump + differential is the repository at that step', async () => {
  const repo = await mkdtemp(path.join(tmpdir(), 'swb-fork-diff-'));
  await writeFile(path.join(repo, 'a.txt'), 'a\n');
  const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo, repoPath: '/repo' });
  const aci = new AciSession(sandbox, { tools: toolSetFor() });
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'swb-fork-diff-dir-')), 'snaps');
  // Each tar of this small repository is 10 KB (tar's record): a 35 KB budget holds three.
  // Differentials however small the repository (by default it would take whole tars).
  const snapshots = new SessionSnapshots('setup', aci, 35 * 1024, dir, true, 0);
  try {
    const history: Step[] = [];
    for (let i = 0; i < 4; i++) {
      const raw = `echo ${i} > f${i}.txt && rm -f f${i - 1}.txt`;
      await aci.runCommand(raw);
      history.push(step(i, raw));
      await snapshots.take(history);
    }
    assert.equal(snapshots.failure, undefined);
    assert.equal(snapshots.differential, true, 'this machine has GNU tar');
    // Over the budget at step 4: step 1's snapshot went, but not its dump, which steps 2 and 4 are differentials of.
    assert.deepEqual(snapshots.steps, [2, 4]);
    assert.deepEqual((await readdir(dir)).filter((f) => /^\d+\.(tar|snar)$/.test(f)).sort(), ['1.snar', '1.tar', '2.tar', '4.tar']);
    const found = snapshots.find(history, 2, aci.tools, history)!;
    const target = new AciSession(await LocalSandbox.create({ image: 'local', repoPath: '/repo' }), { tools: toolSetFor() });
    try {
      await found.restore(target);
      // The tools' state moved the shell into the source's folder (a local sandbox's repository is a host folder of its own).
      const r = await target.sandbox.exec(`cd ${target.sandbox.repoPath} && ls && cat f1.txt`);
      assert.equal(r.exitCode, 0, r.output);
      // After step 2 (index 1): f1 written, f0 removed.
      assert.equal(r.output, 'a.txt\nf1.txt\n1\n');
    } finally {
      await target.dispose();
    }
  } finally {
    await snapshots.dispose();
    await aci.dispose();
    await rm(repo, { recursive: true, force: true });
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
});
