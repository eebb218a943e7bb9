/**
 * `swe-workbench bug validate DIR`: the seven consistency checks of a bug folder, run in
 * containers of IMAGE that hold a copy of REPO; exits 1 when any check fails.
 */
import { stat } from 'node:fs/promises';
import { loadBugArtifact } from '../core/bugs/bugArtifact';
import { CHECK_NAMES, runConsistencyChecks, type CheckResult } from '../core/bugs/consistencyChecks';
import { createSandbox } from '../core/runtime/createSandbox';
import { CliError, parseCommandArgs, type Command } from './command';

const USAGE = `usage: swe-workbench bug validate DIR --image IMAGE --repo REPO [--parallel N] [--min-files N]
                                 [--base REF] [--workdir /testbed] [--timeout SECONDS] [--local] [--json | --jsonl]

Runs the seven consistency checks of the bug folder DIR (test_script.sh, test_files.txt,
test_parser.py, bug_inject.diff, test_weaken.diff) in containers of IMAGE holding a copy of the
git repository REPO at --workdir; diffs apply against --base (default HEAD).
  --parallel N    containers for inverse mutation (default 2)
  --min-files N   least number of source files the bug must change (default 1)
  --timeout S     limit of one test run (default 600)
  --local         run in temporary copies on this machine instead of containers (no isolation);
                  this also happens, with a notice, when no Docker engine answers
  --json          print the checks as one JSON array; --jsonl prints one JSON line per check as it ends
Exits 0 when every check passes, 1 when one fails, 2 on a usage error.`;

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} expects a whole number of at least 1, got '${value}'`);
  return n;
}

const publicView = (r: CheckResult) => ({ name: r.name, passed: r.passed, detail: r.detail, durationMs: r.durationMs });

function tableRow(r: CheckResult): string {
  const width = Math.max(...CHECK_NAMES.map((n) => n.length));
  return `${r.passed ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  ${(r.durationMs / 1000).toFixed(1).padStart(5)} s  ${r.detail}\n`;
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      image: { type: 'string' },
      repo: { type: 'string' },
      parallel: { type: 'string' },
      'min-files': { type: 'string' },
      base: { type: 'string' },
      workdir: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      jsonl: { type: 'boolean' },
      local: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    const [verb, dir, ...extra] = positionals;
    if (verb !== 'validate' || !dir || extra.length > 0) throw new CliError(USAGE);
    if (!values.image || !values.repo) throw new CliError(`--image and --repo are required\n\n${USAGE}`);
    if (values.json && values.jsonl) throw new CliError('choose one of --json and --jsonl');
    const repoInfo = await stat(values.repo).catch(() => undefined);
    if (!repoInfo?.isDirectory()) throw new CliError(`--repo: no such directory '${values.repo}'`);
    const bug = await loadBugArtifact(dir);
    const { image, repo } = values;
    const workdir = values.workdir ?? '/testbed';
    let noticeShown = false;
    const results = await runConsistencyChecks(bug, {
      createSandbox: async (signal) => {
        const choice = await createSandbox({ image, repoDir: repo, repoPath: workdir, labels: { 'swe-workbench.command': 'bug-validate' }, prefer: values.local ? 'local' : 'auto', signal });
        if (choice.notice && !noticeShown) ctx.stderr.write(`swe-workbench: ${choice.notice}\n`);
        noticeShown ||= choice.notice !== undefined;
        return choice.sandbox;
      },
      baseRef: values.base ?? 'HEAD',
      parallel: positiveInt(values.parallel, 'parallel', 2),
      minChangedFiles: positiveInt(values['min-files'], 'min-files', 1),
      testTimeoutMs: positiveInt(values.timeout, 'timeout', 600) * 1000,
      signal: ctx.signal,
      onCheck: (r) => {
        if (values.jsonl) ctx.stdout.write(JSON.stringify(publicView(r)) + '\n');
        else if (!values.json) ctx.stdout.write(tableRow(r));
      },
    });
    if (values.json) ctx.stdout.write(JSON.stringify(results.map(publicView), null, 2) + '\n');
    return results.every((r) => r.passed) ? 0 : 1;
  },
};
