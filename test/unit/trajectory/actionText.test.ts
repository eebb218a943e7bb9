import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseFencedCommand, parseToolArguments, parseXmlFunctionCall, toolCallAction } from '../../../extension/core/trajectory/actionText';
import { lineCommandParser } from '../../../extension/core/scaffolds/swe-agent/lineCommand';

describe('action text', () => {
  test('an XML call keeps the first of several and the values verbatim', () => {
    const raw =
      'Thinking.\n<function=file_editor>\n<parameter=command>create</parameter>\n<parameter=file_text>\n  indented\n</parameter>\n</function>\n<function=finish></function>';
    assert.deepEqual(parseXmlFunctionCall(raw), { raw, tool: 'file_editor', args: { command: 'create', file_text: '  indented' } });
    assert.equal(parseXmlFunctionCall('no call here'), undefined);
  });

  test('tool-call arguments: valid, empty, not JSON, not an object', () => {
    assert.deepEqual(parseToolArguments('{"path": "a.py"}'), { args: { path: 'a.py' } });
    assert.deepEqual(parseToolArguments(''), { args: {} });
    assert.match((parseToolArguments('{"path": ') as { error: string }).error, /^arguments are not valid JSON/);
    assert.deepEqual(parseToolArguments('[1]'), { error: 'arguments are not a JSON object' });
  });

  test('a malformed call keeps its text and says why', () => {
    const { action, formatError } = toolCallAction('bash', '{"command": "ls', 'call_1');
    assert.deepEqual(action, { raw: '{"name":"bash","arguments":"{\\"command\\": \\"ls"}', tool: 'bash', args: {}, toolCallId: 'call_1' });
    assert.match(formatError ?? '', /^bash: arguments are not valid JSON/);
  });

  test('fenced commands: exactly one block, else a format error', () => {
    assert.deepEqual(parseFencedCommand('THOUGHT: list.\n\n```bash\nls -la\n```'), {
      action: { raw: 'ls -la', tool: 'bash', args: { command: 'ls -la' } },
      thought: 'THOUGHT: list.',
    });
    const two = parseFencedCommand('```bash\nls\n```\n```bash\npwd\n```');
    assert.equal(two.action.tool, null);
    assert.equal(two.formatError, 'expected exactly one bash code block, found 2');
  });

  test('SWE-agent command lines are read with the tools of the bundles the run used', () => {
    const read = lineCommandParser(['tools/windowed', 'tools/windowed_edit_linting']);
    assert.deepEqual(read('open "src/a b.py" 120').action.args, { path: 'src/a b.py', line_number: 120 });
    assert.deepEqual(read('edit 5:7\n    return x\nend_of_edit').action.args, { start_line: 5, end_line: 7, replacement_text: '    return x' });
    assert.deepEqual(read('grep -rn foo src | head').action, { raw: 'grep -rn foo src | head', tool: 'bash', args: { command: 'grep -rn foo src | head' } });
  });

  test('a command line the tools reject keeps its words and the reason', () => {
    const { action, formatError } = lineCommandParser(['tools/windowed'])('goto');
    assert.equal(action.tool, 'goto');
    assert.deepEqual(action.args, { argv: ['goto'] });
    assert.ok(formatError && formatError.length > 0);
  });
});
