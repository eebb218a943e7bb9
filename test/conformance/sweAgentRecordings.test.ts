// Recordings made by SWE-agent's own tools (../shared/oracles/swe-agent), on a repository no test
// has seen, written as SWE-agent writes a .traj, replayed with ours through `swe-workbench replay`:
// every step must match byte for byte (no normaliser), and a changed repository must be caught at
// the first step that shows the change.
import '../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replay } from '../../extension/cli/replay';
import { BASE_IMAGE } from '../helpers/aciSandbox';
import { runCli } from '../helpers/cliRunner';
import { writeGeneratedRepo } from './generatedRepo';
import { SweAgent07Reference, SweAgentReference, type SweAgent0xOracle, type SweAgentOracle, oracles } from './sweAgentReference';

const skip = oracles.skip;
const jq = SweAgent07Reference.jqMounts();

const zeroX = (oracle: Script['oracle']): oracle is SweAgent0xOracle => oracle === 'v0.7.0' || oracle === 'v0.2.0';

/** 0.x kept the repository at /<owner>__<repo>; 1.x at /testbed. */
const repoPathOf = (script: Script) => (zeroX(script.oracle) ? '/tallyho__tallyho' : '/testbed');

interface Script {
  oracle: SweAgentOracle | SweAgent0xOracle;
  bundles: string[];
  actions: string[];
  /** The first step whose observation shows tallyho/counter.py's text (the changed file). */
  firstCounterStep: number;
  /** What the replay says it runs (a regular expression's source), when not the oracle's version for the stated one. */
  detected?: string;
  /** Tells two scripts of one oracle apart in the test's name. */
  what?: string;
}

