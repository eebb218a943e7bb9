import { DEFAULT_TEST_PARSER, DEFAULT_TEST_SCRIPT } from '../../extension/core/bugs/defaultBugScripts';
import type { BugArtifact } from '../../extension/core/bugs/bugArtifact';

/** A one-line change of `file` as git writes it. */
export function oneLineDiff(file: string, before = 'x = 1', after = 'x = 2'): string {
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${before}\n+${after}\n`;
}

/** A bug with the default pytest script and parser; every part can be replaced. */
export function bugArtifact(overrides: Partial<BugArtifact> = {}): BugArtifact {
  return {
    testScript: DEFAULT_TEST_SCRIPT,
    testParser: DEFAULT_TEST_PARSER,
    testFiles: ['tests/test_core.py'],
    bugInjectDiff: oneLineDiff('pkg/core.py'),
    testWeakenDiff: oneLineDiff('tests/test_core.py', 'assert f() == 1', 'assert f()'),
    ...overrides,
  };
}
