/**
 * Terminus-2's terminal conformance: the same keystroke sequences sent through Harbor's own
 * `TmuxSession` (../shared/oracles/harbor, run by terminus2TmuxDriver.py over `docker exec`) and
 * through ours (core/scaffolds/terminus-2/tmuxSession.ts), each in a fresh container of the same
 * image, and what each reports after every send compared: the incremental output ("New Terminal
 * Output" or "Current Terminal Screen"), the screen, and a blocking send's timeout. The two
 * containers differ only in their host names, which the shell prompt shows; each side's own host
 * name is written `HOST` before comparing.
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe } from 'node:test';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { TmuxSession, TmuxTimeoutError } from '../../extension/core/scaffolds/terminus-2/tmuxSession';
import { lineDiff } from '../../extension/core/session/lineDiff';
import { ACI_TEST_LABEL } from '../helpers/aciSandbox';
import { needsShared } from '../helpers/sharedFolder';
import { ensureTmuxTestImage } from '../helpers/tmuxImage';

const oracles = needsShared('oracles');
const HARBOR_SRC = oracles.path('harbor/src');
const DRIVER = path.join(__dirname, 'terminus2TmuxDriver.py');

type Op =
  | { op: 'send'; keys: string | string[]; block?: boolean; min_timeout_sec?: number; max_timeout_sec?: number }
  | { op: 'incremental' }
  | { op: 'capture'; entire?: boolean };
type Result = { output?: string; error?: string };

const send = (keys: string | string[], min = 0.1): Op => ({ op: 'send', keys, min_timeout_sec: min });
const incremental: Op = { op: 'incremental' };

/** Keystroke sequences, each run in a fresh session on both sides. */
const SEQUENCES: Record<string, Op[]> = {
  'commands, quoting, unicode and special keys': [
    incremental,
    send('mkdir test_dir\n'),
    incremental,
    send("echo 'it'\"'\"'s' \"double\" $((6*7)) héllo ✓\n"),
    incremental,
    send(['echo first', 'Enter', 'echo second', 'C-m']),
    incremental,
    send('cat missing.txt\n'),
    incremental,
    send('echo no newline yet'),
    incremental,
    send('\n'),
    incremental,
    send([]),
    incremental,
  ],
  'a command still running when the duration ends, then waited for': [
    incremental,
    send('sleep 3; echo finished\n', 0.5),
    incremental,
    send('', 5),
    incremental,
  ],
  'a full screen, a wrapped line, history and a redraw': [
    incremental,
    send('seq 1 100\n', 1),
    incremental,
    { op: 'capture' },
    send('seq 1 25\n', 1),
    incremental,
    send(`printf '%s\\n' ${'w'.repeat(400)}\n`, 1),
    incremental,
    send('clear\n', 1),
    incremental,
    { op: 'capture', entire: true },
    send('echo after clear\n', 0.5),
    incremental,
  ],
  'C-c stops a running command': [incremental, send('sleep 30\n', 0.5), incremental, send('C-c', 0.5), incremental, send(['C-c'], 0.3), incremental],
  'blocking sends: done, and timed out': [
    incremental,
    { op: 'send', keys: ['echo blocked', 'Enter'], block: true, max_timeout_sec: 20 },
    incremental,
    { op: 'send', keys: 'echo blocked newline\n', block: true, max_timeout_sec: 20 },
    incremental,
    { op: 'send', keys: ['sleep 6', 'Enter'], block: true, max_timeout_sec: 1.5 },
    incremental,
    send('C-c', 0.5),
    incremental,
  ],
  'keystrokes past the 16,000-character send-keys limit': [incremental, send(`printf '%s' ${'y'.repeat(17_000)} | wc -c\n`, 4), incremental],
};

let image: string;
const sandboxes: Sandbox[] = [];
const repoDirs: string[] = [];

async function appContainer(): Promise<Sandbox> {
  const repoDir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-terminus-'));
  repoDirs.push(repoDir);
  const sandbox = await DockerSandbox.create({ image, repoDir, repoPath: '/app', labels: { [ACI_TEST_LABEL]: 'terminus-conformance' } });
  sandboxes.push(sandbox);
  return sandbox;
}

async function hostName(sandbox: Sandbox): Promise<string> {
  return (await sandbox.exec('hostname')).output.trim();
}

function harbor(containerId: string, ops: Op[]): Promise<Result[]> {
  return new Promise((resolve, reject) => {
    const child = execFile('python3', [DRIVER, HARBOR_SRC, containerId], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`terminus2TmuxDriver.py failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Result[]);
    });
    child.stdin!.end(JSON.stringify({ session: 'terminus-2', ops }));
  });
}

async function ours(sandbox: Sandbox, ops: Op[]): Promise<Result[]> {
  const session = new TmuxSession(sandbox, { cwd: '/app' });
  await session.start();
  const results: Result[] = [];
  for (const op of ops) {
    if (op.op === 'incremental') results.push({ output: await session.incrementalOutput() });
    else if (op.op === 'capture') results.push({ output: await session.capture(op.entire ?? false) });
    else {
      try {
        await session.sendKeys(op.keys, {
          ...(op.block !== undefined ? { block: op.block } : {}),
          ...(op.min_timeout_sec !== undefined ? { minTimeoutS: op.min_timeout_sec } : {}),
          ...(op.max_timeout_sec !== undefined ? { maxTimeoutS: op.max_timeout_sec } : {}),
        });
        results.push({});
      } catch (err) {
        if (!(err instanceof TmuxTimeoutError)) throw err;
        results.push({ error: `TimeoutError: ${err.message}` });
      }
    }
  }
  return results;
}

function withHost(results: Result[], host: string): Result[] {
  return results.map((r) => (r.output === undefined ? r : { ...r, output: r.output.split(host).join('HOST') }));
}

describe("Terminus-2's tmux session against Harbor's TmuxSession", () => {
  // The image only serves the tests that read Harbor's code: without ../shared/oracles it is not built.
  oracles.before(async () => {
    image = await ensureTmuxTestImage();
  });
  after(async () => {
    await Promise.all(sandboxes.map((s) => s.dispose()));
    await Promise.all(repoDirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  for (const [name, ops] of Object.entries(SEQUENCES)) {
    oracles.test(name, { timeout: 180_000 }, async () => {
      const [reference, mine] = [await appContainer(), await appContainer()];
      const expected = withHost(await harbor(reference.id, ops), await hostName(reference));
      const actual = withHost(await ours(mine, ops), await hostName(mine));
      assert.equal(actual.length, ops.length);
      ops.forEach((op, i) => {
        const [e, a] = [expected[i]!, actual[i]!];
        const where = `op ${i + 1} (${JSON.stringify(op).slice(0, 80)})`;
        assert.equal(a.error, e.error, `${where}: the timeout differs`);
        if (e.output !== undefined || a.output !== undefined)
          assert.equal(
            a.output,
            e.output,
            `${where}: what the session reports differs\n${lineDiff((e.output ?? '').split('\n'), (a.output ?? '').split('\n'))}`,
          );
      });
      // Each sequence shows what it is about: the reference reported it too.
      assert.ok(expected.some((r) => r.output?.startsWith('New Terminal Output:')));
    });
  }
});
