import '../../helpers/families';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { PersonSource } from '../../../extension/core/session/actionSources';
import type { AciSession } from '../../../extension/core/aci/aciSession';
import { OWNER_LABEL, SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { forkSnapshots, SnapshotKeeper } from '../../../extension/core/session/forkSnapshots';
import { FORK_SNAPSHOT_DIR } from '../../../extension/core/runtime/containerPaths';
import { planSession, type LaunchRequest } from '../../../extension/core/session/sessionPlan';
import { startSession, type StartedSession } from '../../../extension/core/session/sessionStart';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { generatedCommand, generatedRecording } from '../../helpers/forkRecording';
import { largeRepository } from '../../helpers/largeRepository';
import { sampleRepoCopy } from '../../helpers/ledgerAgentScript';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';
import { workspaceState } from '../../helpers/workspaceState';

let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
const N = 30;
const recording = generatedRecording(N);

async function leftoverContainers(): Promise<string[]> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABEL}=${hostname()}:${process.pid}`] } });
  return list.map((c) => c.Id);
}

function request(mode: LaunchRequest['mode'], trajectory: Trajectory, at?: number): LaunchRequest {
  return {
    mode,
    recording: { trajectory, ref: 'generated.json' },
    ...(at !== undefined ? { at } : {}),
    image: TEST_IMAGE,
    repoDir: repo.dir,
    repoPath: '/repo',
    task: { problemStatement: 'Keep notes.' },
  };
}

/** What a person would compare: every file (.git's objects and index aside) with its content, git's view, the tools' state, the shell's directory. */

async function replayTo(at: number): Promise<StartedSession> {
  const started = await startSession(planSession(request('replay', recording, at)), { role: 'replay', snapshots: false });
  const stop = await started.debug.continue();
  assert.equal(stop.index, at);
  return started;
}

before(async () => {
  repo = await sampleRepoCopy();
});
after(async () => {
  await repo.cleanup();
});

describe('a fork restores the snapshot of a running session instead of replaying', () => {
  test(`a session runs ${N} steps; forks at 5, 19 and ${N - 2} equal a replay to that step, and continue`, async () => {
    const source = await startSession(planSession(request('replay', recording)), { role: 'replay' });
    try {
      assert.equal((await source.debug.continue()).index, N);
      const listed = await source.aci.sandbox.exec(`ls ${FORK_SNAPSHOT_DIR}/*/ | wc -l`);
      assert.ok(Number(listed.output.trim()) > 0, 'the source keeps snapshot files in its container');
      for (const at of [5, 19, N - 2]) {
        const fork = await startSession(planSession(request('fork', recording, at)), { role: 'replay', live: { kind: 'person' } });
        const replay = await replayTo(at);
        try {
          assert.deepEqual(fork.fork && { restoredAt: fork.fork.restoredAt, replayed: fork.fork.replayed }, { restoredAt: at, replayed: 0 });
          assert.equal(fork.debug.steps.length, at, 'the fork starts after the recording steps it restored');
          // Not the tools' start state: the viewer has a file open, and at 19 the shell stands where step 18 went.
          assert.equal(fork.aci.stepState().open_file, '/repo/ledger/money.py');
          if (at === 19) assert.equal(fork.aci.stepState().working_dir, '/repo/work/d18');
          assert.deepEqual(
            fork.debug.steps.map((s) => s.observation),
            replay.debug.steps.map((s) => s.observation),
          );
          assert.deepEqual(await workspaceState(fork.aci), await workspaceState(replay.aci), `fork at ${at}`);
          // Continuing: the same next actions give the same observations in both.
          const person = new PersonSource(replay.aci.tools);
          replay.debug.addSource(person);
          for (const i of [at, at + 1]) {
            fork.person!.type(generatedCommand(i));
            person.type(generatedCommand(i));
          }
          await fork.debug.runTo(at + 2);
          await replay.debug.runTo(at + 2);
          assert.equal(fork.debug.steps.length, at + 2);
          assert.deepEqual(
            fork.debug.steps.slice(at).map((s) => s.observation),
            replay.debug.steps.slice(at).map((s) => s.observation),
          );
          assert.deepEqual(await workspaceState(fork.aci), await workspaceState(replay.aci), `fork at ${at}, two steps on`);
        } finally {
          fork.person!.end();
          await fork.debug.finish();
          await replay.debug.finish();
        }
      }
    } finally {
      await source.debug.finish();
    }
    assert.equal(forkSnapshots.size, 0, 'no session keeps snapshots after finishing');
    assert.deepEqual(await leftoverContainers(), [], 'no container is left');
  });

  test('a recording that shares only its first steps with the running session restores there and replays the rest', async () => {
    const source = await startSession(planSession(request('replay', recording, 12)), { role: 'replay' });
    try {
      await source.debug.continue();
      const other = generatedRecording(N, (i) => (i < 8 ? generatedCommand(i) : `echo other ${i} >> /repo/other.txt`));
      const fork = await startSession(planSession(request('fork', other, 11)), { role: 'replay', live: { kind: 'person' } });
      try {
        assert.deepEqual(fork.fork && { restoredAt: fork.fork.restoredAt, replayed: fork.fork.replayed }, { restoredAt: 8, replayed: 3 });
        const stop = await fork.debug.runTo(11);
        assert.equal(stop.index, 11);
        const notes = await fork.aci.sandbox.exec('cat /repo/other.txt');
        assert.equal(notes.output.trim(), 'other 8\nother 9\nother 10');
      } finally {
        fork.person!.end();
        await fork.debug.finish();
      }
      const never = generatedRecording(N, (i) => `echo fresh ${i}`);
      const replayed = await startSession(planSession(request('fork', never, 4)), { role: 'replay', live: { kind: 'person' } });
      try {
        assert.equal(replayed.fork?.restoredAt, 0);
        assert.match(replayed.fork!.note, /no running or kept session has a snapshot of this recording's steps: replaying steps 1\.\.4/);
      } finally {
        replayed.person!.end();
        await replayed.debug.finish();
      }
    } finally {
      await source.debug.finish();
    }
    assert.equal(forkSnapshots.size, 0);
    assert.deepEqual(await leftoverContainers(), []);
  });
  test("a keeper keeps finished sessions' snapshots and containers: a fork after its source finished restores; the least recently used goes first; dispose removes them", async () => {
    const keeper = new SnapshotKeeper(2);
    const finished = async (trajectory: Trajectory, at?: number): Promise<StartedSession> => {
      const started = await startSession(planSession(request('replay', trajectory, at)), { role: 'replay', snapshots: { keeper } });
      await started.debug.continue();
      await started.debug.finish();
      return started;
    };
    try {
      const source = await finished(recording, 9);
      assert.deepEqual(await leftoverContainers(), [source.aci.sandbox.id], 'the finished source keeps its container, for its snapshots');
      const fork = await startSession(planSession(request('fork', recording, 7)), { role: 'replay', live: { kind: 'person' }, snapshots: { keeper } });
      const replay = await replayTo(7);
      try {
        assert.deepEqual(fork.fork && { restoredAt: fork.fork.restoredAt, note: fork.fork.note }, {
          restoredAt: 7,
          note: 'restored the snapshot after step 7',
        });
        assert.deepEqual(await workspaceState(fork.aci), await workspaceState(replay.aci));
      } finally {
        fork.person!.end();
        await fork.debug.finish();
        await replay.debug.finish();
      }
      // The fork's own snapshots (none: it took no step) are not kept; the source was used last.
      assert.deepEqual(keeper.sandboxIds, [source.aci.sandbox.id]);
      const other = await finished(generatedRecording(4, (i) => `echo other ${i} >> /repo/other.txt`));
      const third = await finished(generatedRecording(3, (i) => `echo third ${i} >> /repo/third.txt`));
      // Three finished, two kept: the source (used before the other two were kept) went.
      assert.deepEqual(keeper.sandboxIds, [other.aci.sandbox.id, third.aci.sandbox.id]);
      assert.deepEqual((await leftoverContainers()).sort(), [other.aci.sandbox.id, third.aci.sandbox.id].sort());
      const late = await startSession(planSession(request('fork', recording, 7)), { role: 'replay', live: { kind: 'person' }, snapshots: false });
      assert.equal(late.fork?.restoredAt, 0, "the source's snapshots went with its container");
      late.person!.end();
      await late.debug.finish();
    } finally {
      await keeper.dispose();
    }
    assert.equal(forkSnapshots.size, 0);
    assert.deepEqual(await leftoverContainers(), [], 'dispose removed the kept containers');
  });

  test('a source whose container went away: the fork says it could not restore, and replays', async () => {
    const source = await startSession(planSession(request('replay', recording, 6)), { role: 'replay' });
    try {
      await source.debug.continue();
      await source.aci.sandbox.dispose();
      const fork = await startSession(planSession(request('fork', recording, 6)), { role: 'replay', live: { kind: 'person' } });
      try {
        assert.equal(fork.fork?.restoredAt, 0);
        assert.match(fork.fork!.note, /^could not restore the snapshot \(.+\): replaying steps 1\.\.6 to fork$/);
        assert.equal((await fork.debug.runTo(6)).index, 6);
        assert.equal((await fork.aci.sandbox.exec('cat /repo/notes.txt')).output.trim(), 'note 2');
      } finally {
        fork.person!.end();
        await fork.debug.finish();
      }
    } finally {
      await source.debug.finish();
    }
    assert.equal(forkSnapshots.size, 0);
    assert.deepEqual(await leftoverContainers(), []);
  });
});

/** Each step one kind of change a differential must carry exactly (step 0 makes the files; the source's level-0 dump follows it). */
const EDGE_COMMANDS = [
  'mkdir -p e/d1/sub e/old e/empty && echo 1 > e/d1/sub/f && echo a > e/mv1 && echo s > e/same && echo t > e/t && ln -s mv1 e/link && echo x > e/old/x && echo 5 > e/p',
  'rm -r e/old',
  'mv e/mv1 e/mv2',
  'mkdir e/new-empty',
  'ln -sfn mv2 e/link && ln -s missing e/dangling',
  'chmod +x e/t',
  'echo s > e/same',
  "echo changed > e/p && touch -d '2001-01-01' e/p",
  'git add -A && GIT_AUTHOR_DATE=2001-01-01T00:00:00Z GIT_COMMITTER_DATE=2001-01-01T00:00:00Z git -c user.name=a -c user.email=a@b commit -qm edge',
  'rm -r e/d1 && echo now-a-file > e/d1 && mkdir -p e/d2/in && echo n > e/d2/in/n && rm e/same && mkdir e/same && rm e/link && mkdir e/link',
  'mv e/empty e/empty2 && mv e/d2 e/d3',
  'echo after > e/after && rm -r e/d3',
];
const edges = generatedRecording(EDGE_COMMANDS.length, (i) => EDGE_COMMANDS[i]!);

