import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { gradeTestOutput } from '../../../extension/core/reward/grading';
import { resolveReward } from '../../../extension/core/reward/shapes';
import { unusableTestLog } from '../../../extension/core/reward/testLogVerdict';
import { parseTestOutput } from '../../../extension/core/reward/testOutput';
import { thirdPartyFolder } from '../../helpers/sharedFolder';

const repoRoot = path.resolve(__dirname, '../../..');
const thirdParty = thirdPartyFolder();
const expected = { FAIL_TO_PASS: ['tests/t.py::test_a'], PASS_TO_PASS: ['tests/t.py::test_b'] };
const COMPLETE = 'tests/t.py::test_a PASSED [ 50%]\ntests/t.py::test_b PASSED [100%]\n============ 2 passed in 0.03s ============\n';

/**
 * Parses `log` in a child process and returns its statuses; the child is killed after a
 * generous limit, so a backtracking parser fails this test instead of hanging the suite.
 */
function parseInChild(log: string): Record<string, string> {
  const script = `
    const { parseTestOutput } = require(${JSON.stringify(path.join(repoRoot, 'extension/core/reward/testOutput.ts'))});
    let text = ''; process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c) => (text += c));
    process.stdin.on('end', () => process.stdout.write(JSON.stringify(Object.fromEntries(parseTestOutput(text)))));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { input: log, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
  assert.equal(r.signal, null, `the parser did not finish within 60 s (${r.signal})`);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe('test-output parsing cannot backtrack', () => {
  const hostileLines: Array<[string, string]> = [
    ['`a:: PASSED (` repeated to 1 MB', 'a:: PASSED ('.repeat(90_000)],
    ['`FAILED ` then `a::` x 300000 then `[x`', 'FAILED ' + 'a::'.repeat(300_000) + '[x'],
    ['`PASSED x::` then `[` x 1 MB', 'PASSED x::y' + '['.repeat(1 << 20)],
    ['`=` x 1 MB then `x=`', '='.repeat(1 << 20) + ' passed in x='],
    ['`[gw1] [` then spaces', '[gw1] [' + ' '.repeat(1 << 20)],
    ['` ... ` x 1 MB (unittest)', 'test_x ... '.repeat(100_000)],
  ];
  for (const [name, line] of hostileLines) {
    test(`a 1 MB hostile line (${name}) inside a normal log is read, and the real tests still are`, () => {
      const log = `tests/t.py::test_a PASSED [ 50%]\n${line}\ntests/t.py::test_b FAILED [100%]\n`;
      const statuses = parseInChild(log);
      assert.equal(statuses['tests/t.py::test_a'], 'PASSED');
      assert.equal(statuses['tests/t.py::test_b'], 'FAILED');
    });
  }
});

describe('a log in which no complete test run is recognised is an infra failure, never reward 0', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['empty', '', /the test output is empty/],
    ['one byte', 'x', /no pytest or unittest result lines/],
    ['random binary', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString('latin1'), /binary data/],
    ['jest', 'PASS src/sum.test.js\n  ✓ adds (3 ms)\n\nTest Suites: 1 passed, 1 total\nTests:       1 passed, 1 total\n', /jest output/],
    ['go test', '=== RUN   TestSum\n--- PASS: TestSum (0.00s)\nPASS\nok  \texample.com/sum\t0.004s\n', /go test output/],
    ['TAP', 'TAP version 13\nok 1 - adds\nnot ok 2 - subtracts\n1..2\n', /TAP output/],
    ['JUnit XML', '<?xml version="1.0"?>\n<testsuite name="t" tests="1">\n  <testcase classname="t" name="test_a"/>\n</testsuite>\n', /JUnit XML output/],
    ['mocha', '\n  sum\n    ✓ adds\n\n  1 passing (5ms)\n', /mocha output/],
    [
      'cargo',
      'running 2 tests\ntest tests::it_adds ... ok\ntest tests::it_fails ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored\n',
      /cargo test output/,
    ],
    ['pytest cut in half', COMPLETE.slice(0, 40), /looks truncated/],
  ];
  for (const [name, log, message] of cases) {
    test(`${name}: masked with its reason`, () => {
      const outcome = gradeTestOutput(expected, log);
      assert.equal(outcome.kind, 'infra-failure');
      assert.ok(outcome.kind === 'infra-failure' && outcome.unusable, 'carries the no-tests-recognised verdict');
      assert.match(outcome.reason, message);
      const reward = resolveReward(outcome);
      assert.match(reward.masked?.reason ?? '', message);
    });
  }

  thirdParty.test('a real SWE-smith validation log and a complete pytest run are graded', () => {
    const real = readFileSync(thirdParty.path('swe-smith/run_validation/test_output.txt'), 'utf8');
    const statuses = parseTestOutput(real);
    assert.equal(unusableTestLog(real, statuses), undefined);
    const outcome = gradeTestOutput(expected, COMPLETE);
    assert.equal(outcome.kind, 'graded');
    assert.equal(outcome.kind === 'graded' && outcome.resolution, 'FULL');
  });

  test('a unittest run is complete at its `Ran N tests` line', () => {
    const log =
      'test_a (t.T) ... ok\ntest_b (t.T) ... FAIL\n\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n';
    const outcome = gradeTestOutput({ FAIL_TO_PASS: ['test_a (t.T)'], PASS_TO_PASS: ['test_b (t.T)'] }, log, 'unittest');
    assert.equal(outcome.kind === 'graded' && outcome.resolution, 'NO');
    assert.equal(gradeTestOutput(expected, log.slice(0, 30), 'unittest').kind, 'infra-failure');
  });
});
