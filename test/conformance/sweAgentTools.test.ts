// SWE-agent's own tools (../shared/oracles/swe-agent) against ours, call by call and byte for
// byte, per SWE-agent version: each group of calls runs through the reference bundles in one
// container and through our tools in another, on the same freshly generated repository, both
// under a pseudo-terminal as SWE-agent 1.x runs them.
import { describe } from 'node:test';
import { conformanceGroup } from './conformanceGroup';
import { materializeSampleRepo } from '../helpers/sampleRepo';
import { PATH_CALLS, SAMPLE_REPO_CALLS, STR_REPLACE_EDITOR_CALLS, WINDOWED_LINTING_CALLS, WINDOWED_REPLACE_CALLS } from './sweAgentCalls';
import { ORACLE_VERSIONS, SWE_AGENT_ORACLES, SweAgentReference, type SweAgentOracle, oracles } from './sweAgentReference';

const skip = oracles.skip;
const REPO_PATH = '/testbed';

interface Group {
  name: string;
  /** Bundle folders per version, in the agent config's order. */
  bundles: (oracle: SweAgentOracle) => string[];
  calls: readonly string[];
  /** Default: a freshly generated package. */
  repository?: (dir: string) => unknown;
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
  {
    name: 'paths through symlinks, `..`, spaces and quotes, and after `cd`: search, viewer, str_replace_editor',
    bundles: (o) => ['registry', windowed(o), 'search', 'edit_anthropic'],
    calls: PATH_CALLS,
  },
  {
    name: 'on the sample repository: viewer, linted edit, search, str_replace_editor',
    bundles: (o) => ['registry', windowed(o), 'search', o === 'v1.0.1' ? 'edit_linting' : 'windowed_edit_linting', 'edit_anthropic'],
    calls: SAMPLE_REPO_CALLS,
    repository: (dir) => materializeSampleRepo(dir),
  },
];

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
        ...(group.repository ? { repository: group.repository } : {}),
      });
    }
  });
}
