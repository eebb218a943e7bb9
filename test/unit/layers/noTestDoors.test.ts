import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../helpers/trajectoryFiles';

/**
 * Tests observe; production does not serve them (CONTRIBUTING). `knip --production` flags an
 * export only tests use unless it carries a JSDoc `@internal` tag, so the tag is the door: none
 * may appear in production code.
 */

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** Every `@internal` tag in the production folders, as `file:line`. */
function internalTags(): string[] {
  const found: string[] = [];
  for (const folder of ['extension', 'webview']) {
    for (const entry of readdirSync(path.join(repoRoot, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
      const file = path.relative(repoRoot, path.join(entry.parentPath, entry.name));
      // The layer tests write probe files into these folders for a moment: one gone since the listing has no tag.
      const text = readIfThere(path.join(repoRoot, file));
      text.split('\n').forEach((line, i) => {
        if (/@internal\b/.test(line)) found.push(`${file}:${i + 1}`);
      });
    }
  }
  return found.sort();
}

test('no production symbol is kept for a test: no @internal tag in extension/ or webview/', () => {
  assert.deepEqual(internalTags(), [], 'reach the behaviour through the public function instead, or move the code where production imports it');
});
