/**
 * `swe-workbench bug VERB DIR`: a bug folder's seven consistency checks (`validate`), SWE-smith's
 * validation and its task instance (`swe-smith`), the solver's spec (`solver-spec`), and a
 * higher-order bug from a solver's failed patch (`higher-order`), in containers of IMAGE that
 * hold a copy of REPO.
 */
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadBugArtifact, saveBugArtifact } from '../core/bugs/bugArtifact';
import { CHECK_NAMES, runConsistencyChecks, type CheckResult } from '../core/bugs/consistencyChecks';
import { higherOrderBug, prepareSolverRepo, solverSpec } from '../core/bugs/solverTask';
import { bugToSweSmithInstance, validateLikeSweSmith } from '../core/bugs/sweSmithValidation';
import { readInputText } from '../core/input/readInput';
import { batchView, bugsIn, writeBatchFiles } from '../core/bugs/bugBatch';
import { shardItems, writeShardResult } from '../core/runtime/slurmArray';
import { onSlurm, scheduleOf, SLURM_HELP, SLURM_OPTIONS, taskArgv, type Schedule } from './slurmOption';
import type { Sandbox } from '../core/runtime/sandbox';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';
import { positiveInt, sandboxMaker, type SandboxFlags } from './sandboxFlags';

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
Exits 0 when every check passes, 1 when one fails, 2 on a usage error.

When DIR holds bug folders rather than being one, each is validated in turn (a table per bug,
--json one object from bug name to its checks, --jsonl lines with a bug field), and
  --out OUT       writes OUT/<bug>.json per bug and OUT/checks.json for all (the file
                  'rollouts list --bug-checks' reads; no durations, so two runs compare byte for byte)
${SLURM_HELP}

       swe-workbench bug swe-smith DIR --image IMAGE --repo REPO [--base REF] [--workdir /testbed]
                                  [--timeout SECONDS] [--local] [--json]
                                  [--instance-out FILE --instance ID --repo-name OWNER/NAME --base-commit SHA]
Validates the bug as SWE-smith does: the tests on the reference code, then with the bug (nothing
weakened); valid with at least one FAIL_TO_PASS and one PASS_TO_PASS test. --instance-out writes
the SWE-smith task instance (its patch introduces the bug). Exits 0 when valid, 1 when not.

       swe-workbench bug solver-spec DIR
Prints the solver's only spec: the reverse of test_weaken.diff ("make the code pass these tests").

       swe-workbench bug solver-repo DIR --out HOSTDIR --image IMAGE --repo REPO [--base REF] [--workdir /testbed] [--local]
Writes to HOSTDIR (which must not exist) the repository as the solver must find it: the bug and
the weakening applied, and a fresh one-commit history, so git cannot leak the answer; prints the
solver's spec.

       swe-workbench bug higher-order DIR --pred-patch FILE --out DIR2 --image IMAGE --repo REPO
                                     [--base REF] [--workdir /testbed] [--local]
