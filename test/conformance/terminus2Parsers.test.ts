/**
 * Terminus-2's reply parsers against Harbor's own (../shared/oracles/harbor, run by
 * terminus2ParserDriver.py): the same replies, well formed and not, through both, and every field
 * compared (commands with their durations, completion, error, warnings, analysis, plan). Harbor
 * lists some warnings from a Python set, whose order changes from run to run, so each reply here
 * has at most one of those (one missing section, one unknown tag or field).
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe } from 'node:test';
import { parseTerminusReply, type TerminusParse, type TerminusReplyFormat } from '../../extension/core/scaffolds/terminus-2/replyParsers';
import { needsShared } from '../helpers/sharedFolder';

const oracles = needsShared('oracles');
const DRIVER = path.join(__dirname, 'terminus2ParserDriver.py');

const json = (o: unknown) => JSON.stringify(o, null, 2);
const cmd = (keystrokes: string, duration?: unknown) => (duration === undefined ? { keystrokes } : { keystrokes, duration });

const JSON_REPLIES: string[] = [
  json({ analysis: 'Empty dir.', plan: 'List it.', commands: [cmd('ls -la\n', 0.1)], task_complete: false }),
  json({ analysis: 'a', plan: 'p', commands: [cmd('cd x\n', 0.1), cmd('make', 2), cmd('C-c', 1)] }),
  json({ analysis: 'a', plan: 'p', commands: [], task_complete: true }),
  json({ analysis: 'a', plan: 'p', commands: [], task_complete: 'Yes' }),
  json({ analysis: 'a', plan: 'p', commands: [], task_complete: 1 }),
  json({ analysis: 'a', plan: 'p', commands: [cmd('ls\n')], task_complete: 'no' }),
  json({ analysis: 'a', plan: 'p', commands: [cmd('ls\n', '0.5')] }),
  json({ analysis: 'a', plan: 'p', commands: [cmd('ls\n', true)] }),
  json({ analysis: 'a', plan: 'p', commands: [{ keystrokes: 'ls\n', duration: 1, wait: 3 }] }),
  json({ analysis: 'a', plan: 'p', commands: [{ duration: 1 }] }),
  json({ analysis: 'a', plan: 'p', commands: [{ duration: 1 }], task_complete: true }),
  json({ analysis: 'a', plan: 'p', commands: [{ keystrokes: 5 }] }),
  json({ analysis: 'a', plan: 'p', commands: ['ls'] }),
  json({ analysis: 'a', plan: 'p', commands: 'ls' }),
  json({ analysis: 'a', commands: [] }),
  json({ analysis: 7, plan: ['x'], commands: [], task_complete: 3.5 }),
  json({ commands: [cmd('ls\n', 0.1)], plan: 'p', analysis: 'a' }),
  `Sure! Here is my answer:\n${json({ analysis: 'a', plan: 'p', commands: [cmd('pwd\n', 0.1)] })}\nHope that helps.`,
  '```json\n' + json({ analysis: 'a', plan: 'p', commands: [cmd('echo "{braces}" \\\\ done\n', 0.1)] }) + '\n```',
  '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 0.1}]',
  '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 0.1}',
  '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 0.1},]}',
  '{"analysis": "a", "plan": "p" "commands": []}',
  "{'analysis': 'a', 'plan': 'p', 'commands': []}",
  '{"analysis": "tab\there", "plan": "p", "commands": []}',
  '{"analysis": "bad \\q escape", "plan": "p", "commands": []}',
  '{"analysis": "a", "plan": "p", "commands": [], "task_complete": tru}',
  '{"analysis": "a", "plan": "p", "commands": [], "x": NaN}',
  `{"analysis": "${'long '.repeat(60)}", "plan": "p", "commands": [}`,
  'I think we are done here.',
  '',
  'prefix {"a": 1} then {"analysis": "a", "plan": "p", "commands": []} and more',
  json({ analysis: 'héllo ✓ 🚀', plan: 'it\'s "quoted"', commands: [cmd('echo 🚀\n', 0.1)] }),
];

const XML_REPLIES: string[] = [
  '<response>\n<analysis>\nEmpty.\n</analysis>\n<plan>\nList.\n</plan>\n<commands>\n<keystrokes duration="0.1">ls -la\n</keystrokes>\n</commands>\n</response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="1.0">make</keystrokes><keystrokes duration="0.5">C-c</keystrokes></commands><task_complete>true</task_complete></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands></commands></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands/><task_complete>TRUE</task_complete></response>',
  '<response><analysis>a</analysis><plan>p</plan><task_complete> true </task_complete></response>',
  '<response><analysis>a</analysis><plan>p</plan></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes>ls\n</keystrokes></commands></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration=0.1>ls\n</keystrokes></commands></response>',
  "<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration='2'>ls\n</keystrokes></commands></response>",
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="soon">ls\n</keystrokes></commands></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="1e1" wait="2">ls\n</keystrokes></commands></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="0.1">cat a &amp;&amp; b &lt; c\\r\\n</keystrokes></commands></response>',
  '<response><plan>p</plan><analysis>a</analysis><commands><keystrokes duration="0.1">ls\n</keystrokes></commands><notes>x</notes></response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="0.1">ls\n</keystrokes></commands><commands><keystrokes duration="0.1">pwd\n</keystrokes></commands></response>',
  'Text before\n<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="0.1">ls\n</keystrokes></commands></response>\nafter <response>',
  '<response><analysis>a</analysis><plan>p</plan><commands><keystrokes duration="0.1">ls\n</keystrokes></commands>',
  'no tags at all',
  '<response><analysis>a</analysis><commands><keystrokes duration="0.1">echo <b>x</b> "q" \'s\'\n</keystrokes></commands></response>',
];

function harbor(request: { json: string[]; xml: string[] }): Promise<{ json: TerminusParse[]; xml: TerminusParse[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'python3',
      [DRIVER, oracles.path('harbor/src')],
      { env: { ...process.env, PYTHONHASHSEED: '0' }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`terminus2ParserDriver.py failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout))),
    );
    child.stdin!.end(JSON.stringify(request));
  });
}

describe("Terminus-2's reply parsers against Harbor's", () => {
  oracles.test('JSON and XML replies read alike, field by field', async () => {
    const expected = await harbor({ json: JSON_REPLIES, xml: XML_REPLIES });
    const check = (kind: TerminusReplyFormat, replies: string[]) =>
      replies.forEach((reply, i) =>
        assert.deepEqual(parseTerminusReply(kind, reply), expected[kind][i], `${kind} reply ${i + 1}: ${JSON.stringify(reply).slice(0, 120)}`),
      );
    check('json', JSON_REPLIES);
    check('xml', XML_REPLIES);
    // The corpus reaches every outcome: commands read, errors, warnings and auto-corrections.
    const all = [...expected.json, ...expected.xml];
    assert.ok(all.some((r) => r.error !== '') && all.some((r) => r.commands.length > 1) && all.some((r) => r.warning.includes('AUTO-CORRECTED')));
  });
});
