import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { HOSTILE_PATCH } from '../../builders/hostilePatch';
import { renderPatch } from '../../../webview/patch/patchHtml';

const repoRoot = path.resolve(__dirname, '../../..');
const validBug = path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close');

describe('the patch view renders diffs with diff2html', () => {
  test('every piece of a hostile patch is escaped: no tag, no handler attribute reaches the markup', () => {
    for (const layout of ['side-by-side', 'line-by-line'] as const) {
      const rendered = renderPatch(HOSTILE_PATCH, layout);
      assert.equal(rendered.kind, 'rendered');
      if (rendered.kind !== 'rendered') return;
      assert.doesNotMatch(rendered.html, /<script/i, layout);
      assert.doesNotMatch(rendered.html, /<img/i, layout);
      assert.doesNotMatch(rendered.html, /<[^>]*\sonerror\s*=/i, layout);
      assert.match(rendered.html, /x&lt;script&gt;alert\(1\)&lt;\/script&gt;\.py/);
      assert.match(rendered.html, /def &lt;img src=x onerror=alert\(2\)&gt;/);
      // Word highlighting wraps the changed words in <ins>/<del>; the text between stays escaped.
      assert.match(rendered.html.replace(/<\/?(ins|del)>/g, ''), /new = &quot;&lt;img src=x onerror=alert\(4\)&gt;&quot;/);
      assert.deepEqual(rendered.files, [{ name: 'x<script>alert(1)</script>.py', added: 1, deleted: 1 }]);
    }
  });

  test('the sample bug: two source files with the lines it removes', async () => {
    const rendered = renderPatch(await readFile(path.join(validBug, 'bug_inject.diff'), 'utf8'), 'side-by-side');
    assert.equal(rendered.kind, 'rendered');
    if (rendered.kind !== 'rendered') return;
    assert.deepEqual(rendered.files, [
      { name: 'ledger/journal.py', added: 0, deleted: 2 },
      { name: 'ledger/money.py', added: 0, deleted: 7 },
    ]);
    assert.match(rendered.html, /d2h-file-side-diff/, 'side by side has two columns');
    const lineByLine = renderPatch(await readFile(path.join(validBug, 'bug_inject.diff'), 'utf8'), 'line-by-line');
    assert.ok(lineByLine.kind === 'rendered' && !lineByLine.html.includes('d2h-file-side-diff'));
  });

  test('an empty patch and a text that is no diff say so instead of rendering nothing', () => {
    assert.deepEqual(renderPatch('  \n', 'side-by-side'), { kind: 'problem', message: 'The patch is empty: it holds no change.' });
    const garbage = renderPatch('I fixed the bug by\nediting money.py\n', 'line-by-line');
    assert.equal(garbage.kind, 'problem');
    assert.match(garbage.kind === 'problem' ? garbage.message : '', /^Not a unified diff: .* 3 lines\.$/);
  });
});
