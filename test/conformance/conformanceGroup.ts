/**
 * One conformance group as a node:test suite: the calls go to a reference implementation and to
 * our tools, each in its own container on the same freshly generated repository; every outcome
 * and the final repository are compared. Used by each family's conformance file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../extension/core/aci/aciSession';
import { sessionOptions, type TestSessionOptions } from '../helpers/aciSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { writeGeneratedRepo } from './generatedRepo';
import { describeMismatches, mismatches, startConformanceSandbox, type CallOutcome, type Mismatch } from './harness';

/** SWB_CONFORMANCE_DUMP=DIR writes every mismatch as JSON there, to read in full. */
function dumpMismatches(name: string, found: readonly Mismatch[]): void {
  const dir = process.env.SWB_CONFORMANCE_DUMP;
  if (dir) writeFileSync(path.join(dir, `${name.replace(/[^\w.-]+/g, '_')}.json`), JSON.stringify(found, null, 1));
}

/** Our outcome of one call, with the state keys the reference records. */
async function ours(session: AciSession, call: string, keys: readonly string[]): Promise<CallOutcome> {
  const r = await session.runCommand(call);
  const state = r.state as unknown as Record<string, unknown>;
  return { observation: r.observation, exitCode: r.exitCode, state: Object.fromEntries(keys.map((k) => [k, state[k]])) };
}

/** A reference whose calls can be compared with ours. */
export interface Reference {
  readonly sandbox: Sandbox;
  call(action: string): Promise<CallOutcome>;
  dispose(): Promise<void>;
}

/**
 * One group: the calls go to the reference and to our tools, each in its own container on the
 * same freshly generated repository; then every outcome and the final repository are compared.
 */
export function conformanceGroup(group: {
  title: string;
  label: string;
  calls: readonly string[];
  skip: string | false;
  repoPath: string;
  tty: boolean;
  reference: (repoDir: string) => Promise<Reference>;
  session: TestSessionOptions;
  /** Writes the repository both sides start from into the (empty) folder; default: a generated package. */
  repository?: (dir: string) => unknown;
}): void {
  describe(group.title, () => {
    const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-conformance-'));
    let reference: Reference | undefined;
    let sandbox: Sandbox | undefined;
    const referenceOutcomes: CallOutcome[] = [];
    const ourOutcomes: CallOutcome[] = [];

    before(async () => {
      if (group.skip) return;
      await (group.repository ?? writeGeneratedRepo)(host);
      [reference, sandbox] = await Promise.all([group.reference(host), startConformanceSandbox({ repoDir: host, repoPath: group.repoPath, tty: group.tty })]);
      const session = new AciSession(sandbox, sessionOptions(group.session));
      for (const call of group.calls) {
        const ref = await reference.call(call);
        referenceOutcomes.push(ref);
        ourOutcomes.push(await ours(session, call, Object.keys(ref.state ?? {})));
      }
    });
    after(async () => {
      await Promise.all([reference?.dispose(), sandbox?.dispose()]);
      rmSync(host, { recursive: true, force: true });
    });

    test(`${group.calls.length} calls print what SWE-agent ${group.label} prints, with the same exit codes and state`, { skip: group.skip }, () => {
      const found = mismatches(group.calls, referenceOutcomes, ourOutcomes);
      dumpMismatches(`${group.label}-${group.title}`, found);
      assert.equal(found.length, 0, describeMismatches(found));
    });

    test('the repository ends byte for byte the same', { skip: group.skip }, async () => {
      const tree = `cd ${group.repoPath} && git add -A >/dev/null && git diff --cached --binary | sha256sum && git status --porcelain | sha256sum`;
      assert.equal((await sandbox!.exec(tree)).output, (await reference!.sandbox.exec(tree)).output);
    });
  });
}
