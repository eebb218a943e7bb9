import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { startPolicyServer, type PolicyServer, type PolicyServerOptions } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { TOKEN_REPORT_FILE } from '../../../extension/core/rollouts/tokenMismatch';
import { toyChatIds, toyEncode, toyLogprob } from '../../../scripts/demo/policy/toyTokenizer';
import { command as tokens } from '../../../extension/cli/tokens';
import { runCli, runCliProcess } from '../../helpers/cliRunner';

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * An rLLM episode: the task "T"; step 1 answered "ls" with the ids the toy engine saw and its
 * logprobs, the second token's recorded 0.5 higher than the scorer gives (diff -0.5, ratio
 * e^-0.5 = 0.6065: outside [0.8, 1.25]); step 2 keeps text only.
 */
function episode(): unknown {
  const prompt = toyChatIds([{ role: 'user', content: 'T' }], true);
  const completion = toyEncode('ls');
  const logprobs = completion.map((id, i) => toyLogprob(id, prompt.length + i)! + (i === 1 ? 0.5 : 0));
  return {
    id: 'e1',
    task: { problem_statement: 'T' },
    trajectories: [
      {
        steps: [
          { prompt_ids: prompt, response_ids: completion, logprobs, thought: 'ls', observation: 'a.py' },
          { thought: 'done', observation: '' },
        ],
      },
    ],
  };
}

