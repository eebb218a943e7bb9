import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseUnifiedDiff } from '../../../extension/core/diff/unifiedDiff';
import { applyHunks, patchSection, sidesFromHunks } from '../../../extension/views/patchSides';
import { loadPatchContent } from '../../../extension/vscode/patch/patchSources';

const repoRoot = path.resolve(__dirname, '../../..');
const validBug = path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close');
const tree = path.join(repoRoot, 'test/fixtures/sample-repo/tree');

describe('the two sides of a patched file', () => {
  test("the sample bug applied to the sample repository's money.py drops the remainder loop", async () => {
    const [, money] = parseUnifiedDiff(await readFile(path.join(validBug, 'bug_inject.diff'), 'utf8'));
    const original = await readFile(path.join(tree, 'ledger/money.py'), 'utf8');
    const patched = applyHunks(original, money!);
    assert.ok(patched !== undefined, 'the bug applies to the sample tree');
    assert.equal(original.split('\n').length - patched.split('\n').length, 7);
    assert.ok(original.includes('leftover = total.amount - sum(parts)') && !patched.includes('leftover'));
  });

  test('a file the patch was not made against is refused, not patched at the wrong place', async () => {
    const [, money] = parseUnifiedDiff(await readFile(path.join(validBug, 'bug_inject.diff'), 'utf8'));
    assert.equal(applyHunks('class Money:\n    pass\n', money!), undefined);
  });

  test('without the file, each kept line sits at its real line number', async () => {
    const [journal] = parseUnifiedDiff(await readFile(path.join(validBug, 'bug_inject.diff'), 'utf8'));
    const sides = sidesFromHunks(journal!);
    const before = sides.before.split('\n');
    const after = sides.after.split('\n');
    assert.equal(before[285 - 1]?.trim(), 'if self.chart.get(name).type.is_permanent:', 'hunk -282: its fourth line is line 285');
    assert.equal(after[285 - 1]?.trim(), 'for money in balance:');
    assert.equal(before.length - after.length, 2);
  });

  test('a new file is inserted at the top', () => {
    const [created] = parseUnifiedDiff('diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n');
    assert.equal(applyHunks('', created!), 'a = 1\nb = 2\n');
  });
});

describe('patch sources', () => {
  test('a bug folder shows its two diffs, each readable', async () => {
    const content = await loadPatchContent({ bug: validBug });
    assert.deepEqual(
      content.sections.map((s) => [s.label, s.problem]),
      [
        ['bug_inject.diff', null],
        ['test_weaken.diff', null],
      ],
    );
    assert.equal(content.title, 'Bug valid-allocate-and-close');
  });

  test('a patch escaping the repository is named as the problem, with where it is', () => {
    const section = patchSection('Patch', 'diff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n', 'step 3');
    assert.match(section.problem ?? '', /^step 3: .*climbs out of the repository/);
  });

  test('a missing step and a missing file say which', async () => {
    await assert.rejects(loadPatchContent({ file: path.join(validBug, 'nope.diff') }), /nope\.diff: no such file/);
    assert.match(patchSection('Diff', undefined, 'step 2').problem ?? '', /^step 2 holds no diff\.$/);
  });
});
