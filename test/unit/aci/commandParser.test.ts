import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

/** An action in SWE-agent command syntax, read with the tools of `bundles` (the default ones without). */
const parseCommand = (text: string, bundles?: readonly string[]) => toolSetFor(bundles).parseCommand(text);

describe('parseCommand: SWE-agent command syntax', () => {
  test('a quoted path with a space and a line number', () => {
    assert.deepEqual(parseCommand('open "src/my file.py" 120'), { tool: 'open', args: { path: 'src/my file.py', line_number: 120 } });
  });

  test('an optional argument left out, and the trailing newline of a recorded action', () => {
    assert.deepEqual(parseCommand('create reproduce.py\n'), { tool: 'create', args: { filename: 'reproduce.py' } });
    assert.deepEqual(parseCommand('find_file "fields.py" src'), { tool: 'find_file', args: { file_name: 'fields.py', dir: 'src' } });
    assert.deepEqual(parseCommand("search_dir 'def _serialize'"), { tool: 'search_dir', args: { search_term: 'def _serialize' } });
    assert.deepEqual(parseCommand('scroll_down'), { tool: 'scroll_down', args: {} });
  });

  test('a multi-line edit block keeps blank lines and indentation and stops at end_of_edit', () => {
    const text = 'edit 1474:1475\n        base_unit = 1\n\n        return int(round(x))\nend_of_edit\n';
    assert.deepEqual(parseCommand(text), {
      tool: 'edit',
      args: { start_line: 1474, end_line: 1475, replacement_text: '        base_unit = 1\n\n        return int(round(x))' },
    });
  });

  test('an empty edit block deletes the lines', () => {
    assert.deepEqual(parseCommand('edit 3:4\nend_of_edit'), { tool: 'edit', args: { start_line: 3, end_line: 4, replacement_text: '' } });
  });

  test('text after end_of_edit is refused', () => {
    const result = parseCommand('edit 1:1\nx = 1\nend_of_edit\nls');
    assert.ok('error' in result && result.error.startsWith("Unexpected text after 'end_of_edit'."));
  });

  test('unknown commands and compound shell lines are bash', () => {
    assert.deepEqual(parseCommand('python reproduce.py\n'), { tool: 'bash', args: { command: 'python reproduce.py' } });
    assert.deepEqual(parseCommand('ls -F'), { tool: 'bash', args: { command: 'ls -F' } });
    assert.deepEqual(parseCommand('open a.py && ls'), { tool: 'bash', args: { command: 'open a.py && ls' } });
    assert.deepEqual(parseCommand('goto 3\ngoto 4'), { tool: 'bash', args: { command: 'goto 3\ngoto 4' } });
  });

  test('str_replace_editor flags, with a list value and a quoted multi-line string', () => {
    assert.deepEqual(parseCommand('str_replace_editor view /repo/a.py --view_range 10 -1'), {
      tool: 'str_replace_editor',
      args: { command: 'view', path: '/repo/a.py', view_range: [10, -1] },
    });
    assert.deepEqual(parseCommand('str_replace_editor str_replace /repo/a.py --old_str \'x = 1\ny = 2\' --new_str "x = \\"3\\""'), {
      tool: 'str_replace_editor',
      args: { command: 'str_replace', path: '/repo/a.py', old_str: 'x = 1\ny = 2', new_str: 'x = "3"' },
    });
  });

  test('malformed commands name the problem and the usage', () => {
    assert.deepEqual(parseCommand('goto'), { error: 'Missing argument <line_number>.\nUsage: goto <line_number>' });
    assert.deepEqual(parseCommand('open a.py 1 2'), { error: 'Too many arguments: 2\nUsage: open "<path>" [<line_number>]' });
    assert.deepEqual(parseCommand('goto abc'), {
      error: "Invalid arguments for goto: argument 'line_number': Invalid input: expected number, received string",
    });
    assert.deepEqual(parseCommand('open "a.py'), {
      error: 'Could not parse the command: unterminated double quote at offset 5\nUsage: open "<path>" [<line_number>]',
    });
    assert.deepEqual(parseCommand('edit 1-2\nx\nend_of_edit'), {
      error: "Argument '1-2' does not match <start_line>, <end_line>.\nUsage: edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit",
    });
    assert.deepEqual(parseCommand('str_replace_editor frobnicate /a'), {
      error:
        'Invalid arguments for str_replace_editor: argument \'command\': Invalid option: expected one of "view"|"create"|"str_replace"|"insert"|"undo_edit"',
    });
  });

  test('a tool outside the selected bundles is a shell command', () => {
    const anthropicOnly = toolSetFor(['tools/edit_anthropic', 'tools/submit']);
    assert.deepEqual(anthropicOnly.parseCommand('open a.py'), { tool: 'bash', args: { command: 'open a.py' } });
    assert.deepEqual(anthropicOnly.parseCommand('submit'), { tool: 'submit', args: {} });
  });

  test('review_on_submit_m replaces submit and takes --force', () => {
    const reviewed = toolSetFor(['tools/submit', 'tools/review_on_submit_m']);
    assert.deepEqual(reviewed.parseCommand('submit --force'), { tool: 'submit', args: { force: true } });
    assert.equal(reviewed.get('submit')?.bundle, 'review_on_submit_m');
  });

  test('unknown bundles are refused with the known ones listed; state-only bundles add nothing', () => {
    assert.throws(() => toolSetFor(['tools/web_browser']), /unknown tool bundle\(s\): web_browser \(known: .*windowed.*\)/);
    assert.deepEqual([...toolSetFor(['tools/registry', 'tools/search']).tools.keys()], ['bash', 'find_file', 'search_dir', 'search_file']);
    assert.deepEqual([...toolSetFor(['/root/SWE-agent/tools/defaults/']).tools.keys()].sort(), ['bash', 'create', 'goto', 'open', 'scroll_down', 'scroll_up']);
  });

  test("SWE-agent 1.0's bundle names (and 0.7's, as converted demonstrations list them) select the renamed bundles", () => {
    const old = toolSetFor(['tools/defaults', 'tools/search', 'tools/edit_linting', 'tools/submit']);
    assert.equal(old.get('edit')?.bundle, 'windowed_edit_linting');
    assert.equal(old.get('open')?.bundle, 'windowed');
    assert.equal(toolSetFor(['tools/defaults', 'tools/edit_replace']).get('insert')?.bundle, 'windowed_edit_replace');
    assert.equal(toolSetFor(['tools/defaults', 'tools/edit_rewrite']).get('edit')?.bundle, 'windowed_edit_rewrite');
    assert.equal(toolSetFor(['tools/review_on_submit']).get('submit')?.bundle, 'review_on_submit_m');
  });
});