let server: PolicyServer | undefined;
async function serve(options: PolicyServerOptions = {}): Promise<string> {
  server = await startPolicyServer([], options);
  return server.url;
}
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('swe-workbench tokens', () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-tokens-'));
    writeFileSync(at('e1.json'), JSON.stringify(episode()));
    mkdirSync(at('run'));
    writeFileSync(at('run/a.json'), JSON.stringify(episode()));
    writeFileSync(at('run/b.json'), JSON.stringify(episode()));
    writeFileSync(at('run/c.json'), '{"not": "a trajectory"}');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--json: one line per agent step as the issue gives them, then the summary', async () => {
    const url = await serve();
    const r = await runCliProcess(['tokens', at('e1.json'), '--policy', url, '--model', 'test-policy', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const [first, second, summary] = lines(r.stdout);
    assert.equal(first!.index, 0);
    assert.equal(first!.tokens, 2);
    assert.ok(Math.abs((first!.maxAbsDiff as number) - 0.5) < 1e-9);
    assert.ok(Math.abs((first!.meanAbsDiff as number) - 0.25) < 1e-9);
    assert.equal(first!.outside, 1);
    assert.equal(first!.firstDrift, null);
    assert.equal(first!.driftUnknown, undefined);
    assert.deepEqual(
      { index: second!.index, tokens: second!.tokens, maxAbsDiff: second!.maxAbsDiff, outside: second!.outside, firstDrift: second!.firstDrift },
      { index: 1, tokens: null, maxAbsDiff: null, outside: null, firstDrift: null },
    );
    assert.equal(second!.error, 'the recording keeps no token ids: cannot re-score');
    assert.match(second!.driftUnknown as string, /drift cannot be checked: the recording keeps text only/);
    const s = summary!.summary as Record<string, unknown>;
    assert.equal(s.steps, 2);
    assert.equal(s.tokens, 2);
    assert.equal(s.outside, 1);
    assert.equal(s.errors, 1);
    assert.deepEqual(s.bounds, [0.8, 1.25]);
    // Only the token that disagrees; the recording has ids only, so its text is decoded by the server: id 115 is "s".
    assert.deepEqual(
      (s.worst as Array<{ index: number; position: number; text: string }>).map((w) => [w.index, w.position, w.text]),
      [[0, 1, 's']],
    );
  });

  test('a drifting template shows where, step numbers from 1 in the text output', async () => {
    const url = await serve({ templateDrift: 'assistant-space' });
    writeFileSync(at('e2.json'), JSON.stringify(twoTurns()));
    const r = await runCliProcess(['tokens', at('e2.json'), '--policy', url, '--bounds', '0.5,2']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^step 1: 2 token\(s\) · max \|Δ\| 0\.5000 · mean \|Δ\| 0\.2500 · 0 \(0\.0%\) outside \[0\.5, 2\]/m);
    assert.match(r.stdout, /^ {2}prompt ids: re-tokenizing gives the same$/m);
    // user "T": 1 + "user\nT" + 2 = 9 tokens; <|im_start|> at 9, "assistant\nls" at 10..21; 22 differs (the 23rd).
    assert.match(r.stdout, /^step 2: .*\n {2}drift at prompt token 23 of /m);
    assert.match(r.stdout, /drift: 1 step\(s\) differ, 0 cannot be checked, 1 the same/);
  });

  test('a server without /detokenize: the drift position is still reported, its text said unknown', async () => {
    const url = await serve({ templateDrift: 'assistant-space', noDetokenize: true });
    writeFileSync(at('e3.json'), JSON.stringify(twoTurns()));
    const r = await runCli(tokens, [at('e3.json'), '--policy', url, '--bounds', '0.5,2']);
    assert.match(r.stdout, /^step 2: .*\n {2}drift at prompt token 23 of \d+ \(re-tokenized: \d+\): the text around it cannot be decoded: .*404/m);
    assert.match(r.stdout, /drift: 1 step\(s\) differ, 0 cannot be checked, 1 the same/);
    const json = await runCli(tokens, [at('e3.json'), '--policy', url, '--json']);
    const second = lines(json.stdout)[1]!;
    assert.equal(second.firstDrift, 22);
    assert.equal(second.driftUnknown, undefined);
    assert.deepEqual((second.drift as Record<string, unknown>).recordedText, null);
  });

  test('a folder: every rollout, its lines named, the unreadable one said, the run summed', async () => {
    const url = await serve();
    const r = await runCliProcess(['tokens', at('run'), '--policy', url, '--json', '--in-flight', '2', '--no-drift']);
    assert.equal(r.code, 1, r.stderr);
    const out = lines(r.stdout);
    assert.deepEqual(
      out.slice(0, 4).map((l) => [l.rollout, l.index]),
      [
        ['a.json', 0],
        ['a.json', 1],
        ['b.json', 0],
        ['b.json', 1],
      ],
    );
    assert.equal(out[4]!.rollout, 'c.json');
    assert.match(out[4]!.error as string, /not a trajectory/);
    const s = out[5]!.summary as Record<string, unknown>;
    assert.deepEqual([s.rollouts, s.unreadable, s.steps, s.tokens, s.outside], [2, 1, 4, 4, 2]);
  });

  test("--save keeps each rollout's re-score, which rollouts DIR filters on; one not re-scored is unknown", async () => {
    const url = await serve();
    mkdirSync(at('saved'));
    writeFileSync(at('saved/a.json'), JSON.stringify(episode()));
    const r = await runCliProcess(['tokens', at('saved'), '--policy', url, '--save']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /kept the re-score of 1 rollout\(s\) in .*\.swe-workbench-tokens\.jsonl/);
    const [kept] = lines(readFileSync(at(`saved/${TOKEN_REPORT_FILE}`), 'utf8'));
    // Step 1's two tokens: d = 0 and -0.5; k3(-0.5) = e^-0.5 - 1 + 0.5 = 0.1065, over 2 tokens.
    assert.equal(kept!.rollout, 'a.json');
    assert.deepEqual([kept!.steps, kept!.errors, kept!.tokens, kept!.outside, kept!.firstDrift, kept!.driftUnknown], [2, 1, 2, 1, null, 1]);
    assert.ok(Math.abs((kept!.kl as number) - (Math.exp(-0.5) - 0.5) / 2) < 1e-9);
    assert.ok(Math.abs((kept!.maxAbsDiff as number) - 0.5) < 1e-9);
    // Written after the re-score: not in it.
    writeFileSync(at('saved/z.json'), JSON.stringify(episode()));
    const outside = await runCliProcess(['rollouts', at('saved'), '--filter', 'outside>0 and kl>0.05']);
    assert.equal(outside.code, 0, outside.stderr);
    assert.match(outside.stdout, /a\.json/);
    assert.doesNotMatch(outside.stdout, /z\.json/);
    const unknown = await runCliProcess(['rollouts', at('saved'), '--filter', 'kl=unknown']);
    assert.match(unknown.stdout, /z\.json/);
    assert.doesNotMatch(unknown.stdout, /a\.json/);
    const single = await runCliProcess(['tokens', at('e1.json'), '--policy', url, '--save']);
    assert.equal(single.code, 2);
    assert.match(single.stderr, /--save keeps a folder's re-score/);
  });

  test('rollouts rescore DIR (and rollouts DIR --policy) re-scores the run and keeps it for the table', async () => {
    const url = await serve();
    mkdirSync(at('rescored'));
    writeFileSync(at('rescored/a.json'), JSON.stringify(episode()));
    const r = await runCliProcess(['rollouts', 'rescore', at('rescored'), '--policy', url, '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /kept the re-score of 1 rollout\(s\) in .*\.swe-workbench-tokens\.jsonl/);
    const [kept] = lines(readFileSync(at(`rescored/${TOKEN_REPORT_FILE}`), 'utf8'));
    assert.deepEqual([kept!.rollout, kept!.tokens, kept!.outside], ['a.json', 2, 1]);
    const listed = await runCliProcess(['rollouts', 'list', at('rescored'), '--filter', 'outside>0']);
    assert.match(listed.stdout, /a\.json/);
    rmSync(at(`rescored/${TOKEN_REPORT_FILE}`));
    const legacy = await runCliProcess(['rollouts', at('rescored'), '--policy', url]);
    assert.equal(legacy.code, 1, legacy.stderr);
    assert.ok(readFileSync(at(`rescored/${TOKEN_REPORT_FILE}`), 'utf8').includes('"a.json"'));
    const none = await runCliProcess(['rollouts', 'rescore', at('rescored')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--policy is required: the policy server to re-score against/);
    const other = await runCliProcess(['rollouts', 'rescore', at('rescored'), '--policy', url, '--group']);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /rollouts rescore has no option --group: it is an option of rollouts list/);
  });

  test('usage errors: bad bounds, no policy', async () => {
    const bad = await runCliProcess(['tokens', at('e1.json'), '--policy', 'http://127.0.0.1:9/v1', '--bounds', '1.25,0.8']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--bounds: expected LOW,HIGH with 0 < LOW < HIGH/);
    const none = await runCliProcess(['tokens', at('e1.json')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--policy URL is required/);
  });
});

/** Two steps with ids: the second's prompt is the conversation after the first, as the engine saw it. */
function twoTurns(): unknown {
  const e = episode() as { trajectories: Array<{ steps: Array<Record<string, unknown>> }> };
  const before = [
    { role: 'user', content: 'T' },
    { role: 'assistant', content: 'ls' },
    { role: 'user', content: 'a.py' },
  ];
  const prompt = toyChatIds(before, true);
  const completion = toyEncode('done');
  e.trajectories[0]!.steps[1] = {
    prompt_ids: prompt,
    response_ids: completion,
    logprobs: completion.map((id, i) => toyLogprob(id, prompt.length + i)!),
    thought: 'done',
    observation: '',
  };
  return e;
}

describe('swe-workbench tokens on an OpenHands V1 conversation', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-tokens-v1-'));
    const id = (n: number) => `bbbbbbbb-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const prompt = toyChatIds([{ role: 'user', content: 'T' }], true);
    const events = [
      { id: id(0), source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'T' }] }, kind: 'MessageEvent' },
      { id: id(1), parent_id: id(0), source: 'agent', prompt_token_ids: prompt, response_token_ids: toyEncode('ls'), kind: 'TokenEvent' },
      {
        id: id(2),
        parent_id: id(1),
        source: 'agent',
        thought: [],
        action: { command: 'ls', kind: 'TerminalAction' },
        tool_name: 'terminal',
        tool_call_id: 'c1',
        tool_call: { id: 'c1', name: 'terminal', arguments: '{"command": "ls"}' },
        llm_response_id: 'r1',
        kind: 'ActionEvent',
      },
    ];
    mkdirSync(path.join(dir, 'events'), { recursive: true });
    events.forEach((e, i) => writeFileSync(path.join(dir, 'events', `event-0000${i}-${e.id}.json`), JSON.stringify(e)));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the folder is one rollout, its TokenEvent ids read on the step they belong to', async () => {
    const url = await serve();
    const r = await runCliProcess(['tokens', dir, '--policy', url, '--model', 'test-policy', '--json']);
    const [step, summary] = lines(r.stdout);
    assert.equal(step!.index, 0, r.stdout + r.stderr);
    assert.equal(step!.rollout, undefined, 'a conversation folder is not a folder of rollouts');
    // V1's TokenEvent keeps the ids (read: not "keeps no token ids") but no logprobs to compare with.
    assert.equal(step!.error, 'the recording keeps no logprobs for this step: nothing to compare with');
    assert.ok(summary!.summary);
  });
});
