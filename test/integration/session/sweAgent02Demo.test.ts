/**
 * SWE-agent's own 0.x demonstration (`marshmallow-1867.windowed.traj`) replayed whole through
 * `swe-workbench replay`, as a user runs it, on a repository rebuilt from what the recording
 * shows: the root that `ls -F` lists, `fields.py` from the two windows it shows, and just enough
 * of marshmallow around them for `python reproduce.py` to run the recorded `_serialize`. The
 * image is the base image with `python` on PATH and the package importable from the repository,
 * as `pip install -e .` leaves it in SWE-bench's image; built offline.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe } from 'node:test';
import { z } from 'zod';
import { command as replayCommand } from '../../../extension/cli/replay';
import { OWNER_LABEL, SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { runCli } from '../../helpers/cliRunner';
import { testDocker } from '../../helpers/docker';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';
import { ensureTestImage } from '../../helpers/testImage';

const exec = promisify(execFile);
const IMAGE = 'swe-workbench/test-python-editable:1';
const REPO_PATH = '/marshmallow-code__marshmallow';
const TRAJ = thirdPartyFiles.path('swe-agent/marshmallow-1867.windowed.traj');

const TrajSchema = z.object({ trajectory: z.array(z.object({ action: z.string(), observation: z.string() })) });

let work: string;
let steps: Array<{ action: string; observation: string }>;

async function ensureImage(): Promise<void> {
  await ensureTestImage(
    IMAGE,
    [
      'FROM swe-workbench/base:bookworm',
      'RUN ln -s /usr/bin/python3 /usr/local/bin/python \\',
      ` && echo ${REPO_PATH}/src > /usr/local/lib/python3.11/dist-packages/editable-repo.pth`,
      '',
    ].join('\n'),
  );
}

/** The `N:text` lines of a recorded window, keyed by line number. */
function windowLines(observation: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const line of observation.split('\n')) {
    const m = /^(\d+):(.*)$/.exec(line);
    if (m) lines.set(Number(m[1]), m[2] as string);
  }
  return lines;
}

/**
 * fields.py as the run shows it (lines 1425-1558 of 1997, from steps 6 and 8) inside `TimeDelta`'s
 * docstring above and comments below; line 1 imports what those lines name, since 0.2's lint guard
 * refuses an edit while flake8 finds anything in the file.
 */
function rebuiltFields(): string {
  const known = new Map([...windowLines(steps[7]!.observation), ...windowLines(steps[5]!.observation)]);
  const imports = 'import copy, typing, datetime as dt; from marshmallow.base import Field, Nested, FieldInstanceResolutionError, resolve_field_instance';
  const filler = (n: number) =>
    n === 1 ? imports : n === 2 ? 'class TimeDelta(Field):' : n === 3 ? '    """' : n < 1425 ? `    doc line ${n}` : `# line ${n}`;
  return Array.from({ length: 1997 }, (_, i) => known.get(i + 1) ?? filler(i + 1)).join('\n') + '\n';
}

/** What `TimeDelta.serialize` needs of marshmallow's base field. */
const BASE = `class Field:
    def __init__(self, **kwargs):
        pass

    def serialize(self, attr, obj):
        return self._serialize(obj[attr], attr, obj)


class Nested(Field):
    pass


class FieldInstanceResolutionError(Exception):
    pass


def resolve_field_instance(cls_or_instance):
    return cls_or_instance
`;

/**
 * The repository at the run's start: the entries `ls -F` lists (step 4) but the run's own
 * reproduce.py, and marshmallow; its commit's id.
 */
