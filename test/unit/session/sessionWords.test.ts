import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { forkNote } from '../../../extension/core/session/forkNote';
import { endedHint, isOnlyHint, withoutHint } from '../../../extension/core/session/nextActionHint';

describe('what a session says of itself', () => {
  test('a live run from a recording\'s task replays nothing, and says so rather than "steps 1..0"', () => {
    assert.equal(forkNote(0, 0, undefined), "a live run of the recording's task from step 1: no recorded step to replay");
    assert.doesNotMatch(forkNote(0, 0, 'gone'), /1\.\.0/);
    assert.equal(forkNote(3, 0, undefined), "no running or kept session has a snapshot of this recording's steps: replaying steps 1..3 to fork");
    assert.equal(forkNote(3, 2, undefined), 'restored the snapshot after step 2, replaying step 3');
  });

  test('the next-action document of an ended session names no step to run, and keeps what was typed', () => {
    const hint = endedHint('fork of run.traj after step 2', 'finished (submitted)');
    assert.equal(hint, '# SWE Workbench: fork of run.traj after step 2 finished (submitted); nothing saved here runs: start a fork by hand to continue');
    assert.doesNotMatch(hint, /step \d+ \(|save to run it/);
    assert.equal(withoutHint(`${hint}\nls -la`), 'ls -la', 'the typed action survives the new first line');
    assert.ok(isOnlyHint(`${hint}\n`));
  });
});
