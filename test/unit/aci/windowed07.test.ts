import '../../helpers/families';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usage07 } from '../../../extension/core/scaffolds/swe-agent/tools/usage07';
import { sweAgentFamily } from '../../../extension/core/scaffolds/swe-agent';

const BUNDLES = ['tools/defaults', 'tools/search', 'tools/edit_linting'];

test("0.7 hands a command its shell function refuses to that function's usage; 1.x keeps it a format error", () => {
  const v07 = sweAgentFamily.create('0.7', undefined, { bundles: BUNDLES }).tools;
  assert.deepEqual(v07.parseCommand('goto abc'), { tool: 'shell_function_usage', args: { command: 'goto abc' } });
  assert.deepEqual(v07.parseCommand('edit 5\nx = 1\nend_of_edit'), { tool: 'shell_function_usage', args: { command: 'edit 5\nx = 1\nend_of_edit' } });
  // 0.7's open ignores a third word, so our refusal stands rather than a usage 0.7 never printed.
  assert.match((v07.parseCommand('open a.py 5 extra') as { error: string }).error, /^Too many arguments: extra/);
  assert.deepEqual(v07.parseCommand('goto 5'), { tool: 'goto', args: { line_number: 5 } });
  assert.ok('error' in sweAgentFamily.create('1.1.0', undefined, { bundles: ['tools/windowed'] }).tools.parseCommand('goto abc'));
});

test("usage07 checks in the order 0.7's functions do", () => {
  assert.equal(usage07('goto', ['1', '2'], null), 'goto allows only one line number at a time.');
  assert.equal(usage07('goto', [], null), 'No file open. Use the open command first.');
  assert.equal(usage07('goto', [], '/r/a.py'), 'Usage: goto <line>');
  assert.equal(usage07('edit', ['3:b'], '/r/a.py'), 'Usage: edit <start_line>:<end_line>\nError: end_line must be a number');
  assert.equal(usage07('search_dir', ['a', 'b', 'c'], null), 'Usage: search_dir <search_term> [<dir>]');
  assert.equal(usage07('open', ['a.py', '7'], null), undefined);
});
