// OpenHands' editor on files with `\r\n` and lone `\r` line ends, in a real container: its editor
// (openhands-aci OHEditor) reads every file in Python's text mode and writes back what it read,
// so a view shows no `\r`, lines count as Python's file iteration counts them, and an edit (and
// the undo of one) leaves `\n` line ends throughout.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openHandsFamily } from '../../../extension/core/scaffolds/openhands';
import { startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';

describe("OpenHands' editor on \\r line ends", () => {
  let aci: AciFixture;
  before(async () => {
    const scaffold = openHandsFamily.create('codeact');
    aci = await startAciOnSampleRepo({ tools: scaffold.tools, config: scaffold.config, present: (r) => scaffold.present!(r) });
    await aci.sandbox.writeFile('/le/crlf.py', 'first = 1\r\nsecond = 2\r\n');
    await aci.sandbox.writeFile('/le/lone.py', 'one = 1\rtwo = 2\nthree = 3\r');
    await aci.sandbox.writeFile('/le/feed.py', 'a = 1\fb = 2\nc = 3\n');
  });
  after(() => aci?.dispose());

  const editor = (args: Record<string, unknown>) => aci.session.runTool('str_replace_editor', args);
  const bytes = async (path: string) => (await aci.sandbox.readFileBytes(path)).toString('utf8');

  test('a view shows the file without its \\r', async () => {
    const r = await editor({ command: 'view', path: '/le/crlf.py' });
    assert.equal(r.observation, "Here's the result of running `cat -n` on /le/crlf.py:\n     1\tfirst = 1\n     2\tsecond = 2\n     3\t\n");
  });

  test('a lone \\r ends a line: a range counts and shows it as Python does', async () => {
    const r = await editor({ command: 'view', path: '/le/lone.py', view_range: [2, 3] });
    assert.equal(r.observation, "Here's the result of running `cat -n` on /le/lone.py:\n     2\ttwo = 2\n     3\tthree = 3\n");
  });

  test("a range is shown as `'\\n'.join(text.splitlines())`: a form feed inside a line breaks it, the numbering does not count it", async () => {
    const r = await editor({ command: 'view', path: '/le/feed.py', view_range: [1, 1] });
    assert.equal(r.observation, "Here's the result of running `cat -n` on /le/feed.py:\n     1\ta = 1\n     2\tb = 2\n");
  });

  test('str_replace matches across a \\r\\n line end and writes the file back with \\n; undo puts back the text as read', async () => {
    const r = await editor({ command: 'str_replace', path: '/le/crlf.py', old_str: 'first = 1\nsecond', new_str: 'first = 10\nsecond' });
    assert.equal(r.exitCode, 0, r.observation);
    assert.match(r.observation, /^-first = 1\n\+first = 10$/m);
    assert.equal(await bytes('/le/crlf.py'), 'first = 10\nsecond = 2\n');
    const undone = await editor({ command: 'undo_edit', path: '/le/crlf.py' });
    assert.equal(undone.exitCode, 0, undone.observation);
    assert.equal(await bytes('/le/crlf.py'), 'first = 1\nsecond = 2\n');
  });

  test('insert counts lone \\r line ends and writes every line end as \\n', async () => {
    const r = await editor({ command: 'insert', path: '/le/lone.py', insert_line: 1, new_str: 'between = 1' });
    assert.equal(r.exitCode, 0, r.observation);
    assert.equal(await bytes('/le/lone.py'), 'one = 1\nbetween = 1\ntwo = 2\nthree = 3\n');
  });
});
