// SWE-agent 0.7's own commands (../shared/oracles/swe-agent/v0.7.0/config/commands) against
// ours, call by call and byte for byte: 0.7 ran commands without a terminal, in a repository at
// /<owner>__<repo>, and kept its commands' output as printed.
import '../helpers/families';
import { conformanceGroup } from './conformanceGroup';
import { sweAgentFamily } from '../../extension/core/scaffolds/swe-agent';
import { V07_CALLS } from './sweAgentCalls';
import { SWE_AGENT_ORACLES, SweAgent07Reference, oracles } from './sweAgentReference';

const jq = SweAgent07Reference.jqMounts();

conformanceGroup({
  title: 'SWE-agent 0.7 commands (defaults, search, edit_linting, submit), ours against the reference',
  label: '0.7.0',
  calls: V07_CALLS,
  skip: oracles.skip || (typeof jq === 'string' ? jq : false),
  repoPath: '/tallyho__tallyho',
  tty: false,
  reference: (repoDir) => SweAgent07Reference.start({ repoDir, repoPath: '/tallyho__tallyho' }),
  // The tools a 0.7 replay runs: the scaffold's, which read a command line as 0.7 did.
  session: {
    tools: sweAgentFamily.create('0.7', undefined, { bundles: ['tools/defaults', 'tools/search', 'tools/edit_linting', 'tools/submit'] }).tools,
    config: { sweAgentVersion: '0.7' },
  },
});
