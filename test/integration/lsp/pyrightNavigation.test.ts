import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AciSession } from '../../../extension/core/aci/aciSession';
// The lsp bundle registers itself with SWE-agent's bundles when its module loads.
import '../../../extension/core/scaffolds/swe-agent/tools/lspTools';
import { disposePyright, pyrightFolder, pyrightFor, pyrightMounts } from '../../../extension/core/aci/lspServer';
import { CancelledError } from '../../../extension/core/errors';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { listTreeFiles, sampleRepoTree } from '../../helpers/sampleRepo';
import { countLangservers, LSP_TEST_LABEL, leftoverContainers, startLspSandbox } from './lspSandbox';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

/** 1-based line of the first line of a fixture file that starts with `prefix` (after indentation). */
async function lineOf(file: string, prefix: string): Promise<number> {
  const lines = (await readFile(path.join(sampleRepoTree, file), 'utf8')).split('\n');
  const index = lines.findIndex((l) => l.trimStart().startsWith(prefix));
  assert.ok(index >= 0, `${file} has no line starting with ${prefix}`);
  return index + 1;
}

describe('Pyright navigation tools in a container of the base image', () => {
  let sandbox: Sandbox;
  let aci: AciSession;
  const run = (command: string) => aci.runCommand(command);

  before(async () => {
    sandbox = await startLspSandbox({ mounts: pyrightMounts() });
    aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
  });
  after(async () => {
    await disposePyright(sandbox);
    await sandbox.dispose();
  });

  test('goto_definition crosses modules and lands on the defining line', async () => {
    const importLine = await lineOf('ledger/journal.py', 'from .money import');
    const { observation, exitCode } = await run(`goto_definition ledger/journal.py ${importLine} sum_money`);
    assert.equal(exitCode, 0, observation);
    assert.deepEqual(observation.split('\n'), [
      `Definition of 'sum_money' (ledger/journal.py:${importLine}):`,
      `ledger/money.py:${await lineOf('ledger/money.py', 'def sum_money(')}: def sum_money(amounts, currency):`,
    ]);
  });

  test('goto_definition of a method called on a typed object finds the method', async () => {
    const line = await lineOf('ledger/parser.py', 'journal.add(current)');
    const { observation } = await run(`goto_definition ledger/parser.py ${line} journal.add`);
    assert.equal(
      observation.split('\n')[1],
      `ledger/journal.py:${await lineOf('ledger/journal.py', 'def add(self, transaction)')}: def add(self, transaction):`,
    );
  });

  test('find_references counts every use of Money in the repository', async () => {
    let expected = 0;
    const files = new Set<string>();
    for (const rel of (await listTreeFiles(sampleRepoTree)).filter((f) => f.endsWith('.py'))) {
      const uses = (await readFile(path.join(sampleRepoTree, rel), 'utf8')).match(/\bMoney\b/g)?.length ?? 0;
      expected += uses;
      if (uses > 0) files.add(rel);
    }
    const classLine = await lineOf('ledger/money.py', 'class Money');
    const { observation } = await run(`find_references ledger/money.py ${classLine} Money`);
    const lines = observation.split('\n');
    assert.equal(lines[0], `${expected} references to 'Money' (ledger/money.py:${classLine}) in ${files.size} files:`);
    assert.equal(lines.length, 1 + expected);
    assert.ok(lines.includes(`ledger/money.py:${classLine}: class Money:`));
  });

  test('hover shows the signature and the docstring', async () => {
    const line = await lineOf('ledger/money.py', 'def allocate(');
    const { observation } = await run(`hover ledger/money.py ${line} allocate`);
    assert.match(observation, new RegExp(`^ledger/money\\.py:${line} 'allocate':\\n\\(method\\) def allocate\\(`));
    assert.match(observation, /\) -> list\[Money\]/);
    assert.match(observation, /Split into parts proportional to `ratios` that add up to exactly this amount\./);
  });

  test('document_symbols outlines the classes, methods and functions with their lines', async () => {
    const { observation } = await run('document_symbols ledger/journal.py');
    const lines = observation.split('\n');
    for (const [prefix, entry] of [
      ['class Posting', 'class Posting'],
      ['class Journal', 'class Journal'],
      ['def close_period(', '  method close_period'],
      ['def _within(', 'function _within'],
    ] as const) {
      const line = await lineOf('ledger/journal.py', prefix);
      assert.ok(lines.includes(`${entry.startsWith('  ') ? '  ' : ''}${line}: ${entry.trim()}`), `${entry} at ${line} missing from:\n${observation}`);
    }
    assert.ok(!lines.some((l) => / variable residuals$/.test(l)), 'locals of functions are not listed');
  });

  test('workspace_symbols finds a class first', async () => {
    const { observation } = await run('workspace_symbols Journal');
    assert.equal(observation.split('\n')[1], `ledger/journal.py:${await lineOf('ledger/journal.py', 'class Journal')}: class Journal`);
  });

  test('a file that does not exist, a name not on the line, and nothing found each say so', async () => {
    assert.deepEqual(
      { ...(await run('goto_definition ledger/ledgerbook.py 3 Journal')), state: undefined },
      { observation: 'Error: File ledger/ledgerbook.py not found', exitCode: 1, state: undefined },
    );
    const wrong = await run('goto_definition ledger/journal.py 1 Journal');
    assert.equal(wrong.exitCode, 1);
    assert.equal(
      wrong.observation,
      `Error: 'Journal' does not appear on line 1: "\\"\\"\\"Transactions, the journal that orders them, and balances derived from it.\\"\\"\\"" (ledger/journal.py).`,
    );
    assert.equal((await run('workspace_symbols Xyzzy')).observation, "No symbol matching 'Xyzzy' in the workspace.");
    assert.match((await run('document_symbols README.md')).observation, /^Error: README\.md is not a Python file/);
  });

  test('an edit made through the shell is seen by the next question', async () => {
    const before = await lineOf('ledger/money.py', 'def sum_money(');
    await sandbox.exec(`sed -i '1i # one\\n# two' ledger/money.py`);
    const importLine = await lineOf('ledger/journal.py', 'from .money import');
    const { observation } = await run(`goto_definition ledger/journal.py ${importLine} sum_money`);
    assert.equal(observation.split('\n')[1], `ledger/money.py:${before + 2}: def sum_money(amounts, currency):`);
  });

  test('files created and deleted through the shell appear in and leave the symbol search', async () => {
    await sandbox.exec(`printf 'from .journal import Journal\\n\\n\\nclass Budget:\\n    pass\\n' > ledger/budget.py`);
    assert.equal((await run('workspace_symbols Budget')).observation, "1 symbol matching 'Budget':\nledger/budget.py:4: class Budget");
    await sandbox.exec('rm ledger/budget.py');
    assert.equal((await run('workspace_symbols Budget')).observation, "No symbol matching 'Budget' in the workspace.");
  });

  test('one server answers every call, and disposing it leaves no process behind', async () => {
    const first = await pyrightFor(sandbox);
    await run('workspace_symbols Chart');
    assert.equal(await pyrightFor(sandbox), first);
    assert.equal(await countLangservers(sandbox), 1);
    await disposePyright(sandbox);
    assert.equal(first.alive, false);
    assert.equal(await countLangservers(sandbox), 0);
    const restarted = await run('workspace_symbols Chart');
    assert.match(restarted.observation, /^ledger\/accounts\.py:\d+: class Chart$/m);
    assert.notEqual(await pyrightFor(sandbox), first);
  });
});

