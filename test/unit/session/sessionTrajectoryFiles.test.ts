import '../../helpers/families';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LiveTrajectoryFile, removeStaleSessionFolders, sessionFolderName } from '../../../extension/core/session/trajectoryRecorder';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { aStep, aTrajectory } from '../../builders/trajectory';

/** The id of a process that has ended (a child run to its end), so no process has it for now. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test("a session's trajectory file and its folder are deleted once removed, after the writes queued before; a later write writes nothing", async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'swb-session-files-'));
  try {
    const file = new LiveTrajectoryFile(path.join(root, sessionFolderName(), 'replay run.traj.json'));
    // Not awaited: remove must wait for them, or a late write would bring the file back.
    void file.write(aTrajectory({ steps: [aStep({ index: 0 })] }));
    const written = file.write(aTrajectory({ steps: [aStep({ index: 0 }), aStep({ index: 1 })] }));
    await written;
    assert.equal((await loadTrajectory(file.file)).trajectory.steps.length, 2, 'the file is readable while the session runs');
    const removed = file.remove();
    const late = file.write(aTrajectory({ steps: [aStep({ index: 0 })] }));
    await Promise.all([removed, late]);
    assert.equal(existsSync(path.dirname(file.file)), false, 'the session folder is gone');
    assert.deepEqual(await readdir(root), []);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("at activation the folders of ended windows' sessions go; a live window's stay; a missing sessions folder is no error", async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'swb-session-stale-'));
  try {
    const ended = sessionFolderName(endedPid());
    const live = sessionFolderName(process.pid);
    // Named before sessions carried their window's process id: nothing can still be writing there.
    const unnamed = 'a1b2c3d4';
    for (const name of [ended, live, unnamed]) {
      await mkdir(path.join(root, name));
      await writeFile(path.join(root, name, 'fork of run.traj after step 2.json'), '{}');
    }
    const removed = await removeStaleSessionFolders(root);
    assert.deepEqual(removed.sort(), [ended, unnamed].sort());
    assert.deepEqual(await readdir(root), [live]);
    assert.deepEqual(await removeStaleSessionFolders(path.join(root, 'never-made')), []);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
