import '../../helpers/families';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
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

test('differentials on a git repository: objects git re-stamps (git add -A after a copy) stay out, new ones go in; an object gone (gc) starts a new dump; dump + differential is the repository, .git and all', async () => {
  const repo = await mkdtemp(path.join(tmpdir(), 'swb-fork-git-'));
  // 200 committed files of random text: about 2 MB of loose objects.
  const setup = [
    'git init -q .',
    'for i in $(seq 1 200); do head -c 7000 /dev/urandom | base64 > f$i.txt; done',
    'git add -A',
    'git -c user.name=a -c user.email=a@b commit -qm big',
  ];
  // Made on the host and copied in, as a task's repository is: git's index then no longer matches the files' inodes.
  await promisify(execFile)('bash', ['-c', setup.join(' && ')], { cwd: repo });
  const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo, repoPath: '/repo' });
  const aci = new AciSession(sandbox, { tools: toolSetFor() });
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'swb-fork-git-dir-')), 'snaps');
  const snapshots = new SessionSnapshots('setup', aci, 1024 ** 3, dir, true, 0);
  const git = `GIT_AUTHOR_DATE=2001-01-01T00:00:00Z GIT_COMMITTER_DATE=2001-01-01T00:00:00Z git -c user.name=a -c user.email=a@b`;
  const commands = [
    // The dump's time is moved 0.1 s back (see SNAR_SHIFT_NS): files copied in just before it would be in every differential.
    'sleep 0.2 && echo 0 >> notes.txt',
    'echo 1 >> notes.txt && git add -A',
    `echo 2 >> notes.txt && git add -A && ${git} commit -qm two`,
    'git rm -q f7.txt && echo 3 > new.txt && git add -A',
    'git gc -q --prune=now',
    'echo 5 >> notes.txt && git add -A',
  ];
  const view = async (s: LocalSandbox | AciSession['sandbox']) => {
    const r = await s.exec(
      `cd ${s.repoPath} && git status --porcelain=v1 --branch && git diff HEAD && git log --all --format='%H %s' --stat && git fsck --full --strict --no-dangling 2>&1 && find . ! -path ./.git/index -printf '%p %y %m\\n' | LC_ALL=C sort | md5sum`,
    );
    assert.equal(r.exitCode, 0, r.output);
    return r.output;
  };
  try {
    const history: Step[] = [];
    const states: string[] = [];
    for (const [i, raw] of commands.entries()) {
      const r = await aci.runCommand(raw);
      assert.equal(r.exitCode, 0, `${raw}: ${r.observation}`);
      history.push(step(i, raw));
      await snapshots.take(history);
      states.push(await view(sandbox));
    }
    assert.equal(snapshots.failure, undefined);
    const sizes = new Map((await readdir(dir)).filter((f) => f.endsWith('.tar')).map((f) => [Number.parseInt(f, 10), 0]));
    for (const at of sizes.keys()) sizes.set(at, (await stat(path.join(dir, `${at}.tar`))).size);
    for (const at of [2, 3, 4, 6]) assert.ok(sizes.get(at)! < 100 * 1024, `the differential after step ${at}: ${sizes.get(at)} bytes`);
    // Dumps after steps 1 and 5 (the gc removed loose objects the first has), differentials of a few KB in between and after.
    assert.deepEqual((await readdir(dir)).filter((f) => /^\d+\.snar$/.test(f)).sort(), ['1.snar', '5.snar']);
    assert.ok(sizes.get(1)! > 1024 ** 2, `the first dump holds the objects: ${sizes.get(1)}`);
    for (const at of [2, 3, 4, 5, 6]) {
      const target = new AciSession(await LocalSandbox.create({ image: 'local', repoPath: '/repo' }), { tools: toolSetFor() });
      try {
        await snapshots.find(history, at, aci.tools, history)!.restore(target);
        assert.equal(await view(target.sandbox), states[at - 1], `restored after step ${at}`);
      } finally {
        await target.dispose();
      }
    }
  } finally {
    await snapshots.dispose();
    await aci.dispose();
    await rm(repo, { recursive: true, force: true });
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
});
