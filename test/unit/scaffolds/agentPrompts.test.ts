import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instructionsFor } from '../../../extension/core/scaffolds/swe-agent/agentPrompts';

describe('the instance template', () => {
  test('names the repository path and quotes the problem statement as a PR description', () => {
    const text = instructionsFor({ repoPath: '/testbed', problemStatement: 'Money.parse drops the last group of digits.' });
    const lines = text.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['<uploaded_files>', '/testbed', '</uploaded_files>']);
    assert.equal(lines[3], "I've uploaded a code repository in the directory /testbed. Consider the following PR description:");
    assert.deepEqual(lines.slice(5, 8), ['<pr_description>', 'Money.parse drops the last group of digits.', '</pr_description>']);
  });

  test('calls a task with only a spec a specification', () => {
    const text = instructionsFor({ repoPath: '/repo', spec: 'Add a `ledger balance` command.' });
    assert.match(text, /^I've uploaded a code repository in the directory \/repo\. Consider the following specification:$/m);
    assert.match(text, /<pr_description>\nAdd a `ledger balance` command\.\n<\/pr_description>/);
  });
});
