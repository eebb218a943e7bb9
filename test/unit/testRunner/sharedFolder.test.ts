import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { needsShared, sharedEnvName } from '../../helpers/sharedFolder';

const repoRoot = path.resolve(__dirname, '../../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'shared-folder-'));

/** A test file needing ../shared/oracles: two tests and a hook read it, one test does not. */
const suite = path.join(scratch, 'needsOracles.test.ts');
writeFileSync(
  suite,
  `import { test } from 'node:test';
import { readdirSync } from 'node:fs';
import { needsShared } from ${JSON.stringify(path.join(repoRoot, 'test/helpers/sharedFolder'))};
const oracles = needsShared('oracles');
oracles.before(() => { readdirSync(oracles.dir); });
oracles.test('reads the oracles', () => { readdirSync(oracles.dir); });
oracles.test('reads them again', { timeout: 1000 }, () => { readdirSync(oracles.dir); });
test('needs nothing', () => {});
`,
);

function runWithCounts(env: Record<string, string>) {
  const counts = path.join(scratch, `counts-${Math.random().toString(36).slice(2)}.json`);
  // A run of its own, as scripts/test.mjs starts one (not a subtest of this run: no NODE_TEST_CONTEXT).
  const { NODE_TEST_CONTEXT: _inner, ...outer } = process.env;
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-reporter=${path.join(repoRoot, 'scripts/count-reporter.mjs')}`, `--test-reporter-destination=${counts}`, suite],
    { cwd: repoRoot, encoding: 'utf8', env: { ...outer, SWE_WORKBENCH_REQUIRE_SHARED: '', ...env } },
  );
  return {
    status: r.status,
    counts: JSON.parse(readFileSync(counts, 'utf8')) as { passed: number; failed: number; skipped: number; needs: Record<string, number> },
  };
}

after(() => rmSync(scratch, { recursive: true, force: true }));

describe('tests that need a folder of ../shared', () => {
  test('one setting per folder: SWE_WORKBENCH_<NAME>, else SWE_WORKBENCH_SHARED/<folder>', () => {
    assert.equal(sharedEnvName('fixtures/third-party'), 'SWE_WORKBENCH_THIRD_PARTY');
    assert.equal(needsShared('fixtures/third-party', { SWE_WORKBENCH_THIRD_PARTY: scratch }).dir, scratch);
    assert.equal(needsShared('oracles', { SWE_WORKBENCH_SHARED: '/somewhere' }).dir, '/somewhere/oracles');
    const absent = needsShared('oracles', { SWE_WORKBENCH_ORACLES: '/no/such/oracles' });
    assert.equal(absent.present, false);
    assert.equal(absent.skip, 'needs ../shared/oracles (looked in /no/such/oracles; set SWE_WORKBENCH_ORACLES)');
  });

  test('absent: its tests are skipped and counted per folder for the summary; its hooks do not run; the rest runs', () => {
    const { status, counts } = runWithCounts({ SWE_WORKBENCH_ORACLES: '/no/such/oracles' });
    assert.equal(status, 0);
    assert.deepEqual(counts, { passed: 1, failed: 0, skipped: 2, todo: 0, failures: [], needs: { '../shared/oracles': 2 } } as unknown as typeof counts);
  });

  test('present: they run', () => {
    const { counts } = runWithCounts({ SWE_WORKBENCH_ORACLES: scratch });
    assert.deepEqual([counts.passed, counts.skipped, counts.needs], [3, 0, {}]);
  });

  test('absent while SWE_WORKBENCH_REQUIRE_SHARED=1 (CI): the file fails instead of skipping', () => {
    const { status, counts } = runWithCounts({ SWE_WORKBENCH_ORACLES: '/no/such/oracles', SWE_WORKBENCH_REQUIRE_SHARED: '1' });
    assert.notEqual(status, 0);
    assert.equal(counts.failed, 1);
    assert.equal(counts.passed, 0);
  });
});