/** Every path's type, mode and link target (empty folders and symlinks included; .git's objects by name). */
async function tree(aci: AciSession): Promise<string> {
  const r = await aci.sandbox.exec(`find . ! -path ./.git/index -printf '%p %y %m %l\\n' | LC_ALL=C sort`, { cwd: '/repo' });
  assert.equal(r.exitCode, 0, r.output);
  return r.output;
}

describe('a differential snapshot restores exactly what a replay makes', () => {
  for (const differential of [true, false]) {
    test(`${differential ? 'differentials over a level-0 dump' : 'the whole repository each step (the fallback)'}: deleted, renamed, new empty folders, symlinks, chmod, the same content rewritten, an old mtime, a commit, type changes`, async () => {
      const source = await startSession(planSession(request('replay', edges)), { role: 'replay', snapshots: { differential } });
      const replay = await startSession(planSession(request('replay', edges)), { role: 'replay', snapshots: false });
      try {
        assert.equal((await source.debug.continue()).index, EDGE_COMMANDS.length);
        assert.equal(source.snapshots?.failure, undefined);
        assert.equal(source.snapshots?.differential, differential);
        const snars = await source.aci.sandbox.exec(`ls ${FORK_SNAPSHOT_DIR}/*/ | grep -c 'snar$'`);
        // The directory renamed at step 10 starts a new level-0 dump.
        if (differential) assert.ok(Number(snars.output.trim()) >= 2, `a level-0 dump and one after the rename: ${snars.output}`);
        else assert.equal(snars.output.trim(), '0');
        for (let at = 1; at <= EDGE_COMMANDS.length; at++) {
          assert.equal((await replay.debug.runTo(at)).index, at);
          const fork = await startSession(planSession(request('fork', edges, at)), { role: 'replay', live: { kind: 'person' } });
          try {
            assert.equal(fork.fork?.restoredAt, at, fork.fork?.note);
            assert.equal(await tree(fork.aci), await tree(replay.aci), `fork at ${at}: the tree`);
            assert.deepEqual(await workspaceState(fork.aci), await workspaceState(replay.aci), `fork at ${at}`);
          } finally {
            fork.person!.end();
            await fork.debug.finish();
          }
        }
        // What the cases are about, seen in the last fork's tree: a spot check that the comparison had something to compare.
        const last = await tree(replay.aci);
        assert.match(last, /^\.\/e\/t f 755 $/m);
        assert.match(last, /^\.\/e\/p f 644 $/m);
        assert.match(last, /^\.\/e\/new-empty d 755 $/m);
        assert.match(last, /^\.\/e\/dangling l 777 missing$/m);
        assert.match(last, /^\.\/e\/d1 f 644 $/m);
      } finally {
        await replay.debug.finish();
        await source.debug.finish();
      }
      assert.equal(forkSnapshots.size, 0);
      assert.deepEqual(await leftoverContainers(), []);
    });
  }
});

