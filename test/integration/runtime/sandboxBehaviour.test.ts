// The behaviour every Sandbox must show, run against each kind the machine offers.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancelledError } from '../../../extension/core/errors';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import type { Sandbox, SandboxOptions } from '../../../extension/core/runtime/sandbox';
import { sandboxKinds } from './sandboxKinds';
import { sampleGitRepo } from './fixtureRepo';
import { SESSION_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { containersOfSession, testDocker } from '../../helpers/docker';

// LocalSandbox processes share the host's process table with any other run of these tests:
// durations unique to this run keep the process counts apart.
const RUN = String(process.pid).padStart(7, '0');
const SLEEP_A = `sleep 31${RUN}`;
const SLEEP_B = `sleep 32${RUN}`;

const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i).concat([0, 0, 13, 10, 255, 254]));

function countProcesses(sb: Sandbox, pattern: string): Promise<number> {
  return sb.exec(`ps -eo args= | grep -c -- ${JSON.stringify('^' + pattern)} || true`).then((r) => Number(r.output.trim()));
}

for (const kind of sandboxKinds()) {
  describe(`${kind.name} sandbox`, () => {
    // Under a pty the terminal turns every \n a program writes into \r\n.
    const eol = (text: string) => (kind.tty ? text.replaceAll('\n', '\r\n') : text);
    let repo: ReturnType<typeof sampleGitRepo>;
    let sb: Sandbox;
    const hostDir = mkdtempSync(join(tmpdir(), 'swe-workbench-copy-'));

    before(async () => {
      repo = sampleGitRepo();
      sb = await kind.create({ repoDir: repo.dir, repoPath: '/testbed', limits: { commandTimeoutMs: 20_000 } });
    });
    after(async () => {
      await sb?.dispose();
      repo?.remove();
      rmSync(hostDir, { recursive: true, force: true });
    });

    test('starts in the repository, with its .git', async () => {
      const r = await sb.exec('pwd; git log --format=%s; ls -1 ledger');
      assert.equal(r.exitCode, 0);
      const lines = r.output.split(eol('\n'));
      assert.equal(lines[0], sb.repoPath);
      assert.equal(lines[1], 'sample');
      assert.ok(lines.includes('money.py'));
    });

    test('reports exit codes and interleaves stderr with stdout', async () => {
      const r = await sb.exec('echo one; echo two >&2; echo three; (exit 7)');
      assert.equal(r.exitCode, 7);
      assert.equal(r.output, eol('one\ntwo\nthree\n'));
      assert.equal(r.timedOut, false);
      assert.equal((await sb.exec('false')).exitCode, 1);
    });

    test('a child that dies of a signal leaves only what the command printed', async () => {
      // `yes` always dies of SIGPIPE here. Without a terminal bash complains that it cannot
      // restore one after each; under a terminal it reports the killed job, as any shell does.
      const r = await sb.exec("yes | head -n 2; sh -c 'kill -9 $$'; echo after");
      assert.equal(r.output, eol(`y\ny\n${kind.tty ? 'Killed\n' : ''}after\n`));
      assert.equal(r.exitCode, 0);
    });

    test('keeps cwd, variables and functions across commands', async () => {
      await sb.exec('cd ledger && export LEDGER_MODE=strict && greet() { echo "hi $1"; }');
      const r = await sb.exec('pwd; echo $LEDGER_MODE; greet there');
      assert.equal(r.output, eol(`${sb.repoPath}/ledger\nstrict\nhi there\n`));
      await sb.exec(`cd ${sb.repoPath}`);
    });

    test('runs a command in another directory without moving the session', async () => {
      const r = await sb.exec('pwd', { cwd: `${sb.repoPath}/tests` });
      assert.equal(r.output, eol(`${sb.repoPath}/tests\n`));
      assert.equal((await sb.exec('pwd')).output, eol(`${sb.repoPath}\n`));
    });

    test('keeps output without a final newline exactly', async () => {
      const r = await sb.exec("printf 'a\\nb'");
      assert.equal(r.output, eol('a\nb'));
    });

    test('a timeout kills the running processes and the session goes on', async () => {
      await sb.exec('export KEPT=yes');
      const r = await sb.exec(`for i in 1 2 3; do ${SLEEP_A} | cat; echo never; done`, { timeoutMs: 700 });
      assert.equal(r.timedOut, true);
      assert.ok(!r.output.includes('never'), r.output);
      assert.equal(await countProcesses(sb, SLEEP_A), 0);
      const next = await sb.exec('echo $KEPT');
      assert.equal(next.output, eol('yes\n'));
      assert.equal(next.timedOut, false);
    });

    test('a timeout stops a loop of shell builtins', async () => {
      const r = await sb.exec('while :; do :; done', { timeoutMs: 500 });
      assert.equal(r.timedOut, true);
      assert.equal((await sb.exec('echo $KEPT')).output, eol('yes\n'));
    });

    test('a program that ignores SIGINT is killed on timeout', async () => {
      // An ignored signal stays ignored across exec, so sleep itself ignores SIGINT.
      const r = await sb.exec(`bash -c 'trap "" INT; echo up; exec ${SLEEP_B}'`, { timeoutMs: 1500 });
      assert.equal(r.timedOut, true);
      // What the shell adds after the kill depends on the terminal (a pty's job control prints "Killed").
      assert.ok(r.output.startsWith(eol('up\n')), r.output);
      assert.equal(await countProcesses(sb, SLEEP_B), 0);
      assert.equal((await sb.exec('echo $KEPT')).output, eol('yes\n'));
    });

    test('a shell that ignores SIGINT is replaced, and the result says so', async () => {
      await sb.exec('cd ledger');
      const r = await sb.exec('trap "" INT; while :; do :; done', { timeoutMs: 500 });
      assert.equal(r.timedOut, true);
      assert.equal(r.shellRestarted, true);
      const next = await sb.exec('pwd; echo "[$KEPT]"');
      assert.equal(next.output, eol(`${sb.repoPath}\n[]\n`));
      assert.equal(next.shellRestarted, undefined);
    });

    test('cuts output over the cap and counts the bytes left out', async () => {
      const r = await sb.exec('seq 1 100000', { maxOutputBytes: 1000 });
      const full = eol(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
      assert.equal(r.output, full.slice(0, 1000));
      assert.equal(r.truncatedBytes, Buffer.byteLength(full) - 1000);
      assert.equal(r.exitCode, 0);
    });

    test('a command that reads stdin gets end-of-file instead of hanging', async () => {
      const r = await sb.exec('read -r line; echo "read=$? line=$line"; cat; wc -c');
      assert.equal(r.output, eol('read=1 line=\n0\n'));
      assert.equal(r.timedOut, false);
    });

    test('commands with quotes, backslashes, newlines and non-ASCII text pass unchanged', async () => {
      const r = await sb.exec("cat <<'EOF'\nit's \\\"quoted\\\" $HOME `x` ü 漢字\ttab\nEOF");
      assert.equal(r.output, eol('it\'s \\"quoted\\" $HOME `x` ü 漢字\ttab\n'));
    });

    test('leaving the shell ends that command, and the next one gets a fresh shell', async () => {
      const r = await sb.exec('exit 4');
      assert.equal(r.exitCode, 4);
      const next = await sb.exec('pwd; echo ok');
      assert.equal(next.output, eol(`${sb.repoPath}\nok\n`));
    });

    test('reads and writes files byte for byte', async () => {
      await sb.writeFile('data/blob.bin', BINARY);
      assert.deepEqual(await sb.readFileBytes('data/blob.bin'), BINARY);
      assert.equal((await sb.exec('wc -c < data/blob.bin')).output.trim(), String(BINARY.length));
      await sb.writeFile(`${sb.repoPath}/data/text.txt`, 'naïve\r\nline\n');
      assert.equal(await sb.readFile('data/text.txt'), 'naïve\r\nline\n');
      await assert.rejects(sb.readFile('no/such/file'), /no\/such\/file/);
    });

    test('copies files and directories in and out, binary-safe', async () => {
      const src = join(hostDir, 'src');
      mkdirSync(join(src, 'nested'), { recursive: true });
      writeFileSync(join(src, 'nested', 'b.bin'), BINARY);
      writeFileSync(join(src, 'top.txt'), 'top\n');
      await sb.copyIn(src, `${sb.repoPath}/incoming`);
      assert.equal((await sb.exec('cat incoming/top.txt; wc -c < incoming/nested/b.bin')).output, eol(`top\n${BINARY.length}\n`));
      await sb.copyOut(`${sb.repoPath}/incoming`, join(hostDir, 'out'));
      assert.deepEqual(readFileSync(join(hostDir, 'out', 'nested', 'b.bin')), BINARY);
      await sb.copyOut(`${sb.repoPath}/ledger/money.py`, join(hostDir, 'money.py'));
      assert.equal(readFileSync(join(hostDir, 'money.py'), 'utf8'), readFileSync(join(repo.dir, 'ledger/money.py'), 'utf8'));
    });

    test('reset brings back the working tree and the index of a snapshot', async () => {
      await sb.exec('git add -A && git -c user.name=t -c user.email=t@t commit -qm base');
      await sb.exec('echo staged >> README.md && git add README.md && echo untracked > notes.txt');
      const id = await sb.snapshot();
      const state = `git -C ${sb.repoPath} status --porcelain; md5sum ${sb.repoPath}/README.md`;
      const before = (await sb.exec(state)).output;
      await sb.exec('cd ledger && rm -rf ../tests money.py && echo junk > ../junk.txt && git add -A');
      const r = await sb.exec('git status --porcelain');
      assert.match(r.output, /tests\/test_money\.py/);
      await sb.reset(id);
      assert.equal((await sb.exec(state)).output, before);
      assert.equal((await sb.exec('pwd')).output, eol(`${sb.repoPath}/ledger\n`));
      await sb.exec(`cd ${sb.repoPath}`);
      await assert.rejects(sb.reset('snapshot-999'), /unknown snapshot/);
    });

    test('starts from a tar of a repository in place of a folder: files, modes, symlinks and git state as they were tarred', async () => {
      await sb.exec('echo changed >> README.md && git add README.md && echo untracked > notes.txt && chmod 750 ledger && ln -sfn ledger/money.py link.py');
      const state = 'git status --porcelain; stat -c "%a %F %n" ledger link.py; readlink link.py; md5sum README.md notes.txt';
      const before = (await sb.exec(state)).output;
      await sb.exec('tar -C . -cf /tmp/repo.tar .');
      await sb.copyOut('/tmp/repo.tar', join(hostDir, 'repo.tar'));
      const fromTar = await kind.create({ repoTar: Promise.resolve(join(hostDir, 'repo.tar')), repoPath: '/testbed' });
      try {
        assert.equal((await fromTar.exec(state)).output, before);
        assert.match(before, /^M {2}README\.md$/m);
      } finally {
        await fromTar.dispose();
      }
    });

    test('a repository tar that could not be made: the sandbox does not start, and says why', async () => {
      const session = `tar-test-${RUN}`;
      await assert.rejects(
        kind.create({ repoTar: Promise.reject(new Error('the snapshot went away')), repoPath: '/testbed', labels: { [SESSION_LABEL]: session } }),
        /the snapshot went away/,
      );
      if (kind.name.startsWith('docker')) assert.deepEqual(await containersOfSession(testDocker(), session), []);
    });

    test('spawn runs a process with its own stdin, stdout and stderr', async () => {
      const p = await sb.spawn(['sh', '-c', 'tr a-z A-Z; echo; echo "warn $X" >&2; exit 5'], { env: { X: '1' } });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      p.stdout.on('data', (c: Buffer) => out.push(c));
      p.stderr.on('data', (c: Buffer) => err.push(c));
      p.stdin.end('hello lsp');
      assert.equal(await p.exited, 5);
      assert.equal(Buffer.concat(out).toString(), 'HELLO LSP\n');
      assert.equal(Buffer.concat(err).toString(), 'warn 1\n');
    });
  });
}

describe('local sandbox only', () => {
  test('dispose removes the temporary copy and is safe to call twice', async () => {
    const sb = await LocalSandbox.create({ image: 'unused', repoPath: '/testbed' } satisfies SandboxOptions);
    assert.equal((await sb.exec('pwd')).output, `${sb.repoPath}\n`);
    await sb.dispose();
    await sb.dispose();
    assert.throws(() => readFileSync(sb.id), /ENOENT/);
  });

  test('aborting the sandbox signal stops the running command and removes the copy', async () => {
    const controller = new AbortController();
    const sb = await LocalSandbox.create({ image: 'unused', repoPath: '/testbed', signal: controller.signal });
    const running = sb.exec('sleep 600');
    setTimeout(() => controller.abort(), 200);
    await assert.rejects(running, CancelledError);
    await sb.dispose();
    assert.throws(() => readFileSync(sb.id), /ENOENT/);
    await assert.rejects(sb.exec('true'), /disposed/);
  });
});
