// SWE-agent 0.2's own commands (../shared/oracles/swe-agent/v0.2.0/config/commands, the paper's
// release) against ours, call by call and byte for byte, as for 0.7: no terminal, the repository
// at /<owner>__<repo>, output kept as printed. 0.2 differs in its lint guard (every finding in the
// file refuses an edit, listed as `_split_string` prints it) and its wording.
import '../helpers/families';
import { conformanceGroup } from './conformanceGroup';
import { sweAgentFamily } from '../../extension/core/scaffolds/swe-agent';
import { V02_CALLS } from './sweAgentCalls';
import { SweAgent07Reference, oracles } from './sweAgentReference';

const jq = SweAgent07Reference.jqMounts();

conformanceGroup({
  title: 'SWE-agent 0.2 commands (defaults with submit, search, edit_linting), ours against the reference',
  label: '0.2.0',
  calls: V02_CALLS,
  skip: oracles.skip || (typeof jq === 'string' ? jq : false),
  repoPath: '/tallyho__tallyho',
  tty: false,
  reference: (repoDir) => SweAgent07Reference.start({ repoDir, repoPath: '/tallyho__tallyho', oracle: 'v0.2.0' }),
  // The tools a 0.2 replay runs: the scaffold's, which read a command line as 0.x did.
  session: {
    tools: sweAgentFamily.create('0.2', undefined, { bundles: ['tools/defaults', 'tools/search', 'tools/edit_linting', 'tools/submit'] }).tools,
    config: { sweAgentVersion: '0.2' },
  },
});
