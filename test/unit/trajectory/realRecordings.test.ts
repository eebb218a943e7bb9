/**
 * The corpus of real recordings (test/fixtures/recordings, one MANIFEST.tsv row each): files other
 * projects' own runs wrote, opened through the product's loading path and checked as a user would
 * check them: it opens; its agent steps are counted as its producer counts them; every agent step
 * has a parsed action, except where the producer itself recorded none; the scaffold label is right
 * or says it is unsure.
 *
 * A row the product cannot handle yet says `awaits: <work>` in its `status` column: its failures
 * are reported as TODO, not hidden; once such a row passes, its test fails until the mark is
 * removed, so the manifest always says what the product does today. The summary line printed at
 * the end (opened / all checks hold, out of N, by kind) is the issue's "of N real recordings, M
 * open" measurement.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { agentSteps } from '../../../extension/core/trajectory/copiedContext';
import { detectScaffold } from '../../../extension/core/scaffolds/registry';
import type { ScaffoldChoice } from '../../../extension/core/scaffolds/scaffold';
import { repoRoot } from '../../helpers/trajectoryFiles';

const corpus = path.join(repoRoot, 'test/fixtures/recordings');
const COLUMNS = [
  'file',
  'record',
  'source_repo',
  'source_path',
  'commit',
  'licence',
  'producer',
  'producer_version',
  'steps',
  'steps_how',
  'no_action_steps',
  'scaffold',
  'status',
] as const;
type Row = Record<(typeof COLUMNS)[number], string> & { line: number };

function readManifest(): Row[] {
  const [header, ...lines] = readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8').split('\n');
  assert.deepEqual(header?.split('\t'), [...COLUMNS], 'MANIFEST.tsv: unexpected header');
  return lines.flatMap((text, i) => {
    if (text.trim() === '') return [];
    const cells = text.split('\t');
    assert.equal(cells.length, COLUMNS.length, `MANIFEST.tsv:${i + 2}: expected ${COLUMNS.length} tab-separated cells, got ${cells.length}`);
    return [{ ...(Object.fromEntries(COLUMNS.map((c, j) => [c, cells[j]!])) as Record<(typeof COLUMNS)[number], string>), line: i + 2 }];
  });
}

/** `-`, or 1-based agent step numbers separated by commas. */
function stepNumbers(cell: string): Set<number> {
  return new Set(cell === '-' ? [] : cell.split(',').map(Number));
}

/** A label that does not claim what it cannot tell: a fallback, versions left undecided, or an explicit unknown. */
function saysUnsure(choice: ScaffoldChoice): boolean {
  return choice.fallback !== undefined || (choice.undecided?.length ?? 0) > 1 || saysUnknown(choice);
}

function saysUnknown(choice: ScaffoldChoice): boolean {
  return choice.unknown !== undefined || /unknown/i.test(`${choice.name} ${choice.version}`);
}

/**
 * The manifest's `name`, `name@versionPrefix` or `unsure` (or several, `|`-separated), against the label the product gives.
 * Where the file tells its scaffold, the label must name it, and its version (or one of the
 * versions it leaves undecided) must be of the right line: being unsure between two wrong versions
 * is still wrong. Saying "unknown" outright is never wrong.
 */
function labelHolds(expected: string, choice: ScaffoldChoice): boolean {
  if (expected.includes('|')) return expected.split('|').some((one) => labelHolds(one, choice));
  if (expected === 'unsure') return saysUnsure(choice);
  if (saysUnknown(choice)) return true;
  const [name, version = ''] = expected.split('@');
  return choice.name === name && [choice.version, ...(choice.undecided ?? [])].some((v) => v.startsWith(version));
}

function describeLabel(choice: ScaffoldChoice): string {
  return `${choice.name}@${choice.version} (${choice.reason}${choice.undecided ? `; undecided: ${choice.undecided.join(', ')}` : ''}${choice.fallback ? `; ${choice.fallback}` : ''})`;
}

