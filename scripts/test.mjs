// The test command of the README: runs the named suites (default: all) and ends with the line
// `N passed, N failed` that CI reads. Suites under test/unit and test/integration run on
// node:test (TypeScript through tsx); test/vscode and test/e2e run in a real code-server and
// Chromium through scripts/run-vscode-tests.mjs.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync, readFileSync, mkdtempSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { reexecOnSupportedNode, reportingSetupErrors } from './setup-steps.mjs';

// The suites run on a supported Node (22+): on an older one, on the Node 24 setup installed.
await reportingSetupErrors(() => reexecOnSupportedNode());

const root = new URL('..', import.meta.url).pathname;
const all = ['unit', 'integration', 'conformance', 'vscode', 'e2e'];
// Suites of node:test files under test/<suite>.
const nodeSuites = new Set(['unit', 'integration', 'conformance']);
const args = process.argv.slice(2);
const suites = args.filter((a) => !a.startsWith('-'));
const selected = suites.length > 0 ? suites : all;
const unknown = selected.filter((s) => !all.includes(s));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; choose from ${all.join(', ')}`);
  process.exit(2);
}

// The checks before any suite (npm run check: each layer's type check, ESLint's layer rules, knip,
// formatting), here rather than in a pretest script so that they too run on the supported Node.
// `--no-check` leaves them out where they already ran on the same commit (.ci/run's second run,
// in a bare clone without the shared folder).
const options = args.filter((a) => a.startsWith('-'));
const unknownOptions = options.filter((o) => o !== '--no-check');
if (unknownOptions.length > 0) {
  console.error(`unknown option(s): ${unknownOptions.join(', ')}; the one option is --no-check`);
  process.exit(2);
}
if (!options.includes('--no-check')) {
  const check = spawnSync('npm', ['run', 'check', '--silent'], { stdio: 'inherit' });
  if (check.status !== 0) {
    console.error('the checks failed (npm run check): no suite was run');
    process.exit(1);
  }
}

function* testFiles(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* testFiles(p);
    else if (name.endsWith('.test.ts')) yield p;
  }
}

// One test never runs for more than 10 min, and a suite (normally 20 s to 3 min) is stopped
// after 30: a test file that leaves a shell or a socket open fails the run instead of holding
// it until CI's own limit.
const SUITE_LIMIT_MS = 30 * 60_000;
const total = { passed: 0, failed: 0, skipped: 0, todo: 0, failures: [], needs: {} };
const out = mkdtempSync(join(tmpdir(), 'swe-workbench-test-'));

for (const suite of selected) {
  let counts;
  if (nodeSuites.has(suite)) {
    const files = [...testFiles(join(root, 'test', suite))].map((f) => relative(root, f));
    if (files.length === 0) continue;
    console.log(`\n# suite: ${suite} (${files.length} files)`);
    const countsFile = join(out, `${suite}.json`);
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        // Two files at once in every node suite: integration and conformance files wait on the
        // Docker engine most of their time, and each labels its containers by its own session,
        // so two files never see each other's. On the 2-core CI machine this took integration
        // from 427 to 254 s and conformance from 331 to 265 s.
        '--test-concurrency=2',
        '--test-timeout=600000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(root, 'scripts/count-reporter.mjs')}`,
        `--test-reporter-destination=${countsFile}`,
        ...files,
      ],
      { cwd: root, stdio: 'inherit', env: { ...process.env, SWE_WORKBENCH_SUITE: suite }, timeout: SUITE_LIMIT_MS },
    );
    counts = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : null;
    if (!counts || (r.status !== 0 && counts.failed === 0)) {
      const why =
        r.error?.code === 'ETIMEDOUT'
          ? `did not end within ${SUITE_LIMIT_MS / 60_000} min (a test file left a process or socket open?)`
          : `test runner exited with ${r.status ?? r.signal}`;
      counts = { passed: counts?.passed ?? 0, failed: (counts?.failed ?? 0) + 1, skipped: 0, failures: [`${suite}: ${why}`] };
    }
  } else {
    const runner = join(root, 'scripts/run-vscode-tests.mjs');
    if (!existsSync(runner)) continue;
    console.log(`\n# suite: ${suite}`);
    const countsFile = join(out, `${suite}.json`);
    const r = spawnSync(process.execPath, [runner, suite, countsFile], { cwd: root, stdio: 'inherit' });
    counts = existsSync(countsFile)
      ? JSON.parse(readFileSync(countsFile, 'utf8'))
      : { passed: 0, failed: 1, skipped: 0, failures: [`${suite}: runner exited with ${r.status ?? r.signal}`] };
  }
  for (const k of ['passed', 'failed', 'skipped', 'todo']) total[k] += counts[k] ?? 0;
  total.failures.push(...counts.failures);
  for (const [folder, n] of Object.entries(counts.needs ?? {})) total.needs[folder] = (total.needs[folder] ?? 0) + n;
}

if (total.failures.length > 0) {
  console.log('\nFailures:');
  for (const f of total.failures) console.log(`  - ${f}`);
}
// Tests that read a folder of the shared directory beside the checkout, which a clone does not have: said, not hidden in `skipped`.
const needs = Object.entries(total.needs).sort(([a], [b]) => a.localeCompare(b));
if (needs.length > 0) console.log('');
for (const [folder, n] of needs) console.log(`${n} test${n === 1 ? '' : 's'} need${n === 1 ? 's' : ''} ${folder}, not run`);
// Known gaps (the real recordings a reader cannot handle yet) on a line of their own: the closing
// line keeps the shape CI reads.
if (total.todo) console.log(`${total.todo} todo (known gaps, marked # TODO above)`);
console.log(`\n${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.failed > 0 || total.passed === 0 ? 1 : 0);
