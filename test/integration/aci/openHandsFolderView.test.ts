// OpenHands' folder view in a real container: the listing and the count of hidden entries the
// agent reads, whether one find answers both or the two-find listing has to (a find that fails).
import '../../helpers/families';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openHandsFamily } from '../../../extension/core/scaffolds/openhands';
import { startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';

describe("OpenHands' folder view", () => {
  let aci: AciFixture;
  before(async () => {
    const scaffold = openHandsFamily.create('codeact');
    aci = await startAciOnSampleRepo({ tools: scaffold.tools, config: scaffold.config, present: (r) => scaffold.present!(r) });
    // Hidden entries at the top (a file, a folder with content, a link to a folder, a broken link,
    // a name with a newline) and below it; a visible folder with a space.
    const made = await aci.sandbox.exec(
      [
        'mkdir -p /v/.hid/deep /v/sub/.x "/v/sp ace"',
        'touch /v/.a /v/.hid/h /v/sub/f /v/top',
        "touch $'/v/.n\\nl'",
        'ln -s /v/sub /v/.lnk',
        'ln -s /nowhere /v/.broken',
      ].join(' && '),
    );
    assert.equal(made.exitCode, 0, made.output);
  });
  after(() => aci?.dispose());

  const view = (path: string) => aci.session.runTool('str_replace_editor', { command: 'view', path });

  test('lists two levels without hidden entries, folders marked, and counts the hidden entries at the top as wc -l does', async () => {
    const r = await view('/v');
    assert.equal(
      r.observation,
      "Here's the files and directories up to 2 levels deep in /v, excluding hidden items:\n/v/\n/v/sp ace/\n/v/sub/\n/v/sub/f\n/v/top\n\n" +
        // .a, .hid, .lnk, .broken, and .n<newline>l counted twice, as its path prints on two lines.
        "6 hidden files/directories in this directory are excluded. You can use 'ls -la /v' to see them.",
    );
  });

  test('a folder whose find meets a link loop is listed the same way, with the error find printed', async () => {
    const made = await aci.sandbox.exec('mkdir -p /w/in && touch /w/.h && ln -s /w /w/in/up');
    assert.equal(made.exitCode, 0, made.output);
    const r = await view('/w');
    assert.match(r.observation, /^Here's the files and directories up to 2 levels deep in \/w, excluding hidden items:\n/);
    assert.match(r.observation, /File system loop detected/);
    assert.match(r.observation, /\n\/w\/\n\/w\/in\/\n\n1 hidden files\/directories in this directory are excluded\. You can use 'ls -la \/w' to see them\.$/);
  });

  test('a folder without hidden entries says nothing of them', async () => {
    const r = await view('/v/sp ace');
    assert.equal(r.observation, "Here's the files and directories up to 2 levels deep in /v/sp ace, excluding hidden items:\n/v/sp ace/");
  });
});
