// The lint guard's warm flake8 (core/scaffolds/swe-agent/tools/flake8Server.ts) against the flake8 command, in a real
// container: the same edits through both give the same observations and leave the same files.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../../extension/core/aci/aciSession';
import { warmFlake8For } from '../../../extension/core/scaffolds/swe-agent/tools/flake8Server';
import { disposeWarmServers } from '../../../extension/core/runtime/warmPython';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import { ACI_TEST_LABEL, BASE_IMAGE, startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

/** Edits of ledger/money.py, run in order: refused ones (E999, F821, E111) and applied ones. */
const EDITS: { command: string; applied: boolean }[] = [
  { command: 'edit 14:14\n        raise TypeError("unclosed"\nend_of_edit', applied: false },
  { command: 'edit 14:14\n        raise TypeError(undefined_name_here)\nend_of_edit', applied: false },
  { command: 'edit 14:14\n      raise TypeError("three spaces")\nend_of_edit', applied: false },
  { command: 'edit 2:2\n# a comment the guard lets through\nend_of_edit', applied: true },
  { command: 'edit 14:14\n        raise TypeError("money, not float")\nend_of_edit', applied: true },
];

/** The windowed_edit_replace bundle's `edit <search> <replace>`, refused and applied. */
const REPLACES: { command: string; applied: boolean }[] = [
  { command: `edit '"use a string or Decimal for money, not float"' 'undefined_name_here'`, applied: false },
  { command: `edit 'not float")' 'not float"'`, applied: false },
  { command: `edit 'not float")' 'not a float")'`, applied: true },
];

const hasF821 = (observation: string) => /^- F821 undefined name 'undefined_name_here'$/m.test(observation);
const hasE999 = (observation: string) => /^- E999 SyntaxError: /m.test(observation);

async function copyOf(aci: AciFixture, from: string, to: string): Promise<void> {
  const r = await aci.sandbox.exec(`cp ${from} ${to}`);
  assert.equal(r.exitCode, 0, r.output);
}

async function fileOf(aci: AciFixture, rel: string): Promise<string> {
  return (await aci.sandbox.exec(`base64 -w0 ${rel}`)).output.trim();
}

async function pythonProcesses(aci: AciFixture): Promise<string> {
  // ps lists every process of the container; the server is the one running `python3 -c`.
  return (await aci.sandbox.exec("ps -eo args | grep -c '^/usr/bin/python3 -c' || true")).output.trim();
}

describe('warm flake8 in a container', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo();
  });
  after(async () => {
    await aci?.dispose();
  });

  test('a linted edit gives the same observation through the warm linter and through the command', async () => {
    await copyOf(aci, 'ledger/money.py', 'ledger/money_command.py');
    await copyOf(aci, 'ledger/money.py', 'ledger/money_warm.py');
    const warm = new AciSession(aci.sandbox, { tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting']) });
    const command = new AciSession(aci.sandbox, {
      tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting']),
      config: { warmLinter: false },
    });
    await warm.runCommand('open ledger/money_warm.py');
    await command.runCommand('open ledger/money_command.py');
    for (const { command: edit, applied } of EDITS) {
      const w = await warm.runCommand(edit);
      const c = await command.runCommand(edit);
      assert.equal(w.observation.replaceAll('money_warm', 'money_command'), c.observation, edit);
      assert.equal(w.exitCode, c.exitCode, edit);
      assert.equal(c.exitCode === 0, applied, `${edit}: ${c.observation}`);
      assert.equal(await fileOf(aci, 'ledger/money_warm.py'), await fileOf(aci, 'ledger/money_command.py'), edit);
    }
    // Both checks of every edit were answered in memory (none failed over to the command).
    const server = await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('the warm session started the server')));
    assert.equal(server?.answered, 2 * EDITS.length);
    const [unclosed, undefinedName] = [EDITS[0], EDITS[1]].map((e) => e?.command ?? '');
    await warm.runCommand('open ledger/money_warm.py');
    assert.ok(hasE999((await warm.runCommand(unclosed ?? '')).observation), 'a syntax error is refused with E999');
    assert.ok(hasF821((await warm.runCommand(undefinedName ?? '')).observation), 'an undefined name is refused with F821');
  });

  test('edit <search> <replace> (windowed_edit_replace) gives the same observations through both', async () => {
    await copyOf(aci, 'ledger/money.py', 'ledger/replace_command.py');
    await copyOf(aci, 'ledger/money.py', 'ledger/replace_warm.py');
    const bundles = ['tools/registry', 'tools/windowed', 'tools/windowed_edit_replace'];
    const warm = new AciSession(aci.sandbox, { tools: toolSetFor(bundles) });
    const command = new AciSession(aci.sandbox, { tools: toolSetFor(bundles), config: { warmLinter: false } });
    const answeredBefore = (await warmFlake8For(aci.sandbox, (script) => aci.sandbox.exec(script).then((r) => r.output)))?.answered ?? 0;
    await warm.runCommand('open ledger/replace_warm.py 14');
    await command.runCommand('open ledger/replace_command.py 14');
    for (const { command: edit, applied } of REPLACES) {
      const w = await warm.runCommand(edit);
      const c = await command.runCommand(edit);
      assert.equal(w.observation.replaceAll('replace_warm', 'replace_command'), c.observation, edit);
      assert.equal(c.exitCode === 0, applied, `${edit}: ${c.observation}`);
      assert.equal(await fileOf(aci, 'ledger/replace_warm.py'), await fileOf(aci, 'ledger/replace_command.py'), edit);
    }
    const server = await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('the warm session started the server')));
    assert.equal(server?.answered, answeredBefore + 2 * REPLACES.length);
  });

  test('one warm process serves every edit of the sandbox and is gone when the session stops its servers', async () => {
    const session = new AciSession(aci.sandbox, { tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting']) });
    await session.runCommand('open ledger/money.py');
    await session.runCommand('edit 2:2\n# first\nend_of_edit');
    const server = await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('no new server expected')));
    assert.ok(server?.alive);
    await session.runCommand('edit 2:2\n# second\nend_of_edit');
    await session.runCommand('edit 14:14\n        raise TypeError(\nend_of_edit');
    assert.equal(await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('no new server expected'))), server);
    assert.equal(await pythonProcesses(aci), '1');
    await session.stopServers();
    assert.equal(server?.alive, false);
    assert.equal(await pythonProcesses(aci), '0');
    // The next edit starts another; the session's dispose stops it with the sandbox.
    await session.runCommand('edit 2:2\n# third\nend_of_edit');
    const next = await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('no new server expected')));
    assert.ok(next?.alive && next !== server);
    assert.equal(await pythonProcesses(aci), '1');
    await session.dispose();
    assert.equal(next?.alive, false);
  });
});

