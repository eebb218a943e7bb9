import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { parseR2eAction, r2eActionText, r2eArgv, r2eCommandLine, splitR2eReply } from '../../../extension/core/scaffolds/r2e-gym/action';
import { pySplitLines, pyStr, shlexQuote } from '../../../extension/core/parsing/pythonText';
import { r2eObservation } from '../../../extension/core/scaffolds/r2e-gym/runtime';
import { r2eGymFamily } from '../../../extension/core/scaffolds/r2e-gym';
import type { PolicyReply } from '../../../extension/core/policy/policyClient';

const reply = (content: string, toolCalls: PolicyReply['toolCalls'] = []): PolicyReply => ({
  model: 'm',
  content,
  toolCalls,
  finishReason: 'stop',
  sampling: {},
  retries: [],
});

describe("R2E-Gym's actions", () => {
  test('parameters are stripped, the last of a repeated one wins, and the call is recorded in its own layout', () => {
    const action = parseR2eAction(
      '<function = file_editor >\n<parameter=command>\n view \n</parameter>\n<parameter=new_str>\n    indented\n</parameter><parameter=command>create</parameter></function>',
    );
    assert.deepEqual(action, { name: 'file_editor', parameters: { command: 'create', new_str: 'indented' } });
    assert.equal(
      r2eActionText(action),
      '<function=file_editor>\n  <parameter=command>create</parameter>\n  <parameter=new_str>indented</parameter>\n</function>',
    );
  });

  test('the first call is the action and the text before it the thought', () => {
    assert.deepEqual(splitR2eReply('  Think.\n<function=a>x</function> after <function=b></function>'), {
      thought: 'Think.',
      action: '<function=a>x</function>',
    });
    assert.deepEqual(splitR2eReply('no call here '), { thought: 'no call here', action: '' });
  });

  test("function-calling arguments go on the command line as Python's str() writes them", () => {
    assert.equal(pyStr([1, -1]), '[1, -1]');
    assert.equal(pyStr(true), 'True');
    assert.equal(pyStr(null), 'None');
    assert.equal(pyStr(2.5), '2.5');
    assert.equal(pyStr(3), '3');
    assert.equal(pyStr({ a: "it's" }), `{'a': "it's"}`);
    assert.equal(
      r2eCommandLine({ name: 'file_editor', parameters: { path: '/t/a b.py', command: 'view', view_range: [1, 5], concise: true } }),
      "file_editor view --path '/t/a b.py' --view_range '[1, 5]' --concise True",
    );
    assert.equal(r2eCommandLine({ name: 'finish', parameters: { command: 'submit' } }), "echo '<<<Finished>>>'");
    assert.equal(shlexQuote("it's"), `'it'"'"'s'`);
    assert.equal(shlexQuote(''), "''");
  });

  test('execute_bash output over 80 lines keeps 40 at each end', () => {
    const output = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const text = r2eObservation('execute_bash', { output, code: '0' });
    assert.match(text, /^Exit code: 0\nExecution output of \[execute_bash\]:\nline 0\n/);
    assert.match(text, /line 39\n-{50}\n<Observation truncated in middle for saving context>\n-{50}\nline 60\n/);
    assert.ok(text.endsWith('line 99'));
    assert.equal(r2eObservation('search', { output: 'x\n', code: '0' }), 'Execution output of [search]:\nx\n');
    assert.deepEqual(pySplitLines('a\r\nb\rc\x0bd\n'), ['a', 'b', 'c', 'd']);
  });

  test('a live reply: XML call, function call, or no call at all', () => {
    const scaffold = r2eGymFamily.create(r2eGymFamily.versions[0]!);
    const xml = scaffold.parseReply(reply('Look.\n<function=search>\n<parameter=search_term>Money</parameter>\n</function>'));
    assert.deepEqual(xml.action, {
      raw: '<function=search>\n  <parameter=search_term>Money</parameter>\n</function>',
      tool: 'search',
      args: { search_term: 'Money' },
    });
    assert.equal(xml.thought, 'Look.');
    const called = scaffold.parseReply(
      reply('', [{ id: 'c1', name: 'file_editor', arguments: '{"command": "view", "path": "/testbed", "view_range": [1, 3]}' }]),
    );
    assert.deepEqual(called.action.args, { command: 'view', path: '/testbed', view_range: [1, 3] });
    const none = scaffold.parseReply(reply('Nothing to call.'));
    assert.equal(none.formatError, 'no <function=...> call in the reply');
    const unknown = scaffold.parseReply(reply('<function=rm_rf></function>'));
    assert.match(unknown.formatError ?? '', /^Invalid Action: input action must be one of allowed actions/);
  });
});

describe("the warm server's argv", () => {
  test('is what /bin/sh hands the tool for the command line a fresh process runs', () => {
    const actions = [
      { name: 'file_editor', parameters: { command: 'view', path: '/testbed/a b.py', view_range: [1, -1] } },
      { name: 'file_editor', parameters: { command: 'str_replace', path: '/x.py', old_str: 'it\'s "$HOME" `id` \\n', new_str: 'caf\u00e9 \u2713\n\tend' } },
      { name: 'file_editor', parameters: { command: 'create', path: '/y.py', file_text: '', enable_linting: true } },
      { name: 'search', parameters: { search_term: '--help', path: '.', python_only: 1.5 } },
    ];
    for (const action of actions) {
      const argv = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${r2eCommandLine(action)}`])
        .toString('utf8')
        .split('\0')
        .slice(0, -1);
      assert.deepEqual([action.name, ...r2eArgv(action)!], argv, r2eCommandLine(action));
    }
  });

  test('is undefined where the shell would read more than the words', () => {
    assert.equal(r2eArgv({ name: 'finish', parameters: {} }), undefined);
    assert.equal(r2eArgv({ name: 'search', parameters: { 'search_term;ls': 'x' } }), undefined);
    assert.equal(r2eArgv({ name: 'search', parameters: { search_term: 'a\0b' } }), undefined);
  });
});
