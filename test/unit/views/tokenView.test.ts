import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { toTokenView, tokenToDecode } from '../../../extension/views/tokenView';
import { toStepDetail } from '../../../extension/views/stepView';
import { defaultColouring, promptLine, tokenLevel } from '../../../webview/stepper/tokenMeasures';

/** What the token view says for a step that keeps no per-token data. */
const NO_TOKEN_DATA = 'This step records no per-token data: no logprobs and no completion token ids.';
import { aStep } from '../../builders/trajectory';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≈ ${expected}`);

describe('the token view of a step', () => {
  test('text tokens keep their logprob; entropy is over the recorded alternatives and the sampled token', () => {
    const step = aStep({
      logprobs: [
        // Sampled among the alternatives: H = 0.5 ln 2 + 0.25 ln 4 = ln 2.
        {
          token: 'a',
          logprob: Math.log(0.5),
          top: [
            { token: 'a', logprob: Math.log(0.5) },
            { token: 'b', logprob: Math.log(0.25) },
          ],
        },
        // Sampled outside them: its own term, 0.125 ln 8, is added.
        {
          token: 'c',
          logprob: Math.log(0.125),
          top: [
            { token: 'a', logprob: Math.log(0.5) },
            { token: 'b', logprob: Math.log(0.25) },
          ],
        },
        { token: ' d', logprob: -0.01 },
      ],
      tokenIds: { prompt: [1, 2, 3, 4], completion: [97, 99, 100] },
      tokens: { prompt: 999 },
    });
    const view = toTokenView(step);
    assert.equal(view.promptTokens, 4, 'the prompt ids win over the reported usage');
    assert.equal(view.promptFrom, 'ids');
    assert.equal(view.none, undefined);
    assert.deepEqual(
      view.completion.map(({ id, text, logprob }) => ({ id, text, logprob })),
      [
        { id: 97, text: 'a', logprob: Math.log(0.5) },
        { id: 99, text: 'c', logprob: Math.log(0.125) },
        { id: 100, text: ' d', logprob: -0.01 },
      ],
    );
    close(view.completion[0]!.entropy, Math.log(2));
    close(view.completion[1]!.entropy, Math.log(2) + 0.125 * Math.log(8));
    assert.equal(view.completion[2]!.entropy, undefined, 'no alternatives recorded: no entropy');
    assert.equal(view.completion[1]!.top?.length, 2);
  });

  test('a token recorded as its id only has no text, and decoding asks for the id', () => {
    // What the ATIF, SkyRL and rLLM importers write for numeric logprobs: the id as the token.
    const step = aStep({
      index: 6,
      logprobs: [
        { token: '1734', logprob: -0.2 },
        { token: '', logprob: -3 },
      ],
      tokenIds: { completion: [1734, 42] },
    });
    const view = toTokenView(step);
    assert.deepEqual(view.completion, [
      { id: 1734, logprob: -0.2 },
      { id: 42, logprob: -3 },
    ]);
    assert.deepEqual(tokenToDecode(step, 0), { id: 1734 });
    assert.deepEqual(tokenToDecode(step, 1), { id: 42 });
    assert.deepEqual(tokenToDecode(step, 2), { reason: 'step 7 has 2 completion token(s), not a token 3' });
    assert.deepEqual(tokenToDecode(aStep({ logprobs: [{ token: 'x', logprob: -1 }] }), 0), { text: 'x' });
    assert.deepEqual(tokenToDecode(aStep({ index: 2, logprobs: [{ token: '', logprob: -1 }] }), 0), {
      reason: 'token 1 of step 3 is recorded with neither its text nor its id',
    });
  });

  test('completion ids without logprobs are shown unmeasured; the prompt count falls back to the usage', () => {
    const view = toTokenView(aStep({ tokenIds: { completion: [5, 6] }, tokens: { prompt: 120, completion: 2 } }));
    assert.deepEqual(view, {
      promptTokens: 120,
      promptFrom: 'usage',
      completionTokens: 2,
      completionFrom: 'tokens',
      completion: [{ id: 5 }, { id: 6 }],
    });
    assert.equal(tokenLevel(view.completion[0]!, 'probability'), undefined);
    assert.equal(promptLine(view), 'Prompt: 120 tokens (recorded usage) · Completion: 2 tokens (counted from the recorded tokens)');
  });

  test('a step without token data says so, and its prompt and completion lengths are unknown rather than 0', () => {
    const view = toStepDetail(aStep()).tokenView;
    assert.deepEqual(view, { completion: [], none: NO_TOKEN_DATA });
    assert.equal('promptTokens' in view, false);
    assert.equal(promptLine(view), 'Prompt: unknown · Completion: unknown');
  });

  test("a step with the recording's usage only: both lengths are the usage, labelled so, never a counted 0", () => {
    // R2E-Gym's step 1: usage prompt 814, completion 11, and no per-token data.
    const view = toTokenView(aStep({ tokens: { prompt: 814, completion: 11 } }));
    assert.equal(promptLine(view), 'Prompt: 814 tokens (recorded usage) · Completion: 11 tokens (recorded usage)');
    // A live run: the prompt's ids counted (1,727) and the server's usage (227) are told apart.
    const live = toTokenView(aStep({ tokenIds: { prompt: Array.from({ length: 1727 }, (_, i) => i) }, tokens: { prompt: 227 } }));
    assert.equal(promptLine(live), 'Prompt: 1,727 tokens (counted from the recorded ids) · Completion: unknown');
  });

  test('the sampled token alone (top-1) gives no entropy, so the colouring starts by probability', () => {
    // What the stand-in server and a top_logprobs=1 request record: the sampled token as its only alternative.
    const sampledOnly = toTokenView(
      aStep({
        logprobs: [
          { token: 'a', logprob: Math.log(0.3), top: [{ token: 'a', logprob: Math.log(0.3) }] },
          { token: 'b', logprob: Math.log(0.9), top: [{ token: 'b', logprob: Math.log(0.9) }] },
        ],
      }),
    );
    assert.deepEqual(
      sampledOnly.completion.map((t) => t.entropy),
      [undefined, undefined],
    );
    assert.equal(defaultColouring(sampledOnly.completion), 'probability');
    assert.deepEqual(
      sampledOnly.completion.map((t) => tokenLevel(t, 'probability')),
      [1, 0],
      'the unlikely token is marked',
    );
    const withAlternatives = toTokenView(
      aStep({
        logprobs: [
          {
            token: 'a',
            logprob: Math.log(0.5),
            top: [
              { token: 'a', logprob: Math.log(0.5) },
              { token: 'c', logprob: Math.log(0.4) },
            ],
          },
        ],
      }),
    );
    assert.equal(defaultColouring(withAlternatives.completion), 'entropy');
  });

  test('tokens are marked by probability (p < 0.5, p < 0.1) or by entropy (≥ 0.5, ≥ 1.5 nats)', () => {
    assert.equal(tokenLevel({ logprob: Math.log(0.6) }, 'probability'), 0);
    assert.equal(tokenLevel({ logprob: Math.log(0.49) }, 'probability'), 1);
    assert.equal(tokenLevel({ logprob: Math.log(0.09) }, 'probability'), 2);
    assert.equal(tokenLevel({ logprob: -0.1, entropy: 0.2 }, 'entropy'), 0);
    assert.equal(tokenLevel({ logprob: -0.1, entropy: 0.7 }, 'entropy'), 1);
    assert.equal(tokenLevel({ logprob: -5, entropy: 1.6 }, 'entropy'), 2);
    assert.equal(tokenLevel({ logprob: -5 }, 'entropy'), undefined, 'no alternatives: not measured, not "certain"');
  });

  thirdPartyFiles.test("Harbor's ATIF recording: each agent step's ids and logprobs, the prompt's length from its ids", async () => {
    const file = thirdParty('harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json');
    const raw = JSON.parse(readFileSync(file, 'utf8')) as {
      steps: Array<{ source: string; metrics?: { prompt_token_ids: number[]; completion_token_ids: number[]; logprobs: number[] } }>;
    };
    const { trajectory } = await loadTrajectory(file);
    const recorded = raw.steps.filter((s) => s.metrics?.completion_token_ids);
    const shown = trajectory.steps.map(toTokenView).filter((v) => v.completion.length > 0);
    assert.equal(shown.length, recorded.length);
    shown.forEach((view, k) => {
      const m = recorded[k]!.metrics!;
      assert.equal(view.promptTokens, m.prompt_token_ids.length);
      assert.deepEqual(
        view.completion,
        m.completion_token_ids.map((id, i) => ({ id, logprob: m.logprobs[i] })),
      );
    });
    const handoff = trajectory.steps.find((s) => s.flags?.includes('atif-system'));
    assert.equal(handoff && toTokenView(handoff).none, NO_TOKEN_DATA, "the system's handoff carries no tokens");
  });
});
