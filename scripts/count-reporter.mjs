// A node:test reporter that only counts leaf tests (suites excluded) and writes
// {"passed","failed","skipped","todo","failures":[...]} as JSON when the run ends.
export default async function* countReporter(source) {
  // `needs`: tests skipped because a folder of the shared directory beside the checkout is absent (test/helpers/sharedFolder.ts
  // gives them the reason `needs <shared folder> ...`), counted per folder for the summary.
  // `todo`: known gaps a test reports without failing (test/fixtures/recordings rows that await a reader), kept apart from skips.
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0, failures: [], needs: {} };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.details?.type === 'suite') continue;
    if (data.todo) counts.todo++;
    else if (data.skip) {
      counts.skipped++;
      const folder = typeof data.skip === 'string' ? /^needs (\S+)/.exec(data.skip)?.[1] : undefined;
      if (folder) counts.needs[folder] = (counts.needs[folder] ?? 0) + 1;
    } else if (event.type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      counts.failures.push(`${data.file ?? ''} :: ${data.name}`);
    }
  }
  yield JSON.stringify(counts);
}
