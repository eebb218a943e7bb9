// SWE-agent's own tools (../shared/oracles/swe-agent) against ours, call by call and byte for
// byte, per SWE-agent version: each group of calls runs through the reference bundles in one
// container and through our tools in another, on the same freshly generated repository, both
// under a pseudo-terminal as SWE-agent 1.x runs them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../extension/core/aci/aciSession';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { needsShared } from '../helpers/sharedFolder';
import { writeGeneratedRepo } from './generatedRepo';
import { describeMismatches, mismatches, startConformanceSandbox, type CallOutcome, type Mismatch } from './harness';
import { STR_REPLACE_EDITOR_CALLS, WINDOWED_LINTING_CALLS, WINDOWED_REPLACE_CALLS } from './sweAgentCalls';
import { ORACLE_VERSIONS, SWE_AGENT_ORACLES, SweAgentReference, type SweAgentOracle } from './sweAgentReference';

const skip = needsShared(SWE_AGENT_ORACLES);
const REPO_PATH = '/testbed';

interface Group {
  name: string;
  /** Bundle folders per version, in the agent config's order. */
  bundles: (oracle: SweAgentOracle) => string[];
  calls: readonly string[];
}

const windowed = (oracle: SweAgentOracle) => (oracle === 'v1.0.1' ? 'defaults' : 'windowed');
const groups: Group[] = [
  {
    name: 'windowed viewer, line-range edit behind flake8, search',
    bundles: (o) => ['registry', windowed(o), 'search', o === 'v1.0.1' ? 'edit_linting' : 'windowed_edit_linting'],
    calls: WINDOWED_LINTING_CALLS,
  },
  {
    name: 'windowed viewer, search-and-replace edit and insert behind flake8',
    bundles: (o) => ['registry', windowed(o), o === 'v1.0.1' ? 'edit_replace' : 'windowed_edit_replace'],
    calls: WINDOWED_REPLACE_CALLS,
  },
  { name: 'str_replace_editor', bundles: () => ['registry', 'edit_anthropic'], calls: STR_REPLACE_EDITOR_CALLS },
];

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

for (const oracle of ['v1.0.1', 'v1.1.0', '3ea751c0'] as const) {
  describe(`SWE-agent ${oracle} tools, ours against the reference`, () => {
    for (const group of groups) {
      describe(group.name, () => {
        const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-conformance-'));
        let reference: SweAgentReference | undefined;
        let sandbox: Sandbox | undefined;
        const referenceOutcomes: CallOutcome[] = [];
        const ourOutcomes: CallOutcome[] = [];

        before(async () => {
          if (skip) return;
          writeGeneratedRepo(host);
          const bundles = group.bundles(oracle);
          [reference, sandbox] = await Promise.all([
            SweAgentReference.start({ oracle, bundles, repoDir: host, repoPath: REPO_PATH, tty: true }),
            startConformanceSandbox({ repoDir: host, repoPath: REPO_PATH, tty: true }),
          ]);
          const session = new AciSession(sandbox, { bundles: bundles.map((b) => `tools/${b}`), config: { crlf: true, sweAgentVersion: ORACLE_VERSIONS[oracle] } });
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

        test(`${group.calls.length} calls print what SWE-agent ${oracle} prints, with the same exit codes and state`, { skip }, () => {
          const found = mismatches(group.calls, referenceOutcomes, ourOutcomes);
          dumpMismatches(`${oracle}-${group.name}`, found);
          assert.equal(found.length, 0, describeMismatches(found));
        });

        test('the repository ends byte for byte the same', { skip }, async () => {
          const tree = 'cd /testbed && git add -A >/dev/null && git diff --cached --binary | sha256sum && git status --porcelain | sha256sum';
          assert.equal((await sandbox!.exec(tree)).output, (await reference!.sandbox.exec(tree)).output);
        });
      });
    }
  });
}
