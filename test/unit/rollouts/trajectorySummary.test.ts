import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { factsThrough } from '../../../extension/core/rollouts/fileEntry';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { documentKind } from '../../../extension/core/rollouts/runDocuments';
import { importRolloutTrajectory } from '../../../extension/core/rollouts/trajectoryImport';
import { summarizeTrajectory } from '../../../extension/core/rollouts/trajectorySummary';
import { writeGeneratedRun } from '../../../bench/rollouts/generatedRun';
import { makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const fullFacts = factsThrough(importRolloutTrajectory);

function* documents(root: string): Generator<{ file: string; line: number | undefined; value: unknown }> {
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !/\.(json|jsonl|traj)$/.test(e.name)) continue;
    const abs = join(e.parentPath, e.name);
    const file = relative(root, abs);
    const text = readFileSync(abs, 'utf8');
    const parse = (t: string) => {
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return undefined;
      }
    };
    if (!e.name.endsWith('.jsonl')) yield { file, line: undefined, value: parse(text) };
    else for (const [i, l] of text.split('\n').entries()) if (l.trim() !== '') yield { file, line: i + 1, value: parse(l) };
  }
}

/** Every trajectory document under `root`, with the facts both readers give (or the error each throws). */
function compareReaders(root: string): { compared: number; formats: Set<string> } {
  const outcome = (read: typeof fullFacts, d: { file: string; line: number | undefined; value: unknown }) => {
    try {
      return read(d.value, d.file, d.line);
    } catch (err) {
      return (err as Error).message;
    }
  };
  let compared = 0;
  const formats = new Set<string>();
  for (const d of documents(root)) {
    if (d.value === undefined || documentKind(basename(d.file), d.value) !== 'trajectory') continue;
    const full = outcome(fullFacts, d);
    assert.deepEqual(outcome(summarizeTrajectory, d), full, `${d.file}${d.line ? `:${d.line}` : ''}`);
    if (Array.isArray(full)) for (const f of full) formats.add(f.format);
    compared++;
  }
  return { compared, formats };
}

describe('the index reads the same facts as the full import', () => {
  let fixtures: ReturnType<typeof makeRolloutFolder>;
  let generated: string;
  // The generated run is this project's own; only the fixtures folder needs ../shared.
  before(() => {
    generated = mkdtempSync(join(tmpdir(), 'swe-workbench-generated-run-'));
    writeGeneratedRun(generated, 12, 10);
  });
  thirdPartyFiles.before(() => {
    fixtures = makeRolloutFolder();
  });
  after(() => rmSync(generated, { recursive: true, force: true }));
  thirdPartyFiles.after(() => fixtures.cleanup());

  thirdPartyFiles.test('third-party fixtures and the training run: every trajectory, fact by fact', () => {
    const { compared, formats } = compareReaders(fixtures.root);
    assert.ok(compared >= 20, `compared ${compared}`);
    for (const f of ['swe-agent', 'mini-swe-agent', 'r2e-gym', 'openhands', 'rllm']) assert.ok(formats.has(f), f);
  });

  test("the benchmark's generated run: every trajectory, fact by fact", () => {
    const { compared, formats } = compareReaders(generated);
    assert.equal(compared, 120);
    assert.deepEqual([...formats].sort(), ['mini-swe-agent', 'r2e-gym', 'swe-agent']);
  });

  for (const [name, root] of [
    ['fixtures and training run', () => fixtures.root],
    ['generated run', () => generated],
  ] as const) {
    (name === 'generated run' ? test : thirdPartyFiles.test)(`${name}: the same rows, classes and errors as an index through the full import`, async () => {
      const summary = await indexRollouts(root());
      const full = await indexRollouts(root(), { importTrajectory: importRolloutTrajectory });
      assert.deepEqual(summary.rollouts, full.rollouts);
      assert.deepEqual(summary.errors, full.errors);
      assert.ok(new Set(summary.rollouts.map((r) => r.failure)).size >= 2);
    });
  }

  test('a wrong type in a field the facts read is a located error', () => {
    const value = { trajectory_steps: [{ action: 'ls', observation: 'a' }, { action: 7, observation: 'b' }], exit_reason: 'agent' };
    assert.throws(() => summarizeTrajectory(value, 'run.jsonl', 3), { message: 'run.jsonl: $.trajectory_steps[1].action: expected a string, got number' });
  });
});