describe('an image whose flake8 Python module does not import', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo();
  });
  after(async () => {
    await aci?.dispose();
  });

  test('falls back to the flake8 command and still refuses a broken edit', async () => {
    // A Python without the system's site-packages (a bare venv), and a flake8 script run by it
    // that finds the module itself: the command works, `import flake8` in its interpreter fails.
    const setup = await aci.sandbox.exec(
      [
        'mkdir -p /opt/bare/bin && ln -sf /usr/bin/python3 /opt/bare/bin/python3',
        `printf 'home = /usr/bin\\ninclude-system-site-packages = false\\n' > /opt/bare/pyvenv.cfg`,
        `printf '#!/opt/bare/bin/python3\\nimport sys\\nsys.path.append("/usr/lib/python3/dist-packages")\\nfrom flake8.main.cli import main\\nsys.exit(main())\\n' > /opt/bare/bin/flake8`,
        'chmod +x /opt/bare/bin/flake8 && export PATH=/opt/bare/bin:$PATH && command -v flake8',
      ].join(' && '),
    );
    assert.equal(setup.output.trim(), '/opt/bare/bin/flake8', setup.output);
    const session = new AciSession(aci.sandbox, { tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting']) });
    await session.runCommand('open ledger/money.py');
    const r = await session.runCommand('edit 14:14\n        raise TypeError(undefined_name_here)\nend_of_edit');
    assert.equal(r.exitCode, 1);
    assert.ok(hasF821(r.observation), r.observation);
    assert.equal(await warmFlake8For(aci.sandbox, () => Promise.reject(new Error('the reason is kept'))), undefined);
  });
});

describe('a linted edit the file system refuses', () => {
  test('is an error naming the file, through the warm linter and through the command, never "File updated"', async () => {
    const host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-readonly-'));
    await writeFile(path.join(host, 'fixed.py'), 'x = 1\n');
    // Root writes through any file mode; a read-only mount refuses it.
    const sandbox = await DockerSandbox.create({
      image: BASE_IMAGE,
      repoPath: '/repo',
      labels: { [ACI_TEST_LABEL]: 'aci' },
      mounts: [{ hostPath: host, containerPath: '/readonly', readOnly: true }],
    });
    try {
      for (const warmLinter of [true, false]) {
        const session = new AciSession(sandbox, {
          tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting']),
          config: { warmLinter },
        });
        await session.runCommand('open /readonly/fixed.py');
        await assert.rejects(
          session.runCommand('edit 1:1\nx = 2\nend_of_edit'),
          /cannot write \/readonly\/fixed\.py: .*Read-only file system/,
          `warmLinter ${warmLinter}`,
        );
      }
      assert.equal((await sandbox.exec('cat /readonly/fixed.py')).output, 'x = 1\n');
    } finally {
      await disposeWarmServers(sandbox);
      await sandbox.dispose();
      await rm(host, { recursive: true, force: true });
    }
  });
});
