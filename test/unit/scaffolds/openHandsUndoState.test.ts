import '../../helpers/families';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { AciSession, type AciToolState } from '../../../extension/core/aci/aciSession';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import { openHandsFamily } from '../../../extension/core/scaffolds/openhands';

test("OpenHands' undo history is part of the tools' state: a fork restored from it (copied as JSON) undoes the edits made before it, and later edits do not leak into it", async () => {
  const sandbox = await LocalSandbox.create({ image: 'local', repoPath: '/repo' });
  const aci = new AciSession(sandbox, { tools: openHandsFamily.create('codeact').tools });
  const file = `${sandbox.repoPath}/notes.txt`;
  const edit = async (args: Record<string, unknown>) => {
    const r = await aci.runTool('str_replace_editor', { path: file, ...args });
    assert.equal(r.exitCode, 0, r.observation);
    return r;
  };
  const content = () => readFile(file, 'utf8');
  try {
    await edit({ command: 'create', file_text: 'one\n' });
    await edit({ command: 'str_replace', old_str: 'one', new_str: 'two' });
    // The state a fork keeps (forkSnapshots writes it beside the tar): JSON and back, as the host copies a family's slot.
    const saved = JSON.parse(JSON.stringify(aci.toolState())) as AciToolState;
    await edit({ command: 'str_replace', old_str: 'two', new_str: 'three' });
    await edit({ command: 'undo_edit' });
    await edit({ command: 'undo_edit' });
    await edit({ command: 'undo_edit' });
    assert.equal(await content(), '', 'three undos take the file back to before its creation');
    const none = await aci.runTool('str_replace_editor', { command: 'undo_edit', path: file });
    assert.equal(none.observation, `ERROR:\nNo edit history found for ${file}.`);

    // A fork at the second edit: the workspace as it was then, and the tools' state saved then.
    await writeFile(file, 'two\n');
    await aci.restoreToolState(saved);
    await edit({ command: 'undo_edit' });
    assert.equal(await content(), 'one\n');
    await edit({ command: 'undo_edit' });
    assert.equal(await content(), '');
    const after = await aci.runTool('str_replace_editor', { command: 'undo_edit', path: file });
    assert.equal(after.observation, `ERROR:\nNo edit history found for ${file}.`, "the third edit, made after the save, is not in the fork's history");
  } finally {
    await aci.dispose();
  }
});