Applies a solver's failed patch on top of the bug and saves the result as a new bug folder DIR2
(its source changes only; the weakening and scripts are kept).`;

const publicView = (r: CheckResult) => ({ name: r.name, passed: r.passed, detail: r.detail, durationMs: r.durationMs });

function tableRow(r: Pick<CheckResult, 'name' | 'passed' | 'detail' | 'durationMs'>): string {
  const width = Math.max(...CHECK_NAMES.map((n) => n.length));
  return `${r.passed ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  ${(r.durationMs / 1000).toFixed(1).padStart(5)} s  ${r.detail}\n`;
}

async function inSandbox<T>(make: (signal?: AbortSignal) => Promise<Sandbox>, signal: AbortSignal, work: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await make(signal);
  try {
    return await work(sandbox);
  } finally {
    await sandbox.dispose();
  }
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
      'instance-out': { type: 'string' },
      instance: { type: 'string' },
      'repo-name': { type: 'string' },
      'base-commit': { type: 'string' },
      'pred-patch': { type: 'string' },
      out: { type: 'string' },
      ...SLURM_OPTIONS,
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    const [verb, dir, ...extra] = positionals;
    if (!verb || !VERBS.includes(verb) || !dir || extra.length > 0) throw new CliError(USAGE);
    if (verb === 'solver-spec') {
      ctx.stdout.write(solverSpec(await loadBugArtifact(dir)));
      return 0;
    }
    if (verb === 'swe-smith') return sweSmith(dir, values, ctx);
    if (verb === 'higher-order') return higherOrder(dir, values, ctx);
    if (verb === 'solver-repo') return solverRepo(dir, values, ctx);
    if (values.json && values.jsonl) throw new CliError('choose one of --json and --jsonl');
    const schedule = scheduleOf(values, values.out);
    const bugs = await bugsIn(dir);
    if (bugs !== undefined) return validateFolder(dir, bugs, values, schedule, argv, ctx);
    if (schedule.mode !== 'local') throw new CliError('--scheduler slurm validates a folder of bug folders; DIR is one bug');
    if (values.out !== undefined) throw new CliError('--out goes with a folder of bug folders; DIR is one bug (--json prints its checks)');
    const make = await sandboxMaker(values, ctx, 'bug-validate', USAGE);
    const bug = await loadBugArtifact(dir);
    const results = await runConsistencyChecks(bug, {
      ...checkOptions(values, make, ctx),
      onCheck: (r) => {
        if (values.jsonl) ctx.stdout.write(JSON.stringify(publicView(r)) + '\n');
        else if (!values.json) ctx.stdout.write(tableRow(r));
      },
    });
    if (values.json) ctx.stdout.write(JSON.stringify(results.map(publicView), null, 2) + '\n');
    return results.every((r) => r.passed) ? 0 : 1;
  },
};

/** The checks' options from the command line, the same for one bug and for each of a folder's. */
function checkOptions(values: Values & ValidateValues, make: Awaited<ReturnType<typeof sandboxMaker>>, ctx: CommandContext) {
  return {
    createSandbox: make,
    baseRef: values.base ?? 'HEAD',
    parallel: positiveInt(values.parallel, 'parallel', 2),
    minChangedFiles: positiveInt(values['min-files'], 'min-files', 1),
    testTimeoutMs: positiveInt(values.timeout, 'timeout', 600) * 1000,
    signal: ctx.signal,
  };
}

/** A folder of bugs: each validated as one bug is (the local path, or one shard of it in a Slurm task), the files written once. */
async function validateFolder(
  dir: string,
  bugs: string[],
  values: Values & ValidateValues,
  schedule: Schedule,
  argv: string[],
  ctx: CommandContext,
): Promise<number> {
  const make = await sandboxMaker(values, ctx, 'bug-validate', USAGE);
  const validate = async (name: string, onCheck?: (r: CheckResult) => void) =>
    (
      await runConsistencyChecks(await loadBugArtifact(path.join(dir, name)), {
        ...checkOptions(values, make, ctx),
        ...(onCheck ? { onCheck } : {}),
      })
    ).map(publicView);
  const show = (name: string, r: ReturnType<typeof publicView>, first: boolean) => {
    if (values.jsonl) ctx.stdout.write(JSON.stringify({ bug: name, ...r }) + '\n');
    else if (!values.json) ctx.stdout.write(`${first ? `== ${name}\n` : ''}${tableRow(r)}`);
  };
  const results = new Map<string, ReturnType<typeof publicView>[]>();
  if (schedule.mode === 'shard') {
    const mine = shardItems(bugs, schedule.k, schedule.n);
    const entries = [];
    for (const { index, item } of mine) entries.push({ index, value: await validate(item) });
    await writeShardResult(schedule.dir, entries);
    return 0;
  } else if (schedule.mode === 'slurm') {
    const values_ = await onSlurm(schedule, { argv: taskArgv(['bug', 'validate'], argv.slice(1)), items: bugs.length, images: [values.image!] }, ctx);
    bugs.forEach((name, i) => {
      const checks = values_[i] as ReturnType<typeof publicView>[];
      results.set(name, checks);
      checks.forEach((r, j) => show(name, r, j === 0));
    });
  } else {
    for (const name of bugs) {
      let first = true;
      results.set(
        name,
        await validate(name, (r) => {
          show(name, publicView(r), first);
          first = false;
        }),
      );
    }
  }
  if (values.json) ctx.stdout.write(JSON.stringify(Object.fromEntries(results), null, 2) + '\n');
  if (values.out !== undefined) await writeBatchFiles(path.resolve(values.out), new Map([...results].map(([n, checks]) => [n, checks.map(batchView)])));
  return [...results.values()].every((checks) => checks.every((r) => r.passed)) ? 0 : 1;
}

interface ValidateValues {
  parallel?: string | undefined;
  'min-files'?: string | undefined;
  jsonl?: boolean | undefined;
}

const VERBS = ['validate', 'swe-smith', 'solver-spec', 'solver-repo', 'higher-order'];

type Values = SandboxFlags & {
  base?: string | undefined;
  timeout?: string | undefined;
  json?: boolean | undefined;
  'instance-out'?: string | undefined;
  instance?: string | undefined;
  'repo-name'?: string | undefined;
  'base-commit'?: string | undefined;
  'pred-patch'?: string | undefined;
  out?: string | undefined;
};

async function sweSmith(dir: string, values: Values, ctx: CommandContext): Promise<number> {
  const instanceOut = values['instance-out'];
  if (instanceOut && (!values.instance || !values['repo-name'] || !values['base-commit']))
    throw new CliError('--instance-out needs --instance, --repo-name and --base-commit');
  const make = await sandboxMaker(values, ctx, 'bug-swe-smith', USAGE);
  const bug = await loadBugArtifact(dir);
  const testTimeoutMs = positiveInt(values.timeout, 'timeout', 600) * 1000;
  const result = await inSandbox(make, ctx.signal, (sandbox) =>
    validateLikeSweSmith(sandbox, bug, { baseRef: values.base ?? 'HEAD', testTimeoutMs, signal: ctx.signal }),
  );
  const { lists } = result;
  if (values.json) ctx.stdout.write(JSON.stringify({ valid: result.valid, ...lists, goldPatch: result.goldPatch }, null, 2) + '\n');
  else {
    ctx.stdout.write(
      `${result.valid ? 'valid' : 'NOT valid'}: ${lists.FAIL_TO_PASS.length} FAIL_TO_PASS, ${lists.PASS_TO_PASS.length} PASS_TO_PASS, ${lists.FAIL_TO_FAIL.length} FAIL_TO_FAIL, ${lists.PASS_TO_FAIL.length} PASS_TO_FAIL\n`,
    );
    for (const id of lists.FAIL_TO_PASS) ctx.stdout.write(`  FAIL_TO_PASS  ${id}\n`);
  }
  if (instanceOut) {
    const instance = bugToSweSmithInstance(bug, lists, {
      instanceId: values.instance!,
      repo: values['repo-name']!,
      baseCommit: values['base-commit']!,
      ...(values.image ? { imageName: values.image } : {}),
    });
    await writeFile(instanceOut, JSON.stringify(instance, null, 2) + '\n');
  }
  return result.valid ? 0 : 1;
}

async function higherOrder(dir: string, values: Values, ctx: CommandContext): Promise<number> {
  if (!values['pred-patch'] || !values.out) throw new CliError(`--pred-patch and --out are required\n\n${USAGE}`);
  const make = await sandboxMaker(values, ctx, 'bug-higher-order', USAGE);
  const bug = await loadBugArtifact(dir);
  const { text: predPatch } = await readInputText(values['pred-patch']);
  const next = await inSandbox(make, ctx.signal, (sandbox) => higherOrderBug(sandbox, bug, predPatch, { baseRef: values.base ?? 'HEAD', signal: ctx.signal }));
  await saveBugArtifact(values.out, next);
  ctx.stdout.write(`${values.out}: the bug with ${values['pred-patch']} on top\n`);
  return 0;
}

async function solverRepo(dir: string, values: Values, ctx: CommandContext): Promise<number> {
  if (!values.out) throw new CliError(`--out is required\n\n${USAGE}`);
  const out = path.resolve(values.out);
  if (await stat(out).catch(() => undefined)) throw new CliError(`--out: '${values.out}' exists; give a new folder`);
  if (!(await stat(path.dirname(out)).catch(() => undefined))?.isDirectory()) throw new CliError(`--out: no such folder '${path.dirname(out)}'`);
  const make = await sandboxMaker(values, ctx, 'bug-solver-repo', USAGE);
  const bug = await loadBugArtifact(dir);
  // Copied beside the target, then renamed: a failure leaves no half-written repository.
  const staging = await mkdtemp(path.join(path.dirname(out), `.${path.basename(out)}-`));
  try {
    const task = await inSandbox(make, ctx.signal, async (sandbox) => {
      const prepared = await prepareSolverRepo(sandbox, bug, { baseRef: values.base ?? 'HEAD', signal: ctx.signal });
      await sandbox.copyOut(sandbox.repoPath, staging);
      return prepared;
    });
    await rename(staging, out);
    ctx.stdout.write(task.spec);
    return 0;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