describe('Pyright when things go wrong', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startLspSandbox({ mounts: pyrightMounts() });
  });
  after(async () => {
    await disposePyright(sandbox);
    await sandbox.dispose();
  });

  test('an aborted request rejects as cancelled and the server keeps answering', async () => {
    const server = await pyrightFor(sandbox);
    const abort = new AbortController();
    const pending = server.request('workspace/symbol', { query: 'Money' }, z.unknown(), abort.signal);
    abort.abort();
    await assert.rejects(pending, CancelledError);
    const aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
    assert.match((await aci.runCommand('workspace_symbols Money')).observation, /^ledger\/money\.py:\d+: class Money$/m);
    assert.equal(await pyrightFor(sandbox), server);
  });

  test('a server that dies says so, and the next call starts a new one', async () => {
    const server = await pyrightFor(sandbox);
    await sandbox.exec("ps -eo pid,args | awk '/[l]angserver.index.js/ {print $1}' | xargs kill -9");
    assert.notEqual(await server.exited, 0);
    assert.equal(server.alive, false);
    await assert.rejects(
      server.request('workspace/symbol', { query: 'Money' }, z.unknown()),
      /^Error: Pyright exited with code \d+ before answering workspace\/symbol/,
    );
    const aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
    const line = await lineOf('ledger/accounts.py', 'class Chart');
    assert.match((await aci.runCommand(`hover ledger/accounts.py ${line} Chart`)).observation, /^class Chart\(auto_open: bool = True\)$/m);
    assert.notEqual(await pyrightFor(sandbox), server);
    assert.equal(await countLangservers(sandbox), 1);
  });
});

describe('Pyright copied into a container started without the mounts (a remote engine)', () => {
  test('it is copied in once, answers, and the container is removed after', async () => {
    const sandbox = await startLspSandbox({});
    try {
      const aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
      const line = await lineOf('ledger/reports.py', 'from .journal import Balance');
      const { observation } = await aci.runCommand(`goto_definition ledger/reports.py ${line} Balance`);
      assert.equal(observation.split('\n')[1], `ledger/journal.py:${await lineOf('ledger/journal.py', 'class Balance')}: class Balance:`);
    } finally {
      await disposePyright(sandbox);
      await sandbox.dispose();
    }
    assert.deepEqual(await leftoverContainers(LSP_TEST_LABEL), []);
  });

  test('a binary that is not a working node gives a clear error and starts nothing', async () => {
    const sandbox = await startLspSandbox({});
    try {
      await assert.rejects(
        pyrightFor(sandbox, { host: { node: '/bin/false', pyright: pyrightFolder() } }),
        /^Error: the host's node \(\/bin\/false\) cannot run in this sandbox, so Pyright cannot start: false \(GNU coreutils\)/,
      );
      assert.equal(await countLangservers(sandbox), 0);
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('Pyright in a local sandbox (no container)', () => {
  test('runs from the host, answers, and is gone after dispose', async () => {
    const sandbox = await LocalSandbox.create({ image: 'local', repoDir: sampleRepoTree, repoPath: '/repo' });
    try {
      const aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
      const line = await lineOf('ledger/parser.py', 'from .accounts import');
      const { observation } = await aci.runCommand(`goto_definition ledger/parser.py ${line} infer_type`);
      assert.equal(observation.split('\n')[1], `ledger/accounts.py:${await lineOf('ledger/accounts.py', 'def infer_type(')}: def infer_type(name):`);
      const server = await pyrightFor(sandbox);
      await disposePyright(sandbox);
      assert.equal(server.alive, false);
      assert.equal(typeof (await server.exited), 'number', 'the process has ended');
    } finally {
      await sandbox.dispose();
    }
  });
});
