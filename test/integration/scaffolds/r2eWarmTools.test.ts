// R2E-Gym's file_editor and search from the warm server (core/scaffolds/r2e-gym/warmTools.ts)
// against today's fresh process per call, in two containers of the same image and repository:
// the same calls give the same observations, a killed or stuck server is replaced, and an image
// whose Python cannot run the server falls back to fresh processes and says so.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { r2eCommandLine, type R2eAction } from '../../../extension/core/scaffolds/r2e-gym/action';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { r2eGymFamily } from '../../../extension/core/scaffolds/r2e-gym';
import { runR2eCommand } from '../../../extension/core/scaffolds/r2e-gym/freshRun';
import { r2eObservation, runR2eTool } from '../../../extension/core/scaffolds/r2e-gym/runtime';
import { r2eServers } from '../../../extension/core/scaffolds/r2e-gym/warmTools';
import { ensureR2eTestImage, writeGeneratedRepo } from '../../conformance/r2eOracle';

const T = '/testbed';
const editor = (parameters: Record<string, string>): R2eAction => ({ name: 'file_editor', parameters });
const search = (parameters: Record<string, string>): R2eAction => ({ name: 'search', parameters });

/** Reads, refusals, a usage error, a traceback, an edit, its undo and an undo with nothing left. */
const CALLS: R2eAction[] = [
  editor({ command: 'view', path: `${T}/inventory` }),
  editor({ command: 'view', path: `${T}/inventory/small.py` }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, concise: 'True' }),
  editor({ command: 'view', path: `${T}/inventory/latin1.py` }),
  editor({ command: 'view', path: `${T}/inventory/missing.py` }),
  editor({ command: 'view', path: `${T}/README.md` }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[a, b]' }),
  editor({ command: 'view', path: `${T}/inventory/broken.py`, concise: 'True' }),
  // No insert_line: an unhandled TypeError, its traceback on stderr before the buffered stdout.
  editor({ command: 'insert', path: `${T}/inventory/small.py`, new_str: 'x = 1' }),
  search({ search_term: 'def', path: `${T}/inventory` }),
  search({ search_term: 'add', path: `${T}/inventory/small.py` }),
  search({ search_term: 'nothing-like-this', path: T }),
  search({ search_term: 'x', path: `${T}/no/such/folder` }),
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, old_str: 'return a + b', new_str: 'return a - b' }),
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, old_str: 'return a - b', new_str: 'return (a', enable_linting: 'True' }),
  editor({ command: 'view', path: `${T}/inventory/small.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/small.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/small.py` }),
  editor({ command: 'view', path: `${T}/inventory/small.py` }),
];

async function fresh(sandbox: Sandbox, action: R2eAction): Promise<string> {
  const run = await runR2eCommand(sandbox, r2eCommandLine(action));
  return `${run.code}\n${r2eObservation(action.name, run)}`;
}

async function warm(sandbox: Sandbox, action: R2eAction, timeoutS?: number): Promise<string> {
  const run = await runR2eTool(sandbox, action, undefined, timeoutS);
  return `${run.code}\n${r2eObservation(action.name, run)}`;
}

async function serverPid(sandbox: Sandbox): Promise<number> {
  const server = await r2eServers.get(sandbox);
  assert.ok(server, 'the warm server runs');
  return Number(server.hello.pid);
}