const GIT_STEPS = 13;
/** Each step changes one small file, most then `git add -A`; a commit, a branch, a file removed through git; the last step `git gc`. */
const GIT_COMMAND = (i: number): string => {
  const at = `GIT_AUTHOR_DATE=2001-01-01T00:00:0${i % 10}Z GIT_COMMITTER_DATE=2001-01-01T00:00:0${i % 10}Z`;
  switch (i) {
    case 0:
      return 'echo 0 >> notes.txt';
    case 5:
      return `echo 5 >> notes.txt && git add -A && ${at} git -c user.name=a -c user.email=a@b commit -qm five`;
    case 7:
      // The reflog names who moved HEAD: without an identity, the container's hostname.
      return `${at} git -c user.name=a -c user.email=a@b checkout -q -b topic && git rm -q big/f3.txt`;
    case 9:
      return 'mkdir -p src && echo "x = 9" > src/nine.py && git add -A';
    case GIT_STEPS - 1:
      return 'git gc -q --prune=now';
    default:
      return `echo ${i} >> notes.txt && git add -A`;
  }
};
/** A differential of one step's change (the file, its new objects, the index of ~1000 entries, tar's folder listings) is far below this. */
const DIFFERENTIAL_BOUND = 512 * 1024;

describe('differentials on a repository whose .git is large', () => {
  for (const images of [false, true]) {
    test(`${GIT_STEPS} steps that each change one file and git add -A: every differential stays small (git re-stamps its objects, which are compared by name); forks at 3, 8, ${GIT_STEPS - 1} ${images ? "from the level-0 dump's image" : 'from the tars'} equal a replay, after git gc the source`, async () => {
      const large = await largeRepository(30);
      const git = generatedRecording(GIT_STEPS, GIT_COMMAND);
      const at = (mode: LaunchRequest['mode'], step?: number): LaunchRequest => ({ ...request(mode, git, step), repoDir: large.dir });
      const source = await startSession(planSession(at('replay')), { role: 'replay', snapshots: { images } });
      const replay = await startSession(planSession(at('replay')), { role: 'replay', snapshots: false });
      /** The image a fork's container started from: the task's, or (from a dump's image) one of this process's. */
      const startedFrom = async (fork: StartedSession) => {
        const { Image } = await testDocker().getContainer(fork.aci.sandbox.id).inspect();
        const labels = (await testDocker().getImage(Image).inspect()).Config.Labels ?? {};
        return labels[OWNER_LABEL] === `${hostname()}:${process.pid}` ? 'dump image' : 'task image';
      };
      try {
        assert.equal((await source.debug.continue()).index, GIT_STEPS);
        assert.equal(source.snapshots?.failure, undefined);
        assert.equal(source.snapshots?.differential, true);
        const listed = await source.aci.sandbox.exec(`cd ${FORK_SNAPSHOT_DIR}/*/ && stat -c '%n %s' *.tar | sort -n`);
        const sizes = new Map(
          listed.output
            .trim()
            .split('\n')
            .map((line) => [Number.parseInt(line, 10), Number(line.split(' ')[1])] as const),
        );
        const objects = Number((await source.aci.sandbox.exec(`du -sb /repo/.git/objects | cut -f1`)).output.trim());
        assert.ok(objects > 8 * 1024 ** 2, `a large .git: ${objects} bytes of objects`);
        // A level-0 dump after step 1 (the whole repository), a differential after each later step but the last, whose gc
        // removed the loose objects the dump has: a new dump.
        const dump = sizes.get(1)!;
        assert.ok(dump > objects, `the dump holds the objects: ${dump} bytes`);
        assert.deepEqual(
          [...sizes.keys()],
          Array.from({ length: GIT_STEPS }, (_, i) => i + 1),
        );
        for (let step = 2; step < GIT_STEPS; step++)
          assert.ok(sizes.get(step)! < DIFFERENTIAL_BOUND, `the differential after step ${step}: ${sizes.get(step)} bytes`);
        assert.ok(sizes.get(GIT_STEPS)! > objects / 2, `after git gc a new dump: ${sizes.get(GIT_STEPS)} bytes`);
        for (const step of [3, 8, GIT_STEPS - 1]) {
          assert.equal((await replay.debug.runTo(step)).index, step);
          const fork = await startSession(planSession(at('fork', step)), { role: 'replay', live: { kind: 'person' } });
          try {
            assert.equal(fork.fork?.restoredAt, step, fork.fork?.note);
            assert.equal(await startedFrom(fork), images ? 'dump image' : 'task image');
            assert.equal(await tree(fork.aci), await tree(replay.aci), `fork at ${step}: the tree, .git's objects by name`);
            assert.deepEqual(await gitView(fork.aci), await gitView(replay.aci), `fork at ${step}: git's view`);
            assert.deepEqual(await workspaceState(fork.aci), await workspaceState(replay.aci), `fork at ${step}`);
          } finally {
            fork.person!.end();
            await fork.debug.finish();
          }
        }
        const fork = await startSession(planSession(at('fork', GIT_STEPS)), { role: 'replay', live: { kind: 'person' } });
        try {
          assert.equal(fork.fork?.restoredAt, GIT_STEPS, fork.fork?.note);
          assert.equal(await startedFrom(fork), images ? 'dump image' : 'task image');
          assert.equal(await tree(fork.aci), await tree(source.aci), 'fork after git gc: the tree of the source, packed');
          assert.match(await tree(fork.aci), /^\.\/\.git\/objects\/pack\/pack-[0-9a-f]+\.pack f 444 $/m);
          assert.deepEqual(await gitView(fork.aci), await gitView(source.aci));
        } finally {
          fork.person!.end();
          await fork.debug.finish();
        }
      } finally {
        await replay.debug.finish();
        await source.debug.finish();
        await large.cleanup();
      }
      assert.equal(forkSnapshots.size, 0);
      assert.deepEqual(await leftoverContainers(), []);
      const myImages = await testDocker().listImages({ filters: { label: [`${OWNER_LABEL}=${hostname()}:${process.pid}`] } });
      assert.deepEqual(
        myImages.map((i) => i.Id),
        [],
        "the dumps' images went with the source session",
      );
    });
  }
});

/** What git says of the repository: status, the diff against HEAD, the log of every branch, and that its objects are whole. */
async function gitView(aci: AciSession): Promise<Record<string, string>> {
  const run = async (command: string) => {
    const r = await aci.sandbox.exec(command, { cwd: '/repo' });
    assert.equal(r.exitCode, 0, `${command}: ${r.output}`);
    return r.output;
  };
  return {
    status: await run('git status --porcelain=v1 --branch --untracked-files=all'),
    diff: await run('git diff HEAD --stat && git diff HEAD'),
    log: await run('git log --all --format="%H %P %s" --stat'),
    fsck: await run('git fsck --full --strict --no-dangling 2>&1'),
  };
}
