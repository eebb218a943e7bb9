// Our tools against what SWE-agent printed in real recorded runs, on content rebuilt from the
// recordings themselves. SWE-agent 1.x ran under a pty, so its lines end with \r\n: the sessions
// here print that way too, and the observations are compared byte for byte.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe } from 'node:test';
import { z } from 'zod';
import { AciSession } from '../../../extension/core/aci/aciSession';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { replaySettings } from '../../../extension/core/session/containerSession';
import { aciConfigForRecording } from '../../../extension/core/scaffolds/swe-agent/recordingConfig';
import { detectScaffold } from '../../../extension/core/scaffolds/registry';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { startTestSandbox } from '../../helpers/aciSandbox';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const thirdParty = thirdPartyFiles.path('swe-agent');

const TrajSchema = z.object({ trajectory: z.array(z.object({ action: z.string(), observation: z.string() })) });

const AgentToolsSchema = z.object({ agent: z.object({ tools: z.object({ bundles: z.array(z.object({ path: z.string() })) }) }) });
/** `replay_config` is an object in some recordings and a JSON string in others. */
const ReplayConfigSchema = z.object({
  replay_config: z.union([
    AgentToolsSchema,
    z
      .string()
      .transform((text) => JSON.parse(text) as unknown)
      .pipe(AgentToolsSchema),
  ]),
});

/** A recording's steps; none when the third-party fixtures are absent (every test here is then skipped). */
function recordedSteps(file: string) {
  if (!thirdPartyFiles.present) return [];
  return TrajSchema.parse(JSON.parse(readFileSync(path.resolve(thirdParty, file), 'utf8'))).trajectory;
}

/** The `N:text` lines of a recorded window, back to file lines keyed by number. */
function windowLines(observation: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const line of observation.split('\r\n')) {
    const m = /^(\d+):(.*)$/.exec(line);
    if (m) lines.set(Number(m[1]), m[2] as string);
  }
  return lines;
}

function gitRepo(dir: string): void {
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
}

