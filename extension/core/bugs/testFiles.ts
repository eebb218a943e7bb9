import path from 'node:path';

/**
 * pytest's default discovery: `test_*.py` or `*_test.py`, plus `conftest.py` (fixtures are part
 * of the tests: a bug hidden in a fixture would let the injector edit the tests).
 */
export function isPytestTestFile(file: string): boolean {
  const name = path.posix.basename(file);
  return /^test_.*\.py$/.test(name) || /_test\.py$/.test(name) || name === 'conftest.py';
}
