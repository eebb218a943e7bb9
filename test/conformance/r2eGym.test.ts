/**
 * R2E-Gym conformance: the same actions through R2E-Gym's own code (its tools, `Action`,
 * `DockerRuntime.run` and `Observation`, run from ../shared/oracles/r2e-gym) and through ours
 * (core/scaffolds/r2e-gym), each in its own container of the same image with the same generated
 * repository, compared byte for byte, call by call.
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../extension/core/aci/aciSession';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { r2eGymFamily } from '../../extension/core/scaffolds/r2e-gym';
import { ensureR2eTestImage, installOracleTools, missingOracles, oracleSteps, writeGeneratedRepo } from './r2eOracle';

const LABELS = { 'swe-workbench.test': 'r2e-conformance' };

/** An action as R2E-Gym records it (values may carry the whitespace a model writes around them). */
function call(name: string, params: Record<string, string> = {}): string {
  return `<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `  <parameter=${k}>${v}</parameter>\n`)
    .join('')}</function>`;
}
const editor = (params: Record<string, string>) => call('file_editor', params);
const bash = (cmd: string) => call('execute_bash', { cmd });
const search = (params: Record<string, string>) => call('search', params);

const T = '/testbed';
const CALLS: string[] = [
  // view: folders, small and long modules, the condensed view, ranges, refusals
  editor({ command: 'view', path: T }),
  editor({ command: 'view', path: `${T}/inventory` }),
  editor({ command: 'view', path: `${T}/inventory/` }),
  editor({ command: 'view', path: `${T}/inventory/small.py` }),
  editor({ command: 'view', path: `${T}/inventory/items.py` }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, concise: 'True' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, concise: 'true' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, concise: 'False' }),
  editor({ command: 'view', path: `${T}/inventory/small.py`, concise: 'True' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[1, 20]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[100, -1]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[5,5]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '(3 9)' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[0, 5]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[10, 5]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[1, 9999]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[1]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[a, b]' }),
  editor({ command: 'view', path: `${T}/inventory/items.py`, view_range: '[2, 30]', concise: 'True' }),
  editor({ command: 'view', path: `${T}/inventory/small.py`, view_range: '[2, -1]' }),
  editor({ command: 'view', path: `${T}/inventory/tabs.py` }),
  editor({ command: 'view', path: `${T}/inventory/crlf.py` }),
  editor({ command: 'view', path: `${T}/inventory/lone_cr.py` }),
  // edits of files with \r line ends, and the bytes each leaves
  editor({ command: 'str_replace', path: `${T}/inventory/crlf.py`, old_str: 'first = 1\nsecond', new_str: 'first = 10\nsecond' }),
  bash('od -An -c inventory/crlf.py'),
  editor({ command: 'undo_edit', path: `${T}/inventory/crlf.py` }),
  bash('od -An -c inventory/crlf.py'),
  editor({ command: 'insert', path: `${T}/inventory/crlf.py`, insert_line: '1', new_str: 'middle = 1.5' }),
  bash('od -An -c inventory/crlf.py'),
  editor({ command: 'str_replace', path: `${T}/inventory/lone_cr.py`, old_str: 'two = 2', new_str: 'two = 22' }),
  bash('od -An -c inventory/lone_cr.py'),
  editor({ command: 'view', path: `${T}/inventory/latin1.py` }),
  editor({ command: 'view', path: `${T}/inventory/unicode.py` }),
  editor({ command: 'view', path: `${T}/inventory/empty.py` }),
  editor({ command: 'view', path: `${T}/inventory/broken.py` }),
  editor({ command: 'view', path: `${T}/inventory/broken.py`, view_range: '[1, 3]' }),
  editor({ command: 'view', path: `${T}/README.md` }),
  editor({ command: 'view', path: `${T}/notes.txt`, view_range: '[1, 1]' }),
  editor({ command: 'view', path: `${T}/missing.py` }),
  editor({ command: 'view', path: `${T}/.hidden/secret.py` }),
  editor({ command: 'view', path: 'inventory/small.py' }),
  editor({ command: 'view', path: `  ${T}/inventory/small.py  ` }),
  // create
  editor({ command: 'create', path: `${T}/inventory/new.py`, file_text: '\ndef new():\n    return "new"\n' }),
  editor({ command: 'view', path: `${T}/inventory/new.py` }),
  editor({ command: 'create', path: `${T}/inventory/new.py`, file_text: 'again' }),
  editor({ command: 'create', path: `${T}/inventory/tabbed_new.py`, file_text: 'def f():\n\treturn 1' }),
  editor({ command: 'create', path: `${T}/inventory/nofile.py` }),
  editor({ command: 'create', path: `${T}/nowhere/deep/file.py`, file_text: 'x = 1' }),
  editor({ command: 'create', path: `${T}/inventory`, file_text: 'x = 1' }),
  editor({ command: 'create', path: `${T}/data.json`, file_text: '{"a": 1}' }),
  editor({ command: 'create', path: `${T}/inventory/lint_bad.py`, file_text: 'def bad(:\n    pass', enable_linting: 'True' }),
  editor({ command: 'create', path: `${T}/inventory/lint_ok.py`, file_text: 'def ok():\n    pass', enable_linting: 'True' }),
  editor({ command: 'create', path: `${T}/inventory/lint_false.py`, file_text: 'def bad(:\n    pass', enable_linting: 'False' }),
  editor({ command: 'create', path: `${T}/inventory/unicode_new.py`, file_text: 'S = "ünïcödé ✓ 日本"' }),
  // str_replace and undo
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, old_str: 'return a + b', new_str: 'return a + b + 0' }),
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, old_str: 'not there', new_str: 'x' }),
  editor({ command: 'str_replace', path: `${T}/inventory/items.py`, old_str: 'total += 1', new_str: 'total += 2' }),
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, old_str: 'TOTAL = add(1, 2)' }),
  editor({ command: 'str_replace', path: `${T}/inventory/small.py`, new_str: 'x' }),
  editor({
    command: 'str_replace',
    path: `${T}/inventory/items.py`,
    old_str: '    def method_3(self, value):\n        total = value + 3',
    new_str: '    def method_3(self, value):\n        # three\n        total = value + 3',
  }),
  editor({ command: 'str_replace', path: `${T}/inventory/items.py`, old_str: 'import json', new_str: 'import json(', enable_linting: 'True' }),
  editor({ command: 'str_replace', path: `${T}/inventory/tabs.py`, old_str: 'return "tab"', new_str: 'return "tabs"\n\t\t# done' }),
  editor({ command: 'str_replace', path: `${T}/inventory`, old_str: 'a', new_str: 'b' }),
  editor({ command: 'str_replace', path: `${T}/inventory/missing.py`, old_str: 'a', new_str: 'b' }),
  editor({ command: 'undo_edit', path: `${T}/inventory/tabs.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/tabs.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/items.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/small.py` }),
  editor({ command: 'undo_edit', path: `${T}/inventory/new.py` }),
  editor({ command: 'view', path: `${T}/inventory/new.py` }),
  editor({ command: 'undo_edit', path: `${T}/README.md` }),
  // insert
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: '0', new_str: '"""Small."""' }),
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: '3', new_str: '    # inside\n    pass' }),
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: '99', new_str: 'x' }),
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: '-1', new_str: 'x' }),
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: '2' }),
  editor({ command: 'insert', path: `${T}/inventory/small.py`, insert_line: 'two', new_str: 'x' }),
  editor({ command: 'insert', path: `${T}/inventory/items.py`, insert_line: '1', new_str: 'def (', enable_linting: 'yes' }),
  editor({ command: 'insert', path: `${T}/notes.txt`, insert_line: '1', new_str: 'and fridays' }),
  editor({ command: 'undo_edit', path: `${T}/inventory/small.py` }),
  // commands and parameters the tool does not know
  editor({ command: 'delete', path: `${T}/inventory/small.py` }),
  editor({ command: 'view', path: `${T}/inventory/small.py`, color: 'red' }),
  editor({ path: `${T}/inventory/small.py` }),
  // execute_bash
  bash('ls'),
  bash('grep -c caf inventory/latin1.py'),
  bash('ls -la inventory | wc -l'),
  bash('echo hello; echo oops >&2'),
  bash('exit 3'),
  bash('false'),
  bash('cd inventory'),
  bash('  pip install requests'),
  bash('ipython'),
  bash('nohup true'),
  bash('jupyter notebook'),
  bash('seq 1 200'),
  bash('seq 1 80'),
  bash('seq 1 81'),
  bash('printf "\\033[31mred\\033[0m and plain\\n"'),
  bash('printf "\\033[31mred\\033[0m then fail\\n"; exit 1'),
  bash('printf "a\\rb\\r\\n"'),
  bash('python3 -c "print(\'caf\\u00e9\')"'),
  bash('git status --short'),
  bash('echo "quoted \'single\' and \\"double\\""'),
  bash('for i in 1 2 3; do echo line $i; done'),
  bash('echo $PATH'),
  bash('pwd'),
  bash('printf "no newline"'),
  call('execute_bash', { command: 'ls' }),
  call('execute_bash', { cmd: 'ls', extra: '1' }),
  // search
  search({ search_term: 'def ', path: `${T}/inventory` }),
  search({ search_term: 'widget' }),
  search({ search_term: 'widget', path: T }),
  search({ search_term: 'WIDGET_7', path: `${T}/generated` }),
  search({ search_term: 'no such text anywhere' }),
  search({ search_term: 'return', path: `${T}/inventory/small.py` }),
  search({ search_term: 'nothing', path: `${T}/inventory/small.py` }),
  search({ search_term: 'restock', path: `${T}/notes.txt` }),
  search({ search_term: 'restock', path: T }),
  search({ search_term: 'restock', path: T, python_only: 'False' }),
  search({ search_term: 'x', path: `${T}/missing_dir` }),
  search({ search_term: '[unclosed', path: `${T}/inventory/small.py` }),
  search({ search_term: 'café', path: `${T}/inventory` }),
  search({ search_term: 'SECRET', path: T }),
  search({ path: T }),
  search({ search_term: '-n', path: `${T}/inventory/small.py` }),
  // Left out: calls that end in a Python traceback naming the script's own file and lines, which
  // differ between their program and ours: execute_bash with an empty command or with output that
  // is not UTF-8 (`cat` of a Latin-1 file), file_editor without a path.
  // finish
  call('finish', { command: 'submit' }),
  call('finish', { command: 'submit', result: 'done' }),
  call('finish'),
];