const scripts: Script[] = [
  {
    oracle: 'v1.1.0',
    bundles: ['registry', 'windowed', 'search', 'windowed_edit_linting'],
    actions: [
      'find_file counter.py',
      'search_dir "def step_05" tallyho',
      'open tallyho/steps.py 120',
      'scroll_down',
      'open tallyho/counter.py',
      'goto 9',
      // the edit a replay under a pty used to let through
      'edit 10:10\n        self.value = (0\nend_of_edit',
      'edit 10:10\n        self.value = 0  # reset\nend_of_edit',
      'search_file value',
      'create tallyho/extra.py',
      'edit 1:1\nfrom .counter import Counter\n\n\ndef twice(c):\n    return c.bump(2)\nend_of_edit',
      'edit 5:5\n  return c.bump(2)\nend_of_edit',
      'python3 -c "import tallyho.extra as e, tallyho.counter as c; print(e.twice(c.Counter()))"',
      'ls tallyho',
      'cd tallyho && ls -a | head -3',
      'open counter.py 3',
      'cd /testbed',
      'scroll_up',
      'git status --short',
    ],
    firstCounterStep: 4,
  },
  {
    oracle: 'v1.0.1',
    bundles: ['registry', 'defaults', 'search', 'edit_replace', 'edit_anthropic'],
    actions: [
      'find_file "*.py" tallyho',
      'str_replace_editor view /testbed/tallyho/steps.py --view_range 1 12',
      'open tallyho/counter.py',
      // an edit introducing an IndentationError, as in marshmallow-1867's step 6: refused
      "edit '        self.value += by' 'self.value += by'",
      "edit '        self.value += by' '        self.value += int(by)'",
      "insert '    def double(self):\n        return self.bump(self.value)' 11",
      "str_replace_editor str_replace /testbed/tallyho/dup.py --old_str 'x = 1' --new_str 'x = 0'",
      "str_replace_editor str_replace /testbed/tallyho/dup.py --old_str 'z = 3' --new_str 'z = 4'",
      'str_replace_editor undo_edit /testbed/tallyho/dup.py',
      'create reproduce.py',
      "insert 'from tallyho import Counter\nprint(Counter(3).bump())'",
      'python3 reproduce.py',
      'search_dir Counter',
      'goto 1',
      'rm reproduce.py',
    ],
    firstCounterStep: 2,
  },
  {
    // SWE-agent from its main branch (3ea751c0) says swe_agent_version 1.1.0, as every run after
    // that release does; the window at steps.py's end (332 lines) is what tells it from 1.1.0.
    oracle: '3ea751c0',
    bundles: ['registry', 'windowed', 'search', 'windowed_edit_linting'],
    actions: [
      'find_file counter.py',
      'open tallyho/steps.py 330',
      'scroll_up',
      'open tallyho/counter.py',
      'goto 9',
      'edit 10:10\n        self.value = 0  # reset\nend_of_edit',
      'search_file value',
      'open tallyho/steps.py 200',
      'scroll_down',
      'create tallyho/extra.py',
      'ls tallyho',
    ],
    firstCounterStep: 3,
    what: 'labelled 1.1.0',
    detected:
      '3ea751c0 \\(the file says swe_agent_version 1\\.1\\.0; step 2 \\(`open tallyho/steps\\.py 330`\\) shows the window from line 233 of 332, as SWE-agent 3ea751c0 places it \\(1\\.1\\.0: from line 232\\)\\)',
  },
  {
    // The same, where no step can be read to tell them apart: the edit at the file's end shows its
    // window one line lower in 3ea751c0, which only running it under each version shows.
    oracle: '3ea751c0',
    bundles: ['registry', 'windowed', 'search', 'windowed_edit_linting'],
    what: 'telling the versions apart only by running',
    actions: ['open tallyho/steps.py', 'edit 332:332\n    return x + 1090\nend_of_edit', 'cat tallyho/counter.py'],
    firstCounterStep: 2,
    detected:
      '3ea751c0 \\(the file says swe_agent_version 1\\.1\\.0; step 2 \\(`edit 332:332`\\), replayed under 1\\.1\\.0 and 3ea751c0, prints what 3ea751c0 prints\\)',
  },
  {
    // 0.7 ran without a terminal, kept its commands' output as printed, and wrote no version.
    oracle: 'v0.7.0',
    bundles: ['defaults', 'search', 'edit_linting'],
    actions: [
      'find_file counter.py',
      'open tallyho/steps.py 200',
      'scroll_up',
      'open tallyho/counter.py',
      'edit 10:10\n        self.value = (0\nend_of_edit',
      'edit 10:10\n        self.value = 0  # reset\nend_of_edit',
      'search_file value',
      'search_dir Counter tallyho',
      'create reproduce.py',
      'edit 1:1\nfrom tallyho import Counter\nprint(Counter(3).bump())\nend_of_edit',
      'python3 reproduce.py',
      'goto 2',
      'rm reproduce.py',
    ],
    firstCounterStep: 3,
  },
  {
    // The paper's release (0.2): its lint rejection's wording (step 5) tells it from 0.7.
    oracle: 'v0.2.0',
    bundles: ['defaults', 'search', 'edit_linting'],
    actions: [
      'find_file counter.py',
      'open tallyho/steps.py 200',
      'scroll_up',
      'open tallyho/counter.py',
      'edit 10:10\n        self.value = (0\nend_of_edit',
      'edit 10:10\n        self.value = 0  # reset\nend_of_edit',
      'search_file value',
      'create reproduce.py',
      'edit 1:1\nfrom tallyho import Counter\nprint(Counter(3).bump())\nend_of_edit',
      'python3 reproduce.py',
      'open tallyho/broken.py',
      'edit 5:6\ndef fine():\n    return 3\nend_of_edit',
      'rm reproduce.py',
    ],
    firstCounterStep: 3,
    detected:
      '0\\.2 \\(its observations have no pseudo-terminal line ends.*; step 5 \\(`edit 10:10`\\) words its lint rejection "\\.\\.\\.retry your edit commmand\\." \\(sic\\), as SWE-agent 0\\.2 does\\)',
  },
];