describe("R2E-Gym's tools from a warm Python", () => {
  let hostDir: string;
  let freshBox: Sandbox;
  let warmBox: Sandbox;
  const sandboxes: Sandbox[] = [];
  let image: string;

  async function start(): Promise<Sandbox> {
    const sandbox = await DockerSandbox.create({
      image,
      repoDir: hostDir,
      repoPath: T,
      labels: { 'swe-workbench.test': 'r2e-warm' },
      limits: { commandTimeoutMs: 120_000 },
    });
    sandboxes.push(sandbox);
    await r2eGymFamily.create(r2eGymFamily.versions[0]!).prepare!(sandbox);
    return sandbox;
  }

  before(async () => {
    image = await ensureR2eTestImage();
    hostDir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-r2e-warm-'));
    await writeGeneratedRepo(hostDir);
    [freshBox, warmBox] = await Promise.all([start(), start()]);
  });

  after(async () => {
    await Promise.allSettled(sandboxes.map(async (s) => (await r2eServers.dispose(s), await s.dispose())));
    if (hostDir) await rm(hostDir, { recursive: true, force: true });
  });

  test('the same calls give the same observations, exit codes and undo history warm as fresh', async () => {
    const seen: string[] = [];
    for (const action of CALLS) {
      const observation = await fresh(freshBox, action);
      assert.equal(await warm(warmBox, action), observation, r2eCommandLine(action));
      seen.push(observation);
    }
    assert.match(
      seen.find((o) => o.includes('Unhandled exception')) ?? '',
      /^0\n[^]*Traceback \(most recent call last\):\n[^]*TypeError[^]*\nERROR: Unhandled exception/,
    );
    const server = await r2eServers.get(warmBox);
    assert.equal(server?.answered, CALLS.length, 'every call was answered by the warm server');
    const file = (s: Sandbox) => s.exec(`sha1sum ${T}/inventory/small.py /var/tmp/editor_state.json`).then((r) => r.output);
    assert.equal(await file(warmBox), await file(freshBox));
  });

  test('a killed server is replaced and the next call still answers', async () => {
    const view = editor({ command: 'view', path: `${T}/inventory/small.py` });
    const killed = await serverPid(warmBox);
    assert.equal((await warmBox.exec(`kill -9 ${killed}`)).exitCode, 0);
    assert.equal(await warm(warmBox, view), await fresh(freshBox, view));
    assert.notEqual(await serverPid(warmBox), killed);
  });

  test("a call that runs too long gives R2E-Gym's timeout observation and the server is replaced", async () => {
    // Reading a FIFO with no writer blocks for ever; the limit is 2 s here instead of 90 s.
    assert.equal((await warmBox.exec(`mkfifo ${T}/stuck.py`)).exitCode, 0);
    const stuck = await serverPid(warmBox);
    const observation = await warm(warmBox, editor({ command: 'view', path: `${T}/stuck.py` }), 2);
    assert.equal(observation, '-1\nExecution output of [file_editor]:\nThe command took too long to execute (>90s)');
    const view = editor({ command: 'view', path: `${T}/inventory` });
    await warmBox.exec(`rm ${T}/stuck.py`);
    assert.equal(await warm(warmBox, view), await fresh(freshBox, view));
    assert.notEqual(await serverPid(warmBox), stuck);
    assert.equal((await warmBox.exec(`ps -o pid= -p ${stuck} || true`)).output.trim(), '', 'the stuck server is gone');
  });

  test("a repository's own module of a name the tools import does not replace it", async () => {
    const shadowed = await start();
    // R2E-Gym's file_editor imports chardet per call; a fresh script finds it from its own folder.
    await shadowed.writeFile(`${T}/chardet.py`, 'def detect(raw):\n    return {"encoding": "not-an-encoding"}\n');
    await freshBox.writeFile(`${T}/chardet.py`, 'def detect(raw):\n    return {"encoding": "not-an-encoding"}\n');
    const view = editor({ command: 'view', path: `${T}/inventory/latin1.py` });
    const observation = await fresh(freshBox, view);
    assert.match(observation, /caf\u00e9/);
    assert.equal(await warm(shadowed, view), observation);
    await freshBox.exec(`rm ${T}/chardet.py`);
  });

  test('an image whose Python cannot run the server gets fresh processes and a line in the log', async () => {
    const broken = await start();
    // An interpreter that runs scripts but not `python -c`, so only the server fails.
    const wrapper = '#!/bin/sh\n[ "$1" = -c ] && { echo "no -c here" >&2; exit 1; }\nexec /usr/bin/python3 "$@"\n';
    await broken.exec('rm /root/.venv/bin/python');
    await broken.writeFile('/root/.venv/bin/python', wrapper);
    assert.equal((await broken.exec('chmod +x /root/.venv/bin/python')).exitCode, 0);
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
    try {
      for (const action of [CALLS[1]!, CALLS[4]!, CALLS[9]!]) assert.equal(await warm(broken, action), await fresh(freshBox, action));
    } finally {
      console.warn = original;
    }
    assert.equal(await r2eServers.get(broken), undefined);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, new RegExp(`start a new Python process for every call in sandbox ${broken.id.slice(0, 12)}`));
  });
});