const skip = missingOracles();

describe('R2E-Gym conformance: our tools against R2E-Gym 69bc953', () => {
  let hostDir: string;
  let ours: AciSession;
  let theirs: Sandbox;
  let oursSandbox: Sandbox;
  const scaffold = r2eGymFamily.create(r2eGymFamily.versions[0]!);

  before(async () => {
    if (skip) return;
    const image = await ensureR2eTestImage();
    hostDir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-r2e-conf-'));
    await writeGeneratedRepo(hostDir);
    const options = { image, repoDir: hostDir, repoPath: '/testbed', labels: LABELS, limits: { commandTimeoutMs: 120_000 } };
    [oursSandbox, theirs] = await Promise.all([DockerSandbox.create(options), DockerSandbox.create(options)]);
    await scaffold.prepare!(oursSandbox);
    ours = new AciSession(oursSandbox, { tools: scaffold.tools, present: scaffold.present! });
    await installOracleTools(theirs.id);
  });

  after(async () => {
    if (skip) return;
    await Promise.allSettled([oursSandbox?.dispose(), theirs?.dispose()]);
    if (hostDir) await rm(hostDir, { recursive: true, force: true });
  });

  test(`${CALLS.length} calls print what R2E-Gym prints, byte for byte`, { skip }, async () => {
    assert.ok(CALLS.length >= 100, `only ${CALLS.length} calls`);
    const expected = (await oracleSteps(theirs.id, CALLS)).map((s) => s.observation);
    const mismatches: string[] = [];
    for (const [i, text] of CALLS.entries()) {
      const parsed = scaffold.tools.parseXmlFunctionCall(text);
      assert.ok(!('error' in parsed), `call ${i} was not read: ${JSON.stringify(parsed)}`);
      const result = await ours.run(parsed);
      if (result.observation !== expected[i]) {
        mismatches.push(`call ${i}: ${text}\n--- R2E-Gym\n${JSON.stringify(expected[i])}\n--- ours\n${JSON.stringify(result.observation)}`);
      }
    }
    assert.deepEqual(mismatches, [], `${mismatches.length} of ${CALLS.length} calls differ:\n\n${mismatches.join('\n\n')}`);
  });

  test('the repository ends in the same state in both containers', { skip }, async () => {
    const state = async (s: Sandbox) => (await s.exec('git add -A && git diff --cached && cat /var/tmp/editor_state.json', { cwd: '/testbed' })).output;
    assert.equal(await state(oursSandbox), await state(theirs));
  });
});
