import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseUnifiedDiff, reverseDiff, touchedPaths, withoutTerminalLineEnds } from '../../../extension/core/diff/unifiedDiff';
import { InputError } from '../../../extension/core/errors';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const sweSmithInstance = thirdPartyFiles.path('swe-smith/pandas-dev__pandas.95280573.pr_53652.instance.json');

const twoFiles = [
  'diff --git a/pkg/core.py b/pkg/core.py',
  'index 1111111..2222222 100644',
  '--- a/pkg/core.py',
  '+++ b/pkg/core.py',
  '@@ -1,4 +1,3 @@ def total(items):',
  ' def total(items):',
  '-    if not items:',
  '-        return 0',
  '+    return sum(items)',
  ' # end',
  'diff --git a/pkg/new.py b/pkg/new.py',
  'new file mode 100644',
  'index 0000000..3333333',
  '--- /dev/null',
  '+++ b/pkg/new.py',
  '@@ -0,0 +1 @@',
  '+x = 1',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('unified diffs', () => {
  test('reads files, hunks and new files of a git diff', () => {
    const files = parseUnifiedDiff(twoFiles);
    assert.deepEqual(
      files.map((f) => [f.oldPath, f.newPath, f.hunks.length, f.line]),
      [
        ['pkg/core.py', 'pkg/core.py', 1, 1],
        [null, 'pkg/new.py', 1, 11],
      ],
    );
    assert.equal(files[0]?.hunks[0]?.section, 'def total(items):');
    assert.deepEqual(touchedPaths(files), ['pkg/core.py', 'pkg/new.py']);
  });

  thirdPartyFiles.test('reads the real SWE-smith bug patch', () => {
    const patch = JSON.parse(readFileSync(sweSmithInstance, 'utf8')).patch as string;
    const files = parseUnifiedDiff(patch);
    assert.deepEqual(touchedPaths(files), ['pandas/core/indexes/base.py']);
    assert.equal(files[0]?.hunks[0]?.oldLines, 9);
  });

  test('reads git format-patch output: mail header before, signature after', () => {
    const mail = `From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] Total\n\n---\n pkg/core.py | 3 +--\n\n${twoFiles}-- \n2.39.5\n\n`;
    const files = parseUnifiedDiff(mail);
    assert.deepEqual(touchedPaths(files), ['pkg/core.py', 'pkg/new.py']);
    assert.equal(files[1]?.text.endsWith('\\ No newline at end of file\n'), true);
  });

  test('rejects a path that climbs out of the repository, with its line', () => {
    const evil = twoFiles.replace('+++ b/pkg/new.py', '+++ b/../../etc/cron.d/x');
    assert.throws(
      () => parseUnifiedDiff(evil, 'bug_inject.diff'),
      (err: unknown) => err instanceof InputError && err.file === 'bug_inject.diff' && err.where === 'line 15' && /'\.\.'/.test(err.problem),
    );
  });

  test('rejects absolute paths in plain diffs', () => {
    const evil = '--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n';
    assert.throws(
      () => parseUnifiedDiff(evil, 'x.diff'),
      (err: unknown) => err instanceof InputError && err.where === 'line 1' && /absolute/.test(err.problem),
    );
  });

  test('a hunk shorter than its header is malformed', () => {
    const broken = twoFiles.replace('@@ -1,4 +1,3 @@', '@@ -1,6 +1,3 @@');
    assert.throws(
      () => parseUnifiedDiff(broken, 'x.diff'),
      (err: unknown) => err instanceof InputError && err.where === 'line 5',
    );
  });

  test('the reverse applies with git and restores the original files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reverse-diff-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    execFileSync('mkdir', ['-p', path.join(dir, 'pkg')]);
    const original = 'def total(items):\n    if not items:\n        return 0\n# end\n';
    writeFileSync(path.join(dir, 'pkg/core.py'), original);
    writeFileSync(path.join(dir, 'forward.diff'), twoFiles);
    git('apply', 'forward.diff');
    assert.equal(readFileSync(path.join(dir, 'pkg/new.py'), 'utf8'), 'x = 1');
    const reverse = reverseDiff(parseUnifiedDiff(twoFiles));
    assert.match(reverse, /^deleted file mode 100644$/m);
    writeFileSync(path.join(dir, 'reverse.diff'), reverse);
    git('apply', 'reverse.diff');
    assert.equal(readFileSync(path.join(dir, 'pkg/core.py'), 'utf8'), original);
    assert.throws(() => readFileSync(path.join(dir, 'pkg/new.py')));
  });
});

describe('diffs read through a pseudo-terminal', () => {
  const thirdParty = thirdPartyFiles.dir;

  thirdPartyFiles.test("SWE-agent's recorded submission (CRLF on every line) parses once the terminal's CRs are gone", async () => {
    const { trajectory } = await loadTrajectory(path.join(thirdParty, 'swe-agent/marshmallow-1867.function_calling.traj'));
    const submission = trajectory.outcome.submission ?? '';
    assert.ok(submission.includes('\r\n') && !/(^|[^\r])\n/.test(submission), 'the recording holds a CRLF-only diff');
    const patches = parseUnifiedDiff(withoutTerminalLineEnds(submission));
    assert.deepEqual(touchedPaths(patches), ['src/marshmallow/fields.py']);
  });

  test('a diff with bare LFs keeps the CRs of the files it changes', () => {
    const diff = 'diff --git a/w.bat b/w.bat\n--- a/w.bat\n+++ b/w.bat\n@@ -1 +1 @@\n-echo one\r\n+echo two\r\n';
    assert.equal(withoutTerminalLineEnds(diff), diff);
  });
});
