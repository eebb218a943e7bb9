import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
// The lsp bundle registers itself with SWE-agent's bundles when its module loads, as the family loads it.
import '../../../extension/core/scaffolds/swe-agent/tools/lspTools';
import { standardTools } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

describe('the lsp tool bundle', () => {
  const tools = standardTools.toolSet(['lsp']);

  test('is registered with its five tools beside bash', () => {
    assert.deepEqual([...tools.tools.keys()].sort(), ['bash', 'document_symbols', 'find_references', 'goto_definition', 'hover', 'workspace_symbols']);
  });

  test('reads commands as an agent writes them, the line as a number', () => {
    assert.deepEqual(tools.parseCommand('goto_definition ledger/journal.py 8 sum_money'), {
      tool: 'goto_definition',
      args: { path: 'ledger/journal.py', line: 8, symbol: 'sum_money' },
    });
    assert.deepEqual(tools.parseCommand('workspace_symbols Journal'), { tool: 'workspace_symbols', args: { query: 'Journal' } });
  });

  test('checks function-call arguments against the schema', () => {
    assert.deepEqual(tools.parseFunctionCall('find_references', '{"path":"a.py","line":3,"symbol":"x"}'), {
      tool: 'find_references',
      args: { path: 'a.py', line: 3, symbol: 'x' },
    });
    assert.deepEqual(tools.parseFunctionCall('hover', '{"path":"a.py","symbol":"x"}'), { error: 'Required argument(s) missing: line' });
  });

  test('offers OpenAI function specs with the three required arguments', () => {
    const [spec] = tools.openAiToolSpecs(['goto_definition']);
    assert.equal(spec?.function.name, 'goto_definition');
    assert.deepEqual(spec?.function.parameters.required, ['path', 'line', 'symbol']);
    assert.deepEqual(spec?.function.parameters.properties && Object.keys(spec.function.parameters.properties), ['path', 'line', 'symbol']);
  });
});
