import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PolicyClient } from '../../../extension/core/policy/policyClient';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';

/** The stand-in policy samples among scripted alternatives as vLLM samples: greedy at temperature 0, fixed by (seed, request) above it. */
describe('the scripted policy server samples among alternatives', () => {
  let server: PolicyServer;
  before(async () => {
    server = await startPolicyServer(() => ({
      choices: [
        { probability: 0.25, reply: { content: 'left' } },
        { probability: 0.75, reply: { content: 'right' } },
      ],
    }));
  });
  after(() => server.close());

  const ask = async (sampling: { temperature?: number; seed?: number }, question = 'which way?') => {
    const client = await PolicyClient.connect({ baseUrl: server.url, sampling });
    const reply = await client.complete([{ role: 'user', content: question }]);
    return reply.content;
  };

  test('at temperature 0, and with no temperature, the most probable reply, whatever the seed', async () => {
    assert.equal(await ask({ temperature: 0, seed: 1 }), 'right');
    assert.equal(await ask({ temperature: 0, seed: 2 }), 'right');
    assert.equal(await ask({}), 'right');
  });

  test('above 0 with a seed: the same seed and conversation give the same reply; seeds spread as the probabilities say', async () => {
    const replies: string[] = [];
    for (let seed = 0; seed < 200; seed++) replies.push((await ask({ temperature: 1, seed })) ?? '');
    for (let seed = 0; seed < 20; seed++) assert.equal(await ask({ temperature: 1, seed }), replies[seed], `seed ${seed} again`);
    const left = replies.filter((r) => r === 'left').length;
    // 200 draws of p = 0.25: 50 expected, standard deviation 6.1; the draws are fixed by the seeds, so this count is too.
    assert.ok(left > 30 && left < 70, `${left} of 200 went left`);
    assert.ok(replies.every((r) => r === 'left' || r === 'right'));
    // The seed is sent as vLLM takes it, in the request's body.
    assert.equal((server.chatRequests.at(-1) as { seed?: number }).seed, 19);
  });

  test('another conversation under the same seed may draw otherwise: the draw hashes the messages', async () => {
    const differ = [];
    for (let seed = 0; seed < 40; seed++) differ.push((await ask({ temperature: 1, seed }, 'a')) !== (await ask({ temperature: 1, seed }, 'b')));
    assert.ok(differ.some(Boolean));
  });
});
