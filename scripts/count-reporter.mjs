// A node:test reporter that only counts leaf tests (suites excluded) and writes
// {"passed","failed","skipped","failures":[...]} as JSON when the run ends.
export default async function* countReporter(source) {
  // `needs`: tests skipped because a folder beside the checkout is missing, by that folder
  // (their skip message is `needs ../shared/<folder>`, see test/helpers/sharedFolder.ts).
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [], needs: {} };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    if (data.details?.type === 'suite') continue;
    if (data.skip || data.todo) {
      counts.skipped++;
      const need = typeof data.skip === 'string' ? /^needs (\.\.\/shared\/\S+)/.exec(data.skip)?.[1] : undefined;
      if (need) counts.needs[need] = (counts.needs[need] ?? 0) + 1;
    }
    else if (event.type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      counts.failures.push(`${data.file ?? ''} :: ${data.name}`);
    }
  }
  yield JSON.stringify(counts);
}
