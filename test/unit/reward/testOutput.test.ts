import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parsePytestOutput } from '../../../extension/core/reward/pytestOutput';
import { parseSweBenchLog, parseTestOutput } from '../../../extension/core/reward/testOutput';
import { parseUnittestOutput } from '../../../extension/core/reward/unittestOutput';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const sweSmith = thirdPartyFiles.path('swe-smith');
const read = (rel: string) => readFileSync(path.join(sweSmith, rel), 'utf8');

describe('pytest output', () => {
  thirdPartyFiles.test('reads the verbose lines of a real SWE-smith run, parametrized ids included', () => {
    const map = parsePytestOutput(read('run_validation/test_output.txt'));
    assert.equal(map.size, 11);
    assert.equal(map.get('pandas/tests/indexing/test_datetime.py::TestDatetimeIndex::test_getitem_pyarrow_index[DataFrame]'), 'FAILED');
    assert.equal(map.get('pandas/tests/indexing/test_datetime.py::TestDatetimeIndex::test_indexing_with_datetimeindex_tz[setitem]'), 'PASSED');
    assert.equal([...map.values()].filter((s) => s === 'FAILED').length, 2);
  });

  test('reads -rA summary lines and drops the message after " - "', () => {
    const map = parsePytestOutput(
      [
        '=========================== short test summary info ============================',
        'PASSED tests/test_a.py::test_ok',
        'FAILED tests/test_a.py::test_bad - AssertionError: assert [1, 2] == [1]',
        'ERROR tests/test_a.py::test_fixture - RuntimeError: boom',
        'XFAIL tests/test_a.py::test_known - reason: not yet',
        'XPASS tests/test_a.py::test_lucky surprise',
        'SKIPPED [1] tests/test_a.py:40: needs network',
        'FAILED tests/test_a.py::test_param[a b - c] - ValueError: x[0]',
      ].join('\n'),
    );
    assert.deepEqual(Object.fromEntries(map), {
      'tests/test_a.py::test_ok': 'PASSED',
      'tests/test_a.py::test_bad': 'FAILED',
      'tests/test_a.py::test_fixture': 'ERROR',
      'tests/test_a.py::test_known': 'XFAIL',
      'tests/test_a.py::test_lucky': 'XPASS',
      'tests/test_a.py::test_param[a b - c]': 'FAILED',
    });
  });

  test('reads verbose lines with percentages, reasons, spaces in ids and xdist prefixes', () => {
    const map = parsePytestOutput(
      [
        'tests/test_b.py::test_space[hello world] PASSED                          [ 25%]',
        'tests/test_b.py::test_skip SKIPPED (no db)                               [ 50%]',
        'tests/test_b.py::test_xf XFAIL (flaky)                                    [ 75%]',
        '[gw1] [100%] PASSED tests/test_b.py::test_parallel[1-2]',
      ].join('\n'),
    );
    assert.deepEqual(Object.fromEntries(map), {
      'tests/test_b.py::test_space[hello world]': 'PASSED',
      'tests/test_b.py::test_skip': 'SKIPPED',
      'tests/test_b.py::test_xf': 'XFAIL',
      'tests/test_b.py::test_parallel[1-2]': 'PASSED',
    });
  });

  test('a teardown ERROR after a PASSED call wins, as in SWE-bench', () => {
    const map = parsePytestOutput('tests/t.py::test_x PASSED [ 50%]\ntests/t.py::test_x ERROR [ 50%]\n');
    assert.equal(map.get('tests/t.py::test_x'), 'ERROR');
  });
});

describe('unittest / Django output', () => {
  test('reads every outcome word, docstring ids and outcomes on a later line', () => {
    const map = parseUnittestOutput(
      [
        'test_add (calc.tests.MathTests) ... ok',
        'test_sub (calc.tests.MathTests) ... FAIL',
        'test_div (calc.tests.MathTests) ... ERROR',
        "test_net (calc.tests.NetTests) ... skipped 'offline'",
        'test_old (calc.tests.MathTests) ... expected failure',
        'test_new (calc.tests.MathTests) ... unexpected success',
        'test_doc (sitemaps_tests.test_http.HTTPSitemapTests)',
        'A cached sitemap index can be rendered (#2713). ... ok',
        'test_noisy (calc.tests.MathTests) ... printing things',
        'ok',
      ].join('\n'),
    );
    assert.deepEqual(Object.fromEntries(map), {
      'test_add (calc.tests.MathTests)': 'PASSED',
      'test_sub (calc.tests.MathTests)': 'FAILED',
      'test_div (calc.tests.MathTests)': 'ERROR',
      'test_net (calc.tests.NetTests)': 'SKIPPED',
      'test_old (calc.tests.MathTests)': 'XFAIL',
      'test_new (calc.tests.MathTests)': 'XPASS',
      'A cached sitemap index can be rendered (#2713).': 'PASSED',
      'test_noisy (calc.tests.MathTests)': 'PASSED',
    });
  });

  test('auto mode reads both styles in one text', () => {
    const map = parseTestOutput('test_a (m.C) ... ok\nPASSED t.py::test_b\n');
    assert.equal(map.size, 2);
  });
});

describe('SWE-bench logs', () => {
  thirdPartyFiles.test('reads only between the markers of a real evaluation log', () => {
    const log = parseSweBenchLog(read('run_evaluation/pandas-dev__pandas.95280573.pr_53652/test_output.txt'));
    assert.equal(log.kind, 'tests');
    assert.equal(log.kind === 'tests' && log.statuses.size, 11);
  });

  for (const marker of ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out']) {
    test(`'${marker}' voids the run as an infra failure`, () => {
      const log = parseSweBenchLog(`${marker}\n>>>>> Start Test Output\nPASSED t.py::test_a\n>>>>> End Test Output\n`);
      assert.deepEqual(log, { kind: 'infra-failure', reason: marker.slice(6) });
    });
  }

  test('a log without markers is an infra failure, not an empty pass', () => {
    const log = parseSweBenchLog('PASSED t.py::test_a\n');
    assert.equal(log.kind, 'infra-failure');
  });
});
