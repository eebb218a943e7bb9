// A node:test reporter that only counts leaf tests (suites excluded) and writes
// {"passed","failed","skipped","failures":[...]} as JSON when the run ends.
export default async function* countReporter(source) {
  // `needs`: tests skipped because a folder of the shared directory beside the checkout is absent (test/helpers/sharedFolder.ts
  // gives them the reason `needs <shared folder> ...`), counted per folder for the summary.
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [], needs: {} };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.details?.type === 'suite') continue;
    if (data.skip || data.todo) {
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
