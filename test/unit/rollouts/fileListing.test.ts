import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { listFiles } from '../../../extension/core/rollouts/fileListing';

/**
 * A run of 3 attempts x 4 instances, each trajectory in its own folder (as SWE-agent writes
 * them), and a report at the top: 1 + 3 + 12 = 16 folders.
 */
function writeRun(root: string): void {
  writeFileSync(join(root, 'report.json'), '{}');
  for (let a = 1; a <= 3; a++)
    for (let i = 1; i <= 4; i++) {
      const dir = join(root, `attempt_${a}`, `task-${i}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `task-${i}.traj`), `{"attempt": ${a}}`);
      writeFileSync(join(dir, 'notes.txt'), 'not indexed');
    }
}
const FOLDERS = 16;

/** Newest modification or change time of any folder under `root`. */
function newestFolderTime(root: string): number {
  const { mtimeMs, ctimeMs } = statSync(root);
  let newest = Math.max(mtimeMs, ctimeMs);
  for (const entry of readdirSync(root, { withFileTypes: true })) if (entry.isDirectory()) newest = Math.max(newest, newestFolderTime(join(root, entry.name)));
  return newest;
}

/**
 * The listing trusts a folder's times only once they are older than the listing by the coarsest
 * file system clock step (2 s). Rather than let the listing be told another time, the runs the
 * tests change are all written first and the tests start once the clock has passed that step:
 * one wait of about 2 s for the whole file, decided by the folders' own times.
 */
const TRUST_STEP_MS = 2000;
const RUNS = 16;

describe('listing a run with folder stamps', () => {
  let pool: string;
  const aged: string[] = [];
  let base: string;
  let root: string;
  let stampsFile: string;
  /** A run whose first recording has a branch run beside it, aged with the others. */
  let branchedRun: string;
  const branchRun = () => join(branchedRun, 'attempt_1', 'task-1', 'task-1.traj.branches');

  before(async () => {
    pool = mkdtempSync(join(tmpdir(), 'swe-workbench-listing-'));
    branchedRun = join(pool, 'branched', 'run');
    mkdirSync(branchedRun, { recursive: true });
    writeRun(branchedRun);
    mkdirSync(join(branchRun(), 'after-step-1'), { recursive: true });
    writeFileSync(join(branchRun(), 'index.json'), '{}');
    writeFileSync(join(branchRun(), 'after-step-1', 'continuation-1.traj'), '{}');
    for (let i = 0; i < RUNS; i++) {
      const run = join(pool, `base-${i}`, 'run');
      mkdirSync(run, { recursive: true });
      writeRun(run);
      // A hidden file is never indexed; the tests of unreadable stamps need one present, and the
      // root's modification time set back, before the run is aged.
      writeFileSync(join(run, '.hidden.json'), '{}');
      utimesSync(run, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      aged.push(run);
    }
    const wait = newestFolderTime(pool) + TRUST_STEP_MS + 50 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  });
  after(() => rmSync(pool, { recursive: true, force: true }));

  beforeEach(() => {
    root = aged.pop()!;
    assert.ok(root, `the file needs more than ${RUNS} aged runs`);
    base = dirname(root);
    // In a cache folder not made yet, as on a cold index.
    stampsFile = join(base, 'cache', 'stamps.json');
  });

  test('an unchanged run is listed again from its stamps, every folder skipped, the same files found', async () => {
    const first = await listFiles(root, { stampsFile });
    assert.equal(first.foldersRead, FOLDERS);
    assert.equal(first.files.length, 13);
    assert.ok(existsSync(stampsFile));
    const again = await listFiles(root, { stampsFile });
    assert.equal(again.foldersRead, 0);
    assert.deepEqual(again, { ...first, foldersRead: 0 });
    assert.deepEqual(again.files, (await listFiles(root)).files);
  });

  test("a branch run's index rewritten beside an unchanged recording: its folder alone is read, and still only its index listed", async () => {
    const stamps = join(pool, 'branched', 'cache', 'stamps.json');
    const branchFiles = (l: Awaited<ReturnType<typeof listFiles>>) => l.files.filter((f) => f.path.includes('.branches')).map((f) => [f.path, f.size]);
    const first = await listFiles(branchedRun, { stampsFile: stamps });
    assert.deepEqual(branchFiles(first), [['attempt_1/task-1/task-1.traj.branches/index.json', 2]]);
    assert.equal((await listFiles(branchedRun, { stampsFile: stamps })).foldersRead, 0);
    // As the branch run saves its index: a temporary file renamed over it.
    writeFileSync(join(branchRun(), 'index.json.tmp'), '{"points": []}');
    renameSync(join(branchRun(), 'index.json.tmp'), join(branchRun(), 'index.json'));
    const again = await listFiles(branchedRun, { stampsFile: stamps });
    assert.equal(again.foldersRead, 1);
    assert.deepEqual(branchFiles(again), [['attempt_1/task-1/task-1.traj.branches/index.json', 14]]);
    assert.deepEqual(again.files, (await listFiles(branchedRun)).files);
  });

  test('a file added to a folder: that folder alone is read, and the file found', async () => {
    await listFiles(root, { stampsFile });
    writeFileSync(join(root, 'attempt_2', 'task-3', 'extra.jsonl'), '');
    const again = await listFiles(root, { stampsFile });
    assert.equal(again.foldersRead, 1);
    assert.ok(again.files.some((f) => f.path === 'attempt_2/task-3/extra.jsonl'));
    assert.deepEqual(again.files, (await listFiles(root)).files);
  });

  test("a file's new content is seen without reading its folder", async () => {
    await listFiles(root, { stampsFile });
    appendFileSync(join(root, 'attempt_1', 'task-1', 'task-1.traj'), ' ');
    const again = await listFiles(root, { stampsFile });
    assert.equal(again.foldersRead, 0);
    const file = again.files.find((f) => f.path === 'attempt_1/task-1/task-1.traj')!;
    assert.equal(file.size, '{"attempt": 1} '.length);
  });

  test('a removed folder and a new one deep down: both seen', async () => {
    await listFiles(root, { stampsFile });
    rmSync(join(root, 'attempt_3', 'task-4'), { recursive: true });
    mkdirSync(join(root, 'attempt_3', 'task-9', 'deep'), { recursive: true });
    writeFileSync(join(root, 'attempt_3', 'task-9', 'deep', 'x.traj'), '{}');
    const again = await listFiles(root, { stampsFile });
    const paths = again.files.map((f) => f.path);
    assert.ok(!paths.includes('attempt_3/task-4/task-4.traj'));
    assert.ok(paths.includes('attempt_3/task-9/deep/x.traj'));
    assert.deepEqual(again.files, (await listFiles(root)).files);
  });

  test('a folder whose modification time is set back (as tar and rsync do) is read: its change time moved', async () => {
    await listFiles(root, { stampsFile });
    const dir = join(root, 'attempt_1', 'task-2');
    const { atime, mtime } = statSync(dir);
    writeFileSync(join(dir, 'late.traj'), '{}');
    utimesSync(dir, atime, mtime);
    assert.equal(statSync(dir).mtimeMs, mtime.getTime());
    const again = await listFiles(root, { stampsFile });
    assert.ok(again.files.some((f) => f.path === 'attempt_1/task-2/late.traj'));
  });

  test('a file renamed over another in place is seen, its folder read', async () => {
    await listFiles(root, { stampsFile });
    const dir = join(root, 'attempt_2', 'task-1');
    writeFileSync(join(dir, 'next.tmp'), '{"attempt": 2, "longer": true}');
    renameSync(join(dir, 'next.tmp'), join(dir, 'task-1.traj'));
    const again = await listFiles(root, { stampsFile });
    assert.equal(again.files.find((f) => f.path === 'attempt_2/task-1/task-1.traj')!.size, '{"attempt": 2, "longer": true}'.length);
  });

  test('folders changed just before a listing are read again the next time: a change in the same clock step would not move their times', async () => {
    // Listed now, right after the run was written.
    root = join(base, 'fresh');
    mkdirSync(root);
    writeRun(root);
    await listFiles(root, { stampsFile });
    assert.equal((await listFiles(root, { stampsFile })).foldersRead, FOLDERS);
  });

  test('a symbolic link anywhere in the run: no stamps are kept, every folder is read each time', async () => {
    await listFiles(root, { stampsFile });
    const outside = join(base, 'outside');
    mkdirSync(join(outside, 'task-7'), { recursive: true });
    writeFileSync(join(outside, 'task-7', 'task-7.traj'), '{}');
    symlinkSync(outside, join(root, 'attempt_3', 'linked'));
    const again = await listFiles(root, { stampsFile });
    assert.ok(again.files.some((f) => f.path === 'attempt_3/linked/task-7/task-7.traj'));
    assert.ok(!existsSync(stampsFile));
    // What the link leads to changes with no folder of the run changing.
    writeFileSync(join(outside, 'task-7', 'more.traj'), '{}');
    const third = await listFiles(root, { stampsFile });
    assert.ok(third.files.some((f) => f.path === 'attempt_3/linked/task-7/more.traj'));
    // The run's 16 folders and the 2 the link leads to.
    assert.equal(third.foldersRead, FOLDERS + 2);
  });

  test('a folder with an entry that cannot be listed is read each time, and its error stays', async () => {
    execFileSync('mkfifo', [join(root, 'attempt_2', 'task-2', 'pipe.jsonl')]);
    const first = await listFiles(root, { stampsFile });
    const again = await listFiles(root, { stampsFile });
    assert.equal(again.foldersRead, 1);
    assert.deepEqual(again.errors, first.errors);
    assert.match(again.errors[0]!.message, /not a regular file/);
  });

  // Each would be taken for the run's root unchanged, were it read: the root's own times.
  const rootStamp = (root: string, columns: Record<string, unknown>) => {
    const { mtimeMs, ctimeMs } = statSync(root);
    return JSON.stringify({ version: 1, root, names: [''], parents: [-1], mtimes: [mtimeMs], ctimes: [ctimeMs], files: [''], ...columns });
  };
  for (const [what, text] of [
    ['not JSON', () => '{"version": 1, "names": ['],
    ['another root', (root: string) => rootStamp(root, { root: '/elsewhere' })],
    ['columns of different lengths', (root: string) => rootStamp(root, { files: ['', ''] })],
    [
      'a parent that is not before its child',
      (root: string) => {
        const { mtimeMs, ctimeMs } = statSync(root);
        return rootStamp(root, { names: ['', 'attempt_1'], parents: [-1, 5], mtimes: [mtimeMs, mtimeMs], ctimes: [ctimeMs, ctimeMs], files: ['', ''] });
      },
    ],
    [
      'a folder outside the run',
      (root: string) => {
        const up = statSync(join(root, '..'));
        return rootStamp(root, {
          names: ['', '..'],
          parents: [-1, 0],
          mtimes: [statSync(root).mtimeMs, up.mtimeMs],
          ctimes: [statSync(root).ctimeMs, up.ctimeMs],
          files: ['', ''],
        });
      },
    ],
    ['a hidden file', (root: string) => rootStamp(root, { files: ['.hidden.json'] })],
  ] as const) {
    test(`stamps that do not read (${what}): the run is listed by reading it, and the stamps written anew`, async () => {
      // Made first, so writing the stamps into it moves no folder's times.
      mkdirSync(join(base, 'cache'));
      writeFileSync(stampsFile, '');
      writeFileSync(stampsFile, text(root));
      const listing = await listFiles(root, { stampsFile });
      assert.equal(listing.foldersRead, FOLDERS);
      assert.deepEqual(listing.files, (await listFiles(root)).files);
      assert.equal((await listFiles(root, { stampsFile })).foldersRead, 0);
    });
  }
});

describe('listing a run with branch runs beside its recordings', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-listing-branches-'));
    writeRun(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test("of a recording's branch run (RECORDING.branches) its index alone is listed, warm or cold; a folder merely named so is listed whole", async () => {
    const branches = join(root, 'attempt_1', 'task-1', 'task-1.traj.branches');
    mkdirSync(join(branches, 'after-step-2'), { recursive: true });
    writeFileSync(join(branches, 'index.json'), '{}');
    writeFileSync(join(branches, 'after-step-2', 'continuation-1.traj'), '{}');
    writeFileSync(join(branches, 'notes.json'), '{}');
    // No recording named notes beside it: an ordinary folder of the run.
    mkdirSync(join(root, 'attempt_2', 'notes.branches'));
    writeFileSync(join(root, 'attempt_2', 'notes.branches', 'kept.json'), '{}');
    const stampsFile = join(root, '.stamps.json');
    for (const options of [{}, { stampsFile }, { stampsFile }]) {
      const paths = (await listFiles(root, options)).files.map((f) => f.path);
      assert.ok(paths.includes('attempt_1/task-1/task-1.traj'));
      assert.deepEqual(
        paths.filter((p) => p.includes('.branches')),
        ['attempt_1/task-1/task-1.traj.branches/index.json', 'attempt_2/notes.branches/kept.json'],
      );
    }
  });
});