/** What a user checking this recording would find wrong; empty when every check holds. */
function failedChecks(row: Row, t: Trajectory): string[] {
  const failures: string[] = [];
  const expectedSteps = Number(row.steps);
  // The agent steps as the product counts them (inspect, the rollouts table, a reward's step count):
  // a message shown in its place or a step copied in for context is not one.
  const steps = agentSteps(t.steps);
  if (steps.length !== expectedSteps) failures.push(`${steps.length} agent steps, its producer counts ${expectedSteps} (${row.steps_how})`);
  const none = stepNumbers(row.no_action_steps);
  const unparsed = steps.flatMap((s, i) => (none.has(i + 1) || (s.action.tool ?? '') !== '' ? [] : [i + 1]));
  if (unparsed.length > 0)
    failures.push(
      `no parsed action at agent step${unparsed.length > 1 ? 's' : ''} ${unparsed.slice(0, 12).join(', ')}${unparsed.length > 12 ? ', ...' : ''} of ${steps.length}`,
    );
  const choice = detectScaffold(t);
  if (!labelHolds(row.scaffold, choice))
    failures.push(
      `labelled ${describeLabel(choice)}, expected ${row.scaffold === 'unsure' ? 'a label that says it is unsure' : `${row.scaffold} (or among the versions left undecided)`}`,
    );
  return failures;
}

const rows = readManifest();
const tally = new Map<string, { files: number; opened: number; passed: number }>();

describe('real recordings (test/fixtures/recordings/MANIFEST.tsv)', () => {
  test('the manifest names every file in the folder, each with its source, commit and licence', () => {
    for (const row of rows) {
      assert.ok(existsSync(path.join(corpus, row.file)), `MANIFEST.tsv:${row.line}: ${row.file} is missing`);
      assert.match(row.commit, /^[0-9a-f]{40}$/, `MANIFEST.tsv:${row.line}: commit`);
      assert.match(row.source_repo, /^[\w.-]+\/[\w.-]+$/, `MANIFEST.tsv:${row.line}: source_repo`);
      assert.match(row.licence, /^(MIT|Apache-2\.0)\b/, `MANIFEST.tsv:${row.line}: licence`);
      assert.match(row.steps, /^\d+$/, `MANIFEST.tsv:${row.line}: steps`);
      assert.match(row.status, /^(ok|awaits: .+)$/, `MANIFEST.tsv:${row.line}: status`);
    }
    assert.ok(rows.length >= 40, `${rows.length} rows`);
  });

  for (const row of rows) {
    const name = `${row.file}${row.record ? ` record ${row.record}` : ''}: ${row.producer} ${row.producer_version}`;
    const awaits = row.status.startsWith('awaits: ') ? row.status : undefined;
    test(name, async (t) => {
      const kind = row.file.split('/')[0]!;
      const counts = tally.get(kind) ?? { files: 0, opened: 0, passed: 0 };
      tally.set(kind, counts);
      counts.files++;
      let failures: string[];
      try {
        const loaded = await loadTrajectory(path.join(corpus, row.file), row.record ? { record: Number(row.record) } : {});
        counts.opened++;
        failures = failedChecks(row, loaded.trajectory);
      } catch (err) {
        failures = [`does not open: ${(err as Error).message}`];
      }
      if (failures.length === 0) counts.passed++;
      if (awaits) {
        assert.ok(failures.length > 0, `MANIFEST.tsv:${row.line}: every check holds now: set its status from '${awaits}' to 'ok'`);
        t.todo(awaits);
      }
      assert.deepEqual(failures, [], `MANIFEST.tsv:${row.line}: ${row.file}${row.record ? ` record ${row.record}` : ''}`);
    });
  }

  after(() => {
    const total = { files: 0, opened: 0, passed: 0 };
    const kinds = [...tally].sort(([a], [b]) => a.localeCompare(b));
    for (const [, c] of kinds) for (const k of ['files', 'opened', 'passed'] as const) total[k] += c[k];
    const line = (label: string, c: typeof total) => `${label}: ${c.opened} of ${c.files} open, ${c.passed} of ${c.files} pass every check`;
    console.log(['real recordings:', ...kinds.map(([kind, c]) => `  ${line(kind, c)}`), `  ${line('all', total)}`].join('\n'));
  });
});