/** The .traj SWE-agent 1.x writes, for a thought-action run with these bundles. */
function sweAgentTraj(script: Script, steps: Array<{ action: string; observation: string; state: Record<string, unknown> }>): string {
  const version = { 'v0.2.0': undefined, 'v0.7.0': undefined, 'v1.0.1': '1.0.1', 'v1.1.0': '1.1.0', '3ea751c0': '1.1.0' }[script.oracle];
  const replayConfig = {
    env: { deployment: { image: BASE_IMAGE, type: 'docker' }, repo: { repo_name: 'testbed', type: 'preexisting' } },
    agent: {
      tools: {
        bundles: script.bundles.map((b) => ({ path: `tools/${b}`, hidden_tools: [] })),
        env_variables: { WINDOW: 100, OVERLAP: 2 },
        parse_function: { type: 'thought_action' },
      },
    },
    problem_statement: { id: 'tallyho-1', text: 'Counter.reset should say so.' },
  };
  return JSON.stringify({
    environment: 'main',
    trajectory: steps.map((s, i) => ({
      action: s.action,
      observation: s.observation,
      response: `DISCUSSION\nStep ${i}.\n\n\`\`\`\n${s.action}\n\`\`\``,
      thought: `Step ${i}.`,
      execution_time: 0.1,
      state: { open_file: s.state.open_file ?? 'n/a', working_dir: s.state.working_dir },
      query: [],
      extra_info: {},
    })),
    history: [],
    info: { ...(version ? { swe_agent_version: version } : {}), exit_status: 'exit_forfeit' },
    replay_config: JSON.stringify(replayConfig),
  });
}

for (const script of scripts) {
  describe(`a recording made by SWE-agent ${script.oracle}'s tools (${script.bundles.join(', ')})${script.what ? `, ${script.what}` : ''}`, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-recording-'));
    const repo = path.join(dir, 'repo');
    const traj = path.join(dir, 'run.traj');

    const skipped = skip || (zeroX(script.oracle) && typeof jq === 'string' ? jq : false);
    before(async () => {
      if (skipped) return;
      writeGeneratedRepo(repo);
      const reference = zeroX(script.oracle)
        ? await SweAgent07Reference.start({ repoDir: repo, repoPath: repoPathOf(script), oracle: script.oracle })
        : await SweAgentReference.start({ oracle: script.oracle, bundles: script.bundles, repoDir: repo, repoPath: repoPathOf(script), tty: true });
      try {
        const steps = [];
        for (const action of script.actions) {
          const { observation, state } = await reference.call(action);
          steps.push({ action, observation, state: state ?? {} });
        }
        writeFileSync(traj, sweAgentTraj(script, steps));
      } finally {
        await reference.dispose();
      }
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const replayed = async (repoDir: string) => {
      const r = await runCli(replay, [traj, '--image', BASE_IMAGE, '--repo', repoDir, '--json', '--forgive', '']);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as { index?: number; matched?: boolean; diff?: string; summary?: { firstDivergence: number | null; matched: number; steps: number } },
        );
      return { code: r.code, stderr: r.stderr, steps: lines.filter((l) => l.index !== undefined), summary: lines.at(-1)?.summary };
    };

    test('replayed with our tools, every step matches byte for byte', { skip: skipped }, async () => {
      const r = await replayed(repo);
      const diverged = r.steps.filter((s) => !s.matched).map((s) => `step ${s.index}:\n${s.diff}`);
      assert.deepEqual(diverged, [], r.stderr);
      assert.equal(r.steps.length, script.actions.length);
      assert.equal(r.code, 0);
      const version =
        script.detected ??
        (script.oracle === 'v0.7.0'
          ? '0\\.7 \\(its observations have no pseudo-terminal line ends'
          : `${script.oracle.slice(1).replace(/\./g, '\\.')} \\(the file says swe_agent_version`);
      assert.match(r.stderr, new RegExp(`scaffold swe-agent@${version}`));
    });

    test('on a changed repository the replay diverges at the first step that shows the change', { skip: skipped }, async () => {
      const changed = path.join(dir, 'changed');
      rmSync(changed, { recursive: true, force: true });
      writeGeneratedRepo(changed);
      appendFileSync(path.join(changed, 'tallyho/counter.py'), '\n    def changed(self):\n        return None\n');
      const r = await replayed(changed);
      assert.equal(r.summary?.firstDivergence, script.firstCounterStep);
      assert.ok(
        r.steps.slice(0, script.firstCounterStep).every((s) => s.matched),
        'the steps before it still match',
      );
      assert.equal(r.code, 1);
    });
  });
}
