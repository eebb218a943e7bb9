import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

/** The function-calling specs of the default bundles' tools (all of them without `toolNames`). */
const openAiToolSpecs = (toolNames?: readonly string[]) => toolSetFor().openAiToolSpecs(toolNames);
import { defineTool } from '../../../extension/core/aci/toolDefinition';
import { ToolRegistry } from '../../../extension/core/scaffolds/swe-agent/tools/sweAgentToolSet';
import { extractXmlFunctionCalls } from '../../../extension/core/parsing/xmlFunctionCall';

const tools = toolSetFor();

describe('openAiToolSpecs', () => {
  test('one function entry per tool with a JSON Schema of its arguments', () => {
    const [open] = openAiToolSpecs(['open']);
    assert.deepEqual(open, {
      type: 'function',
      function: {
        name: 'open',
        description: 'opens the file at the given path in the editor. If line_number is provided, the window will be move to include that line',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'the path to the file to open' },
            line_number: {
              type: 'integer',
              description: 'the line number to move the window to (if not provided, the window will start at the top of the file)',
            },
          },
          required: ['path'],
          additionalProperties: false,
        },
      },
    });
  });

  test('the default set lists bash first and every bundle tool once', () => {
    const names = openAiToolSpecs().map((s) => s.function.name);
    assert.deepEqual(names, [
      'bash',
      'open',
      'goto',
      'scroll_up',
      'scroll_down',
      'create',
      'edit',
      'find_file',
      'search_dir',
      'search_file',
      'str_replace_editor',
      'submit',
    ]);
  });

  test('str_replace_editor: the command enum, the list-typed view_range, only command and path required', () => {
    const [spec] = openAiToolSpecs(['str_replace_editor']);
    const parameters = spec?.function.parameters as { properties: Record<string, { type?: string; enum?: string[]; items?: unknown }>; required: string[] };
    assert.deepEqual(parameters.properties.command?.enum, ['view', 'create', 'str_replace', 'insert', 'undo_edit']);
    assert.deepEqual(parameters.properties.view_range?.items, { type: 'integer' });
    assert.deepEqual(parameters.required, ['command', 'path']);
  });

  test('asking for a tool outside the set names the bundles', () => {
    assert.throws(() => toolSetFor(['tools/search']).openAiToolSpecs(['open']), /no tool 'open' in bundles search/);
  });
});

describe('function-call arguments', () => {
  test('valid JSON arguments', () => {
    assert.deepEqual(tools.parseFunctionCall('goto', '{"line_number": 40}'), { tool: 'goto', args: { line_number: 40 } });
    assert.deepEqual(tools.parseFunctionCall('scroll_up', ''), { tool: 'scroll_up', args: {} });
  });

  test('malformed calls get SWE-agent function-calling messages', () => {
    assert.deepEqual(tools.parseFunctionCall('goto', '{"line_number": 4'), { error: 'Tool call arguments are not valid JSON.' });
    assert.deepEqual(tools.parseFunctionCall('goto', '[4]'), { error: 'Tool call arguments are not valid JSON.' });
    assert.deepEqual(tools.parseFunctionCall('goto', '{}'), { error: 'Required argument(s) missing: line_number' });
    assert.deepEqual(tools.parseFunctionCall('goto', '{"line_number": 4, "col": 1}'), { error: 'Unexpected argument(s): col' });
    assert.deepEqual(tools.parseFunctionCall('vim', '{}'), { error: "Command 'vim' not found in list of available commands." });
    assert.deepEqual(tools.parseFunctionCall('goto', '{"line_number": "four"}'), {
      error: "Invalid arguments for goto: argument 'line_number': Invalid input: expected number, received string",
    });
  });
});

describe('XML function calls', () => {
  test('parameters keep inner indentation; one newline each side is layout; numbers and lists are typed', () => {
    const text = [
      'I will fix the return.',
      '<function=str_replace_editor>',
      '<parameter=command>insert</parameter>',
      '<parameter=path>/repo/a.py</parameter>',
      '<parameter=insert_line>3</parameter>',
      '<parameter=new_str>',
      '    return x',
      '</parameter>',
      '</function>',
    ].join('\n');
    assert.deepEqual(tools.parseXmlFunctionCall(text), {
      tool: 'str_replace_editor',
      args: { command: 'insert', path: '/repo/a.py', insert_line: 3, new_str: '    return x' },
    });
    assert.deepEqual(
      tools.parseXmlFunctionCall(
        '<function=str_replace_editor><parameter=command>view</parameter><parameter=path>/r</parameter><parameter=view_range>[2, 9]</parameter></function>',
      ),
      {
        tool: 'str_replace_editor',
        args: { command: 'view', path: '/r', view_range: [2, 9] },
      },
    );
  });

  test('none, two, or an unknown function are errors', () => {
    assert.deepEqual(tools.parseXmlFunctionCall('just thinking'), {
      error: 'Expected exactly one function call in model response - received 0 function calls.',
    });
    const two = '<function=scroll_up></function><function=scroll_down></function>';
    assert.equal(extractXmlFunctionCalls(two).length, 2);
    assert.deepEqual(tools.parseXmlFunctionCall(two), { error: 'Expected exactly one function call in model response - received 2 function calls.' });
    assert.deepEqual(tools.parseXmlFunctionCall('<function=rm><parameter=x>1</parameter></function>'), {
      error: "Command 'rm' not found in list of available commands.",
    });
  });
});

describe('ToolRegistry', () => {
  const lookup = defineTool({
    name: 'goto_definition',
    bundle: 'lsp',
    description: 'jumps to a definition',
    signature: 'goto_definition <path> <line> <column>',
    parameters: z.object({ path: z.string(), line: z.number().int(), column: z.number().int() }),
    run: async () => ({ observation: '', exitCode: 0 }),
  });

  test('a family registered from elsewhere becomes a selectable bundle with a parser', () => {
    const registry = new ToolRegistry().register(lookup);
    const set = registry.toolSet(['lsp']);
    assert.deepEqual(set.parseCommand('goto_definition src/a.py 12 5'), { tool: 'goto_definition', args: { path: 'src/a.py', line: 12, column: 5 } });
  });

  test('registering a tool twice in one bundle is an error', () => {
    assert.throws(() => new ToolRegistry().register(lookup, lookup), /tool 'goto_definition' of bundle 'lsp' is already registered/);
  });
});
