import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_NORMALISERS, normalisersNamed } from '../../../extension/core/session/divergence';
import type { Step } from '../../../extension/core/trajectory/model';
import { replayCompareContent, stepDuration } from '../../../extension/views/replayCompare';
import { replayCompareLoad } from '../../../extension/protocol/replayCompare';
import { safeParse } from '../../../extension/protocol/ipc';

/** The normalisers of these names, as `replay --forgive` names them. */
const named = (...names: string[]) => normalisersNamed(names);

function step(observation: string, extra: Partial<Step> = {}): Step {
  return { index: 2, thought: '', action: { raw: 'python -m pytest -q tests/test_money.py', tool: 'bash', args: {} }, observation, ...extra };
}

// The recording's run: a pty's `\r\n`, a duration, and one failing test the replay no longer has.
const RECORDED = 'tests/test_money.py ..F.\r\nFAILED tests/test_money.py::test_allocate_keeps_cents\r\n1 failed, 3 passed in 0.12s\r\n';
const REPLAYED = 'tests/test_money.py ....\n4 passed in 0.31s\n';

describe('replayCompareContent', () => {
  test('a diverging step: both observations as recorded, the diff of what still differs, the normalisers that forgave the rest named', () => {
    const content = replayCompareContent({
      session: 'replay ledger.traj',
      recorded: step(RECORDED, { exitCode: 1, executionTime: 0.9 }),
      replayed: step(REPLAYED, { exitCode: 0, executionTime: 0.0424 }),
      normalisers: DEFAULT_NORMALISERS,
    });
    assert.equal(safeParse(replayCompareLoad.result, { kind: 'step', step: content }).success, true, 'the protocol accepts it');
    assert.equal(content.matched, false);
    assert.equal(content.title, 'Step 3 · bash');
    // The sides are the texts as they were, not normalised.
    assert.equal(content.recorded.observation, RECORDED);
    assert.equal(content.replayed.observation, REPLAYED);
    assert.deepEqual([content.recorded.exit, content.replayed.exit], ['exit 1', 'exit 0']);
    assert.deepEqual([content.recorded.duration, content.replayed.duration], ['900 ms', '42 ms']);
    // The diff keeps what the normalisers could not forgive: the failing test, and no `\r` or duration.
    assert.deepEqual(content.diff, [
      { kind: 'hunk', text: '@@ -1,3 +1,2 @@' },
      { kind: 'recorded', text: 'tests/test_money.py ..F.' },
      { kind: 'recorded', text: 'FAILED tests/test_money.py::test_allocate_keeps_cents' },
      { kind: 'recorded', text: '1 failed, 3 passed in <duration>' },
      { kind: 'replayed', text: 'tests/test_money.py ....' },
      { kind: 'replayed', text: '4 passed in <duration>' },
    ]);
    assert.deepEqual(
      content.normalisers.filter((n) => n.changed).map((n) => n.name),
      ['line-endings', 'trailing-whitespace', 'timings'],
    );
    assert.deepEqual(
      content.normalisers.map((n) => n.name),
      DEFAULT_NORMALISERS.map((n) => n.name),
      'every normaliser applied is named, those with nothing to forgive here too',
    );
    assert.match(content.normalisers.find((n) => n.name === 'timings')!.forgives, /durations/);
    assert.equal(content.note, undefined);
  });

  test('a step matched only thanks to a normaliser: no diff, and the normaliser that made it match is marked', () => {
    const content = replayCompareContent({
      session: 'replay ledger.traj',
      recorded: step('4 passed in 0.12s\r\n'),
      replayed: step('4 passed in 0.31s\n', { flags: ['edited'] }),
      normalisers: named('line-endings', 'timings'),
    });
    assert.equal(content.matched, true);
    assert.deepEqual(content.diff, []);
    assert.deepEqual(
      content.normalisers.map((n) => [n.name, n.changed]),
      [
        ['line-endings', true],
        ['timings', true],
      ],
    );
    assert.match(content.note ?? '', /edited before it ran/);
  });

  test('durations: milliseconds under a second, unknown when not recorded', () => {
    assert.deepEqual([stepDuration(undefined), stepDuration(0.0004), stepDuration(1.25), stepDuration(125)], ['unknown', '0 ms', '1.3 s', '2 min 5 s']);
  });
});
