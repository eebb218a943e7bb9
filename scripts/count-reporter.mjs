// A node:test reporter that only counts leaf tests (suites excluded) and writes
// {"passed","failed","skipped","failures":[...]} as JSON when the run ends.
export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.details?.type === 'suite') continue;
    if (data.skip || data.todo) counts.skipped++;
    else if (event.type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      counts.failures.push(`${data.file ?? ''} :: ${data.name}`);
    }
  }
  yield JSON.stringify(counts);
}
