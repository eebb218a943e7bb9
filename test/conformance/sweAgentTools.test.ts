// SWE-agent's own tools (../shared/oracles/swe-agent) against ours, call by call and byte for
// byte, per SWE-agent version: each group of calls runs through the reference bundles in one
// container and through our tools in another, on the same freshly generated repository, both
// under a pseudo-terminal as SWE-agent 1.x runs them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession, type AciSessionOptions } from '../../extension/core/aci/aciSession';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { needsShared } from '../helpers/sharedFolder';
import { writeGeneratedRepo } from './generatedRepo';
import { describeMismatches, mismatches, startConformanceSandbox, type CallOutcome, type Mismatch } from './harness';
import { STR_REPLACE_EDITOR_CALLS, V07_CALLS, WINDOWED_LINTING_CALLS, WINDOWED_REPLACE_CALLS } from './sweAgentCalls';
import { ORACLE_VERSIONS, SWE_AGENT_ORACLES, SweAgent07Reference, SweAgentReference, type SweAgentOracle } from './sweAgentReference';

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

/** A reference whose calls can be compared with ours. */
interface Reference {
  readonly sandbox: Sandbox;
  call(action: string): Promise<CallOutcome>;
  dispose(): Promise<void>;
}

/**
 * One group: the calls go to the reference and to our tools, each in its own container on the
 * same freshly generated repository; then every outcome and the final repository are compared.
 */
function conformanceGroup(group: {
  title: string;
  label: string;
  calls: readonly string[];
  skip: string | false;
  repoPath: string;
  tty: boolean;
  reference: (repoDir: string) => Promise<Reference>;
  session: AciSessionOptions;
}): void {
  describe(group.title, () => {
    const host = mkdtempSync(path.join(tmpdir(), 'swe-workbench-conformance-'));
    let reference: Reference | undefined;
    let sandbox: Sandbox | undefined;
    const referenceOutcomes: CallOutcome[] = [];
    const ourOutcomes: CallOutcome[] = [];

    before(async () => {
      if (group.skip) return;
      writeGeneratedRepo(host);
      [reference, sandbox] = await Promise.all([group.reference(host), startConformanceSandbox({ repoDir: host, repoPath: group.repoPath, tty: group.tty })]);
      const session = new AciSession(sandbox, group.session);
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

for (const oracle of ['v1.0.1', 'v1.1.0', '3ea751c0'] as const) {
  describe(`SWE-agent ${oracle} tools, ours against the reference`, () => {
    for (const group of groups) {
      const bundles = group.bundles(oracle);
      conformanceGroup({
        title: group.name,
        label: oracle,
        calls: group.calls,
        skip,
        repoPath: REPO_PATH,
        tty: true,
        reference: (repoDir) => SweAgentReference.start({ oracle, bundles, repoDir, repoPath: REPO_PATH, tty: true }),
        session: { bundles: bundles.map((b) => `tools/${b}`), config: { crlf: true, sweAgentVersion: ORACLE_VERSIONS[oracle] } },
      });
    }
  });
}

// 0.7 ran commands without a terminal, in a repository at /<owner>__<repo>.
const jq = SweAgent07Reference.jqMounts();
conformanceGroup({
  title: 'SWE-agent 0.7 commands (defaults, search, edit_linting), ours against the reference',
  label: '0.7.0',
  calls: V07_CALLS,
  skip: skip || (typeof jq === 'string' ? jq : false),
  repoPath: '/tallyho__tallyho',
  tty: false,
  reference: (repoDir) => SweAgent07Reference.start({ repoDir, repoPath: '/tallyho__tallyho' }),
  session: { bundles: ['tools/defaults', 'tools/search', 'tools/edit_linting'], config: { sweAgentVersion: '0.7' } },
});
