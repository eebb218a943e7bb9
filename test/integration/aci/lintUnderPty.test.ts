// The flake8 guard refuses the same edits with and without a pseudo-terminal: a replay of a
// recording made under a pty (SWE-agent 1.x) runs its shell under one, the `aci` command and a
// live run do not. Under a pty flake8 colours its findings; the guard must still read them.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../../extension/core/aci/aciSession';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { ACI_TEST_LABEL, BASE_IMAGE } from '../../helpers/aciSandbox';
import { materializeSampleRepo } from '../../helpers/sampleRepo';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

describe('the lint guard with and without a pseudo-terminal', () => {
  let host: string;
  const sandboxes = new Map<'pty' | 'pipe', Sandbox>();

  before(async () => {
    host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-pty-'));
    const repo = await materializeSampleRepo(path.join(host, 'repo'));
    for (const mode of ['pty', 'pipe'] as const) {
      sandboxes.set(
        mode,
        await DockerSandbox.create({ image: BASE_IMAGE, repoDir: repo.dir, repoPath: '/repo', tty: mode === 'pty', labels: { [ACI_TEST_LABEL]: 'aci' } }),
      );
    }
  });
  after(async () => {
    await Promise.all([...sandboxes.values()].map((s) => s.dispose()));
    if (host) await rm(host, { recursive: true, force: true });
  });

  for (const [name, edit, error] of [
    ["a linted edit leaving '(' unclosed", 'edit 14:14\n        raise TypeError("unclosed"\nend_of_edit', /- E999 SyntaxError: '\(' was never closed/],
    ['a replacement that loses its indentation', `edit '        raise TypeError("use a string' 'raise TypeError("use a string'`, /- E999 IndentationError/],
  ] as const) {
    test(`${name} is refused the same way under a pty and without one`, async () => {
      const bundleEdit = edit.startsWith("edit '") ? ['windowed', 'windowed_edit_replace'] : ['windowed', 'windowed_edit_linting'];
      const outcomes = [];
      for (const mode of ['pty', 'pipe'] as const) {
        const session = new AciSession(sandboxes.get(mode)!, { tools: toolSetFor(bundleEdit), config: { crlf: mode === 'pty' } });
        await session.runCommand('open ledger/money.py');
        const r = await session.runCommand(edit);
        outcomes.push({ observation: r.observation.replace(/\r\n/g, '\n'), exitCode: r.exitCode });
        assert.equal((await session.sandbox.exec('git status --porcelain')).output, '', `${mode}: the file is left as it was`);
      }
      assert.match(outcomes[0]!.observation, error);
      assert.deepEqual(outcomes[0], outcomes[1]);
    });
  }
});