describe('SWE-agent/test-repo run (sweagenttestrepo-1c2844.traj): find_file, open, submit', () => {
  const steps = recordedSteps('sweagenttestrepo-1c2844.traj');
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recorded-'));
  let sandbox: Sandbox;
  let session: AciSession;

  thirdPartyFiles.before(async () => {
    const open = steps[1];
    assert.equal(open?.action, 'open "/SWE-agent__test-repo/tests/missing_colon.py"');
    const shown = windowLines(open.observation);
    // 10 lines total and a 10th shown empty line: the file ends with a blank line.
    const text = [...shown.values()].join('\n') + '\n';
    mkdirSync(path.join(host, 'tests'));
    writeFileSync(path.join(host, 'tests/missing_colon.py'), text);
    chmodSync(path.join(host, 'tests/missing_colon.py'), 0o755);
    gitRepo(host);
    sandbox = await startTestSandbox(host, '/SWE-agent__test-repo');
    session = new AciSession(sandbox, { tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/search', 'tools/submit']), config: { crlf: true } });
  });
  // A plain hook, not the fixtures': every `host` here is made whether or not they are present.
  after(async () => {
    await sandbox?.dispose();
    rmSync(host, { recursive: true, force: true });
  });

  thirdPartyFiles.test('find_file prints what the recording shows', async () => {
    assert.equal((await session.runCommand(steps[0]!.action)).observation, steps[0]!.observation);
  });

  thirdPartyFiles.test('open prints what the recording shows', async () => {
    assert.equal((await session.runCommand(steps[1]!.action)).observation, steps[1]!.observation);
  });

  thirdPartyFiles.test('submit after the same fix prints the recorded patch, blob ids included', async () => {
    await session.runCommand(`sed -i 's/-> float$/-> float:/' tests/missing_colon.py`);
    const submit = steps.find((s) => s.action === 'submit');
    assert.ok(submit);
    assert.equal((await session.runCommand('submit')).observation, submit.observation);
  });
});

describe('marshmallow-1867 function-calling run (tools/edit_replace): create, insert, open, a rejected and an applied edit', () => {
  const traj = path.join(thirdParty, 'marshmallow-1867.function_calling.traj');
  const steps = recordedSteps('marshmallow-1867.function_calling.traj');
  const step = (action: string) => {
    const found = steps.find((s) => s.action === action);
    assert.ok(found || !thirdPartyFiles.present, `recorded action ${action}`);
    return found!;
  };
  const openStep = step('open "src/marshmallow/fields.py" 1474');
  const rejected = steps[6]!;
  const applied = steps[7]!;
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recorded-'));
  let sandbox: Sandbox;
  let session: AciSession;

  /** fields.py as far as the recording shows it: its window, and the edited window shifted back. */
  function rebuiltFields(): string {
    const total = Number(/\((\d+) lines total\)/.exec(openStep.observation)?.[1]);
    const known = windowLines(openStep.observation);
    const [appliedWindow] = rejected.observation.split('This is the original');
    // The rejected edit turned line 1475 into two lines; below it, edited line k is line k - 1.
    for (const [n, text] of windowLines(appliedWindow ?? '')) if (n >= 1477) known.set(n - 1, text);
    // The window starts inside a method's open tuple and ends on an `if` line: the filler lines
    // above open that nesting and those below give the `if` a body, so only the edit can break it.
    const opening = ['class TimeDelta:', '    def __init__(self, precision, **kwargs):', '        units = ('];
    const lastKnown = Math.max(...known.keys());
    const filler = (n: number) => (n > lastKnown ? '                pass' : (opening[n - 1] ?? `# line ${n}`));
    return Array.from({ length: total }, (_, i) => known.get(i + 1) ?? filler(i + 1)).join('\n') + '\n';
  }

  thirdPartyFiles.before(async () => {
    mkdirSync(path.join(host, 'src/marshmallow'), { recursive: true });
    writeFileSync(path.join(host, 'src/marshmallow/fields.py'), rebuiltFields());
    gitRepo(host);
    sandbox = await startTestSandbox(host, '/testbed');
    const { replay_config: config } = ReplayConfigSchema.parse(JSON.parse(readFileSync(traj, 'utf8')));
    // An early 1.0 recording (1.0 bundle names, no swe_agent_version), as sweAgentVersionOf reads it.
    session = new AciSession(sandbox, { tools: toolSetFor(config.agent.tools.bundles.map((b) => b.path)), config: { crlf: true, sweAgentVersion: '1.0.0' } });
  });
  after(async () => {
    await sandbox?.dispose();
    rmSync(host, { recursive: true, force: true });
  });

  thirdPartyFiles.test('the recording selects the replace-style edit', () => {
    assert.equal(session.tools.get('edit')?.bundle, 'windowed_edit_replace');
    assert.equal(session.tools.get('insert')?.bundle, 'windowed_edit_replace');
  });

  thirdPartyFiles.test('create reproduce.py', async () => {
    const create = steps[0]!;
    assert.equal(create.action, 'create reproduce.py');
    const r = await session.runCommand(create.action);
    assert.equal(r.observation, create.observation);
    assert.deepEqual(r.state, { open_file: '/testbed/reproduce.py', working_dir: '/testbed' });
  });

  thirdPartyFiles.test('insert the reproduction script', async () => {
    const insert = steps[1]!;
    assert.ok(insert.action.startsWith("insert 'from marshmallow.fields import TimeDelta"));
    assert.equal((await session.runCommand(insert.action)).observation, insert.observation);
  });

  thirdPartyFiles.test('open "src/marshmallow/fields.py" 1474', async () => {
    assert.equal((await session.runCommand(openStep.action)).observation, openStep.observation);
  });

  thirdPartyFiles.test('an edit losing its indentation is refused by flake8 (E999) with both windows', async () => {
    const r = await session.runCommand(rejected.action);
    assert.equal(r.observation, rejected.observation);
    assert.equal(r.exitCode, 4);
  });

  thirdPartyFiles.test('the corrected edit is applied', async () => {
    assert.equal((await session.runCommand(applied.action)).observation, applied.observation);
  });
});

describe('SWE-agent 1.0.1 run on pandas (swe-smith, tools/edit_anthropic + review_on_submit_m)', () => {
  const traj = thirdPartyFiles.path('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
  const steps = recordedSteps(traj);
  const view = steps[3]!;
  const create = steps[6]!;
  const replace = steps[10]!;
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recorded-'));
  let sandbox: Sandbox;
  let session: AciSession;

  thirdPartyFiles.before(async () => {
    assert.equal(view.action, 'str_replace_editor view /testbed/pandas/io/sql.py  --view_range 1030 1074');
    // `%6d\t<line>` rows of the viewed range are the file's lines 1030-1074; the rest is filler.
    const known = new Map<number, string>();
    for (const row of view.observation.split('\r\n').slice(1)) {
      const m = /^ *(\d+)\t(.*)$/.exec(row);
      if (m) known.set(Number(m[1]), m[2] as string);
    }
    mkdirSync(path.join(host, 'pandas/io'), { recursive: true });
    writeFileSync(path.join(host, 'pandas/io/sql.py'), Array.from({ length: 3000 }, (_, i) => known.get(i + 1) ?? `# line ${i + 1}`).join('\n') + '\n');
    gitRepo(host);
    sandbox = await startTestSandbox(host, '/testbed');
    const { replay_config: config } = ReplayConfigSchema.parse(JSON.parse(readFileSync(traj, 'utf8')));
    session = new AciSession(sandbox, { tools: toolSetFor(config.agent.tools.bundles.map((b) => b.path)), config: { crlf: true } });
  });
  after(async () => {
    await sandbox?.dispose();
    rmSync(host, { recursive: true, force: true });
  });

  thirdPartyFiles.test('view with a range', async () => {
    assert.equal((await session.runCommand(view.action)).observation, view.observation);
  });

  thirdPartyFiles.test('create a file from a quoted multi-line --file_text', async () => {
    assert.equal((await session.runCommand(create.action)).observation, create.observation);
  });

  thirdPartyFiles.test('str_replace of a 15-line block prints the recorded snippet', async () => {
    assert.equal((await session.runCommand(replace.action)).observation, replace.observation);
  });

  thirdPartyFiles.test('the first submit asks for a review with the diff, the second hands in the patch itself', async () => {
    const review = await session.runCommand('submit');
    const recordedReview = steps[14]!.observation;
    const intro = recordedReview.slice(0, recordedReview.indexOf('<diff>'));
    assert.ok(review.observation.startsWith(intro));
    assert.ok(review.observation.endsWith('\r\n\r\n</diff>'));
    const final = await session.runCommand('submit');
    assert.equal(final.observation, final.submission);
    assert.ok(final.submission?.includes('+                if isinstance(ser._values, ArrowExtensionArray) and hasattr(ser.dtype, "pyarrow_dtype")'));
  });
});

describe('SWE-agent 1.0.1 filemap view of a long Python file (USE_FILEMAP)', () => {
  const traj = thirdPartyFiles.path('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
  const view = recordedSteps(traj)[1]!;
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recorded-'));
  let sandbox: Sandbox;
  let session: AciSession;

  /**
   * sql.py from its filemap: the rows shown are the file's lines; each elided function body gets
   * as many deeply indented `pass` lines; after the clip, comment lines keep the map long enough.
   */
  function rebuiltFromFilemap(): string {
    const lines = new Map<number, string>();
    const shown = view.observation.slice(0, view.observation.indexOf('<response clipped>')).split('\r\n');
    for (const row of shown) {
      const elided = /^ *\d+ \.\.\. eliding lines (\d+)-(\d+) \.\.\.$/.exec(row);
      if (elided) for (let n = Number(elided[1]); n <= Number(elided[2]); n++) lines.set(n, `${' '.repeat(40)}pass`);
      const line = /^ *(\d+) (.*)$/.exec(row);
      if (line && !elided) lines.set(Number(line[1]), line[2] as string);
    }
    // The clip cut the next row to its first characters, which match no row above.
    const total = Math.max(...lines.keys()) + 200;
    return Array.from({ length: total }, (_, i) => lines.get(i + 1) ?? `# filler line ${i + 1}`).join('\n') + '\n';
  }

  thirdPartyFiles.before(async () => {
    assert.equal(view.action, 'str_replace_editor view /testbed/pandas/io/sql.py');
    mkdirSync(path.join(host, 'pandas/io'), { recursive: true });
    writeFileSync(path.join(host, 'pandas/io/sql.py'), rebuiltFromFilemap());
    gitRepo(host);
    sandbox = await startTestSandbox(host, '/testbed');
    session = new AciSession(sandbox, { tools: toolSetFor(['tools/registry', 'tools/edit_anthropic']), config: { crlf: true, useFilemap: true } });
  });
  after(async () => {
    await sandbox?.dispose();
    rmSync(host, { recursive: true, force: true });
  });

  thirdPartyFiles.test('the abbreviated view matches the recording byte for byte', async () => {
    assert.equal((await session.runCommand(view.action)).observation, view.observation);
  });
});

describe("SWE-agent's 0.x demonstration (marshmallow-1867.windowed.traj): create, edit, find_file, open and edit as 0.2 printed them", () => {
  const traj = path.join(thirdParty, 'marshmallow-1867.windowed.traj');
  const steps = recordedSteps('marshmallow-1867.windowed.traj');
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recorded-'));
  let sandbox: Sandbox;
  let session: AciSession;

  /**
   * fields.py from the two windows the run shows (lines 1425-1558), inside a class docstring above
   * and comments below; the names those lines use are imported on line 1, since 0.2's lint guard
   * refuses an edit while flake8 finds anything in the file (the real fields.py had no such finding).
   */
  function rebuiltFields(): string {
    const known = new Map<number, string>();
    const lines = (observation: string) => [...windowLines(observation.replace(/\n/g, '\r\n'))];
    for (const [n, text] of lines(steps[7]!.observation)) known.set(n, text);
    for (const [n, text] of lines(steps[5]!.observation)) known.set(n, text);
    const imports = 'import copy, typing, datetime as dt; from marshmallow.base import Field, Nested, FieldInstanceResolutionError, resolve_field_instance';
    const filler = (n: number) => (n === 1 ? imports : n === 2 ? 'class TimeDelta:' : n === 3 ? '    """' : n < 1425 ? `    doc line ${n}` : `# line ${n}`);
    return Array.from({ length: 1997 }, (_, i) => known.get(i + 1) ?? filler(i + 1)).join('\n') + '\n';
  }

  thirdPartyFiles.before(async () => {
    mkdirSync(path.join(host, 'src/marshmallow'), { recursive: true });
    writeFileSync(path.join(host, 'src/marshmallow/fields.py'), rebuiltFields());
    gitRepo(host);
    sandbox = await startTestSandbox(host, '/marshmallow-code__marshmallow');
    // The recording's own settings: 0.x (no pty line ends) worded as 0.2 (its lint rejection), its bundles, no terminal.
    const { trajectory } = await loadTrajectory(traj);
    const { version } = detectScaffold(trajectory);
    assert.equal(version, '0.2');
    const settings = replaySettings(trajectory);
    session = new AciSession(sandbox, { tools: toolSetFor(settings.bundles), config: { ...aciConfigForRecording(trajectory, version), ...settings.config } });
  });
  after(async () => {
    await sandbox?.dispose();
    rmSync(host, { recursive: true, force: true });
  });

  for (const index of [0, 1, 4, 5]) {
    thirdPartyFiles.test(`step ${index}: ${JSON.stringify(steps[index]?.action.trim() ?? '')} prints what 0.2 printed`, async () => {
      assert.equal((await session.runCommand(steps[index]!.action)).observation, steps[index]!.observation);
    });
  }

  thirdPartyFiles.test('step 6: the edit losing its indentation is refused in 0.2\'s words ("commmand", sic), and the file is left as it was', async () => {
    const r = await session.runCommand(steps[6]!.action);
    assert.equal(r.observation, steps[6]!.observation);
    assert.match(r.observation, /^Your proposed edit has introduced new syntax error\(s\)\. Please understand the fixes and retry your edit commmand\./);
    assert.equal((await sandbox.exec('git status --porcelain')).output, '?? reproduce.py\n');
  });

  thirdPartyFiles.test('step 7: the corrected edit is applied and shown as 0.2 showed it', async () => {
    assert.equal((await session.runCommand(steps[7]!.action)).observation, steps[7]!.observation);
  });
});