async function rebuiltRepository(dir: string, fields: string): Promise<string> {
  await mkdir(dir);
  for (const entry of steps[3]!.observation.split('\n').filter(Boolean)) {
    if (entry === 'reproduce.py') continue;
    if (entry.endsWith('/')) {
      await mkdir(path.join(dir, entry), { recursive: true });
      await writeFile(path.join(dir, entry, 'README'), `${entry}\n`);
    } else await writeFile(path.join(dir, entry), `${entry}\n`);
  }
  await mkdir(path.join(dir, 'src/marshmallow'), { recursive: true });
  await writeFile(path.join(dir, 'src/marshmallow/__init__.py'), '');
  await writeFile(path.join(dir, 'src/marshmallow/base.py'), BASE);
  await writeFile(path.join(dir, 'src/marshmallow/fields.py'), fields);
  await writeFile(path.join(dir, '.gitignore'), '*.py[cod]\n');
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  return git('rev-parse', 'HEAD').toString().trim();
}

/** The recording with the rebuilt repository's commit as its base (`submit` diffs against it). */
async function recordingOn(baseCommit: string, file: string): Promise<string> {
  const recording = z
    .looseObject({ replay_config: z.looseObject({ env: z.looseObject({ repo: z.looseObject({}) }) }) })
    .parse(JSON.parse(await readFile(TRAJ, 'utf8')));
  recording.replay_config.env.repo.base_commit = baseCommit;
  await writeFile(file, JSON.stringify(recording));
  return file;
}

async function leftoverContainers(): Promise<string[]> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABEL}=${hostname()}:${process.pid}`] } });
  return list.map((c) => c.Id);
}

/**
 * `swe-workbench replay` of the demonstration on a repository rebuilt in `work/name`; its
 * fields.py has its own blob ids, which the submitted patch's `index` line shows.
 */
async function replayOn(name: string, fields: string) {
  const repo = path.join(work, name);
  const traj = await recordingOn(await rebuiltRepository(repo, fields), path.join(work, `${name}.traj`));
  return runCli(replayCommand, [
    traj,
    '--image',
    IMAGE,
    '--repo',
    repo,
    '--forgive',
    'line-endings,ansi,trailing-whitespace,timings,temp-paths,pids,git-hashes',
  ]);
}

describe("SWE-agent's 0.x demonstration replayed whole (marshmallow-1867.windowed.traj)", () => {
  thirdPartyFiles.before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'swb-swe-agent-02-demo-'));
    steps = TrajSchema.parse(JSON.parse(await readFile(TRAJ, 'utf8'))).trajectory;
    await ensureImage();
  });
  thirdPartyFiles.after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });
  thirdPartyFiles.afterEach(async () => {
    assert.deepEqual(await leftoverContainers(), [], 'no sandbox container is left behind');
  });

  thirdPartyFiles.test('as SWE-agent 0.2, found from its wording, every one of the 11 steps matches: python, ls, the refused edit, rm and submit', async () => {
    const result = await replayOn('repo', rebuiltFields());
    assert.match(result.stderr, /scaffold swe-agent@0\.2 \(.*step 7 \(`edit 1475:1475`\) words its lint rejection "\.\.\.retry your edit commmand\." \(sic\)/);
    assert.deepEqual(
      result.stdout.split('\n').filter((l) => l.startsWith('step ')),
      Array.from({ length: 11 }, (_, i) => `step ${i + 1}: matched`),
      result.stdout,
    );
    assert.match(result.stdout, /^11 of 11 replayed steps matched$/m);
    assert.equal(result.code, 0);
  });

  thirdPartyFiles.test('a one-line change to fields.py diverges at step 6, the first step that reads the file', async () => {
    const result = await replayOn(
      'changed',
      rebuiltFields().replace(
        '        return int(value.total_seconds() / base_unit.total_seconds())\n',
        '        return int(value.total_seconds() // base_unit.total_seconds())\n',
      ),
    );
    assert.match(result.stdout, /^step 5: matched$/m);
    assert.match(result.stdout, /^step 6: DIVERGED$/m);
    assert.match(result.stdout, /^ +-1475: +return int\(value\.total_seconds\(\) \/ base_unit\.total_seconds\(\)\)$/m);
    assert.match(result.stdout, /first divergence at step 6$/m);
    assert.equal(result.code, 1);
  });
});
