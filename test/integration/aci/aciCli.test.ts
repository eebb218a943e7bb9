// `swe-workbench aci` as a user runs it: JSON lines in, one JSON line out per input, in order.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { BASE_IMAGE } from '../../helpers/aciSandbox';
import { materializeSampleRepo } from '../../helpers/sampleRepo';

const repoRoot = path.resolve(__dirname, '../../..');

function startCli(repo: string, extra: string[] = []) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), 'aci', '--image', BASE_IMAGE, '--repo', repo, ...extra],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    exited,
    stderr: () => stderr,
    async next(): Promise<Record<string, unknown>> {
      const line = await lines.next();
      assert.ok(!line.done, `no more output; stderr: ${stderr}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    },
  };
}

/** The container id the CLI announced on stderr. */
function announcedContainer(stderr: string): string {
  const id = /sandbox (\S+) \(/.exec(stderr)?.[1];
  assert.ok(id, `no sandbox line in: ${stderr}`);
  return id;
}

function containerExists(id: string): boolean {
  return (
    execFileSync('docker', ['ps', '-a', '-q', '--no-trunc', '--filter', `id=${id}`])
      .toString()
      .trim() !== ''
  );
}

describe('swe-workbench aci', () => {
  const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-aci-cli-'));
  let repo: string;
  before(async () => {
    repo = (await materializeSampleRepo(path.join(host, 'repo'))).dir;
  });
  after(() => rmSync(host, { recursive: true, force: true }));

  test('answers each line in order, reports a bad line and goes on, removes the sandbox at end of input', async () => {
    const cli = startCli(repo);
    cli.child.stdin.end(
      [
        JSON.stringify({ command: 'open "ledger/money.py" 3' }),
        'not json',
        JSON.stringify({ tool: 'goto' }),
        JSON.stringify({ command: 'cd ledger && echo moved' }),
        JSON.stringify({ tool: 'str_replace_editor', args: { command: 'view', path: '/repo/ledger/errors.py', view_range: [1, 1] } }),
        JSON.stringify({ tool: 'search_file', args: { search_term: 'class Money' } }),
        JSON.stringify({ command: 'submit' }),
      ].join('\n') + '\n',
    );
    const open = await cli.next();
    assert.equal((open.observation as string).split('\n')[0], '[File: ledger/money.py (115 lines total)]');
    assert.deepEqual(open.state, { open_file: '/repo/ledger/money.py', working_dir: '/repo' });
    assert.deepEqual(await cli.next(), { error: `stdin line 2: not JSON: Unexpected token 'o', "not json" is not valid JSON`, line: 2 });
    const goto = await cli.next();
    assert.deepEqual(
      [goto.observation, goto.exitCode, goto.formatError],
      ['Required argument(s) missing: line_number', 2, 'Required argument(s) missing: line_number'],
    );
    assert.deepEqual(await cli.next(), { observation: 'moved', exitCode: 0, state: { open_file: '/repo/ledger/money.py', working_dir: '/repo/ledger' } });
    assert.equal(
      (await cli.next()).observation,
      `Here's the result of running \`cat -n\` on /repo/ledger/errors.py:\n     1\t"""Exceptions raised by the ledger package."""`,
    );
    const search = await cli.next();
    assert.match(search.observation as string, /^Found 1 matches for "class Money" in \/repo\/ledger\/money\.py:\nLine \d+:class Money:\nEnd of matches/);
    const submit = await cli.next();
    assert.deepEqual([submit.observation, submit.submission, submit.exitCode], ['\n', '', 0]);
    assert.equal(await cli.exited, 1, 'a bad input line makes the exit code 1');
    assert.equal(containerExists(announcedContainer(cli.stderr())), false);
  });

  test('Ctrl-C stops reading, removes the sandbox and exits 130', async () => {
    const cli = startCli(repo);
    cli.child.stdin.write(JSON.stringify({ command: 'echo ready' }) + '\n');
    assert.equal((await cli.next()).observation, 'ready');
    const id = announcedContainer(cli.stderr());
    assert.equal(containerExists(id), true);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exited, 130);
    assert.equal(containerExists(id), false);
  });

  test('--crlf and --bundles: pty-style line ends, and only the named bundles', async () => {
    const cli = startCli(repo, ['--crlf', '--bundles', 'tools/search']);
    cli.child.stdin.end([JSON.stringify({ command: 'echo a; echo b' }), JSON.stringify({ command: 'open ledger/money.py' })].join('\n') + '\n');
    assert.equal((await cli.next()).observation, 'a\r\nb');
    assert.equal((await cli.next()).observation, 'bash: open: command not found');
    assert.equal(await cli.exited, 0);
  });

  test('--scaffold swe-agent@V: the tools print as that version of SWE-agent did; an unmeasured one runs the nearest', async () => {
    const create = JSON.stringify({ command: 'create new_file.py' }) + '\n';
    const v101 = startCli(repo, ['--scaffold', 'swe-agent@1.0.1']);
    v101.child.stdin.end(create);
    assert.equal((await v101.next()).observation, '[File: new_file.py (1 lines total)]\n1:');
    assert.equal(await v101.exited, 0);
    // Started through the launcher, as a session is: the scaffold it chose is named.
    assert.match(v101.stderr(), /^swe-workbench aci: scaffold swe-agent@1\.0\.1 \(--scaffold swe-agent@1\.0\.1\)$/m);
    const v110 = startCli(repo, ['--scaffold', 'swe-agent@1.1.0']);
    v110.child.stdin.end(create);
    assert.equal((await v110.next()).observation, '[File: new_file.py (0 lines total)]');
    assert.equal(await v110.exited, 0);
    const unknown = startCli(repo, ['--scaffold', 'swe-agent@1.1.7']);
    unknown.child.stdin.end(create);
    assert.equal((await unknown.next()).observation, '[File: new_file.py (0 lines total)]');
    assert.equal(await unknown.exited, 0);
    assert.match(unknown.stderr(), /scaffold swe-agent@1\.1\.0 \(--scaffold swe-agent@1\.1\.7\)/);
  });

  test('--bundles lsp starts Pyright in the container for the navigation tools', async () => {
    const classes = readFileSync(path.join(repo, 'ledger/errors.py'), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/^class (\w+)/.test(line) ? [`${i + 1}: class ${/^class (\w+)/.exec(line)?.[1]}`] : []));
    const cli = startCli(repo, ['--bundles', 'windowed,lsp']);
    cli.child.stdin.end(JSON.stringify({ command: 'document_symbols ledger/errors.py' }) + '\n');
    const outline = (await cli.next()).observation as string;
    assert.match(outline, /^ledger\/errors\.py: \d+ symbols\n/);
    for (const entry of classes) assert.ok(outline.split('\n').includes(entry), `${entry} in ${outline}`);
    assert.equal(await cli.exited, 0);
    assert.equal(containerExists(announcedContainer(cli.stderr())), false);
  });

  test('usage errors: a missing option, an unknown bundle or scaffold; an unknown version falls back and says so', async () => {
    const noImage = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), 'aci', '--repo', repo], { cwd: repoRoot });
    let err = '';
    noImage.stderr.on('data', (c: Buffer) => (err += c.toString()));
    assert.equal(await new Promise((r) => noImage.on('exit', r)), 2);
    assert.match(err, /--image and --repo are required/);
    const bundles = startCli(repo, ['--bundles', 'windowed,web_browser']);
    bundles.child.stdin.end();
    assert.equal(await bundles.exited, 2);
    assert.match(bundles.stderr(), /--bundles: unknown tool bundle\(s\): web_browser/);
    const fallback = startCli(repo, ['--scaffold', 'swe-agent@9']);
    fallback.child.stdin.end();
    assert.equal(await fallback.exited, 0);
    assert.match(
      fallback.stderr(),
      /^swe-workbench aci: scaffold swe-agent@(\S+) \(--scaffold swe-agent@9\); swe-agent version 9 is not one we know \(known: .*\); using \1$/m,
    );
    for (const [extra, message] of [
      [['--scaffold', 'nope'], /--scaffold: unknown scaffold 'nope'; choose NAME or NAME@VERSION from swe-agent@/],
      [['--swe-agent-version', '1.0.1'], /--swe-agent-version/],
    ] as const) {
      const bad = startCli(repo, [...extra]);
      bad.child.stdin.end();
      assert.equal(await bad.exited, 2, extra.join(' '));
      assert.match(bad.stderr(), message);
    }
  });
});
