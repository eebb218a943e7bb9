/**
 * Our tools against the peers' own tools, on the same calls in one container, interleaved
 * (every round runs each call through every variant before the next call), medians:
 *   peer   SWE-agent's own tools (../shared/oracles/swe-agent at 3ea751c0, v1.1.0, v1.0.1: their
 *          bundles installed and sourced in a persistent bash under a terminal, each action
 *          followed by the bundles' state commands and a read of /root/state.json, as the agent
 *          does; v0.7.0: its commands sourced in a persistent bash without one), and R2E-Gym's
 *          own scripts (../shared/oracles/r2e-gym, each call a new `/bin/sh -c "timeout 90 ..."`)
 *   ours   the same call through our AciSession for the matching scaffold (SWE-agent: the
 *          version's bundles, in a persistent bash of the same kind; R2E-Gym: its tools, a new
 *          `/bin/sh` per call)
 *   raw    the same work as a plain command through the same kind of shell (`cat -n | sed`,
 *          `grep`, `find`; for a linted edit: `sed` and one `flake8` run)
 * Each scaffold's shell is its own persistent shell in the one container (bench/aci/shellBeside.ts),
 * so cwd, variables and functions stay apart while the files are shared. The container runs
 * swe-workbench/r2e:bookworm (the base image plus python3-chardet and /root/.venv/bin/python,
 * which R2E-Gym's file_editor needs) with the host's jq bound in (SWE-agent 0.7's commands need
 * it; the base image has none). Prints ours/raw and peer/ours; asserts nothing.
 * Usage: node --import tsx bench/aci/peers.ts [--rounds N]   (needs ../shared/oracles)
 */
import '../../test/helpers/families';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AciSession, type AciSessionOptions } from '../../extension/core/aci/aciSession';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { r2eGymFamily } from '../../extension/core/scaffolds/r2e-gym';
import { runR2eCommand } from '../../extension/core/scaffolds/r2e-gym/freshRun';
import { r2eObservation } from '../../extension/core/scaffolds/r2e-gym/runtime';
import { sweAgentFamily } from '../../extension/core/scaffolds/swe-agent';
import { r2eActionText, r2eCommandLine } from '../../extension/core/scaffolds/r2e-gym/action';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { sharedPath } from '../../test/helpers/sharedPaths';
import { ensureR2eTestImage, installOracleTools, missingOracles } from '../../test/conformance/r2eOracle';
import { ORACLE_VERSIONS, SweAgent07Reference, SweAgentReference, bundleFolder, type SweAgentOracle } from '../../test/conformance/sweAgentReference';
import { median, timed } from '../timing';
import { shellBeside } from './shellBeside';

const REPO = '/testbed';
const FILE = 'ledger/money.py';
const LINT = 'flake8 --isolated --select=F821,F822,F831,E111,E112,E113,E999,E902';
/** R2E-Gym's scripts go beside ours (which take /usr/local/bin, where R2E-Gym puts its own) and are called by path. */
const R2E_PEER_DIR = '/root/r2e-gym-tools';

/** Line 14 of ledger/money.py, new text each round so nothing is answered from a cache. */
const appliedLine = (n: number) => `        raise TypeError("use a string or Decimal, not float (${n})")`;
const refusedLine = (n: number) => `        raise TypeError(undefined_${n})`;
const edit = (line: string) => `edit 14:14\n${line}\nend_of_edit`;
/** `sed` replacing line 14 (the lines have no `|`, `&` or `\`). */
const sedLine = (line: string) => `'14s|.*|${line.replace(/'/g, `'\\''`)}|'`;

interface SweCall {
  name: string;
  /** The agent's command line, the same for the peer and ours; round `n` may vary it. */
  command: (n: number) => string;
  raw: (n: number) => string;
  /** Left out for SWE-agent 0.7, which has no such tool. */
  v1Only?: boolean;
  /** A linted edit: what the observation must show for the call to count as done right. */
  expect?: RegExp;
}

const SWE_CALLS: SweCall[] = [
  { name: `open ${FILE} 20`, command: () => `open ${FILE} 20`, raw: () => `cat -n ${FILE} | sed -n 1,100p` },
  { name: 'search_file Money', command: () => `search_file Money ${FILE}`, raw: () => `grep -n -- Money ${FILE}` },
  { name: 'search_dir Money', command: () => 'search_dir Money', raw: () => `grep -rIc --exclude-dir='.*' -- Money ${REPO}` },
  { name: 'find_file money.py', command: () => 'find_file money.py', raw: () => 'find . -name money.py -type f' },
  {
    name: 'str_replace_editor view file',
    command: () => `str_replace_editor view ${REPO}/${FILE}`,
    raw: () => `cat -n ${REPO}/${FILE}`,
    v1Only: true,
  },
  {
    name: 'str_replace_editor view dir',
    command: () => `str_replace_editor view ${REPO}/ledger`,
    raw: () => `find ${REPO}/ledger -maxdepth 2 -not -path '*/.*'`,
    v1Only: true,
  },
  {
    name: 'linted edit, applied',
    command: (n) => edit(appliedLine(n)),
    raw: (n) => `sed -i ${sedLine(appliedLine(n))} ${FILE} && ${LINT} ${FILE}`,
    expect: /^(?![\s\S]*F821)/,
  },
  {
    name: 'linted edit, rejected',
    command: (n) => edit(refusedLine(n)),
    raw: (n) => `sed ${sedLine(refusedLine(n))} ${FILE} > /tmp/candidate.py && { ${LINT} /tmp/candidate.py; true; }`,
    expect: /F821/,
  },
];

interface R2eCall {
  name: string;
  tool: string;
  parameters: Record<string, string>;
  raw: string;
}

const R2E_CALLS: R2eCall[] = [
  { name: 'file_editor view file', tool: 'file_editor', parameters: { command: 'view', path: `${REPO}/${FILE}` }, raw: `cat -n ${REPO}/${FILE}` },
  {
    name: 'file_editor view dir',
    tool: 'file_editor',
    parameters: { command: 'view', path: `${REPO}/ledger` },
    raw: `find ${REPO}/ledger -maxdepth 2 -not -path '*/.*'`,
  },
  { name: 'search Money', tool: 'search', parameters: { search_term: 'Money', path: REPO }, raw: `grep -rIc --exclude-dir='.*' -- Money ${REPO}` },
];

/** One variant of a call in round `n`; it throws when the tool did not do the work. */
type Run = (n: number) => Promise<string>;

interface Row {
  family: string;
  call: string;
  raw: number[];
  ours: number[];
  peer: number[];
}

const V1_ORACLES: SweAgentOracle[] = ['3ea751c0', 'v1.1.0', 'v1.0.1'];

function v1Bundles(oracle: SweAgentOracle): string[] {
  return oracle === 'v1.0.1'
    ? ['registry', 'defaults', 'search', 'edit_linting', 'edit_anthropic']
    : ['registry', 'windowed', 'search', 'windowed_edit_linting', 'edit_anthropic'];
}

/** Why the bench cannot run here (the reference tools are missing), or undefined. */
function missingReferences(): string | undefined {
  const oracles = sharedPath('oracles');
  if (!oracles.present) return `../shared/oracles is absent (looked in ${oracles.dir}; set SWE_WORKBENCH_ORACLES or SWE_WORKBENCH_SHARED)`;
  const r2e = missingOracles();
  if (r2e) return r2e;
  const folders = [...V1_ORACLES.flatMap((o) => v1Bundles(o).map((b) => bundleFolder(o, b))), path.join(oracles.dir, 'swe-agent/v0.7.0/config/commands')];
  const absent = folders.find((f) => !existsSync(f));
  return absent ? `no SWE-agent tools at ${absent}` : undefined;
}

function checked(what: string, output: string, exitCode: number, expect?: RegExp): void {
  if (expect ? !expect.test(output) : exitCode !== 0 || /command not found|Traceback|No such file/.test(output))
    throw new Error(`${what} did not do the work (exit ${exitCode}):\n${output.slice(0, 1500)}`);
}

async function main(): Promise<void> {
  const missing = missingReferences();
  if (missing) {
    console.error(`bench/aci/peers.ts needs SWE-agent's and R2E-Gym's own tools from ../shared/oracles and cannot run without them: ${missing}`);
    process.exitCode = 1;
    return;
  }
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: expected a whole number of at least 1, got '${values.rounds}'`);
  const jq = SweAgent07Reference.jqMounts();
  const image = await ensureR2eTestImage();
  const host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-bench-peers-'));
  let box: DockerSandbox | undefined;
  try {
    const repo = await materializeSampleRepo(path.join(host, 'repo'));
    box = await DockerSandbox.create({
      image,
      repoDir: repo.dir,
      repoPath: REPO,
      labels: { 'swe-workbench.bench': 'aci-peers' },
      limits: { commandTimeoutMs: 60_000 },
      ...(typeof jq === 'string' ? {} : { mounts: jq }),
    });
    const container = box;
    const beside = (tty: boolean) => shellBeside(container, { tty, commandTimeoutMs: 60_000 });
    const session = async (tty: boolean, options: AciSessionOptions) => new AciSession(await beside(tty), options);
    const rawTty = await beside(true);
    const rawPlain = await beside(false);

    // SWE-agent: per family, the peer, our session and the raw shell.
    interface SweFamily {
      label: string;
      peer: (command: string) => Promise<{ observation: string; exitCode: number }>;
      ours: AciSession;
      raw: Sandbox;
      v1: boolean;
    }
    const families: SweFamily[] = [];
    for (const oracle of V1_ORACLES) {
      const bundles = v1Bundles(oracle);
      const reference = await SweAgentReference.install(await beside(true), {
        oracle,
        bundles,
        repoPath: REPO,
        toolsDir: `/root/tools-${oracle}`,
        envFile: `/root/.swe-agent-env-${oracle}`,
      });
      const ours = await session(true, {
        tools: toolSetFor(bundles.map((b) => `tools/${b}`)),
        config: { crlf: true, sweAgentVersion: ORACLE_VERSIONS[oracle] },
      });
      families.push({ label: `SWE-agent ${oracle}`, peer: (c) => reference.call(c), ours, raw: rawTty, v1: true });
    }
    const skipped: string[] = [];
    if (typeof jq === 'string') skipped.push(`SWE-agent 0.7: ${jq}`);
    else {
      const reference = await SweAgent07Reference.install(await beside(false), REPO);
      const tools = sweAgentFamily.create('0.7', undefined, { bundles: ['tools/defaults', 'tools/search', 'tools/edit_linting', 'tools/submit'] }).tools;
      const ours = await session(false, { tools, config: { sweAgentVersion: '0.7' } });
      families.push({ label: 'SWE-agent 0.7', peer: (c) => reference.call(c), ours, raw: rawPlain, v1: false });
    }

    // R2E-Gym: its scripts beside ours; every call a new /bin/sh.
    await installOracleTools(container.id, R2E_PEER_DIR);
    const r2e = r2eGymFamily.create(r2eGymFamily.versions[0]!);
    await r2e.prepare!(container);
    const r2eOurs = new AciSession(container, { tools: r2e.tools, present: r2e.present! });

    // Every row's variants; a raw run shared by several families (one per shell kind) is
    // measured once per round and its samples shared.
    const rows: Row[] = [];
    const plan: { row: Row; raw: Run; ours: Run; peer: Run }[] = [];
    for (const call of SWE_CALLS) {
      const raws = new Map<Sandbox, { run: Run; samples: number[] }>();
      for (const family of families) {
        if (call.v1Only && !family.v1) continue;
        const what = (side: string, n: number) => `${family.label} ${side} '${call.command(n)}'`;
        let raw = raws.get(family.raw);
        if (!raw) {
          const shell = family.raw;
          raw = {
            run: async (n) => {
              const r = await shell.exec(call.raw(n));
              checked(`raw '${call.raw(n)}'`, r.output, r.exitCode);
              return r.output;
            },
            samples: [],
          };
          raws.set(shell, raw);
        }
        const row: Row = { family: family.label, call: call.name, raw: raw.samples, ours: [], peer: [] };
        rows.push(row);
        plan.push({
          row,
          raw: raw.run,
          ours: async (n) => {
            const r = await family.ours.runCommand(call.command(n));
            checked(what('ours', n), r.observation, r.exitCode, call.expect);
            return r.observation;
          },
          peer: async (n) => {
            const r = await family.peer(call.command(n));
            checked(what('peer', n), r.observation, r.exitCode, call.expect);
            return r.observation;
          },
        });
      }
    }
    for (const call of R2E_CALLS) {
      const row: Row = { family: 'R2E-Gym 69bc953', call: call.name, raw: [], ours: [], peer: [] };
      rows.push(row);
      const action = { name: call.tool, parameters: call.parameters };
      const parsed = r2e.tools.parseXmlFunctionCall(r2eActionText(action));
      if ('error' in parsed) throw new Error(`R2E-Gym call not read: ${parsed.error}`);
      plan.push({
        row,
        raw: async () => {
          const r = await runR2eCommand(container, call.raw);
          checked(`R2E-Gym raw '${call.raw}'`, r.output, r.code === '0' ? 0 : 1);
          return r.output;
        },
        ours: async () => {
          const r = await r2eOurs.run(parsed);
          checked(`R2E-Gym ours ${call.name}`, r.observation, r.exitCode);
          return r.observation;
        },
        peer: async () => {
          const r = await runR2eCommand(container, `${R2E_PEER_DIR}/${r2eCommandLine(action)}`);
          checked(`R2E-Gym peer ${call.name}`, r.output, r.code === '0' ? 0 : 1);
          return r2eObservation(call.tool, r);
        },
      });
    }

    // Round 0 warms every variant (the warm flake8 starts, files are in the page cache), checks
    // that each one does the work; it is not counted. In every round ours must print what the peer prints.
    const differ = new Map<string, number>();
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    const loadBefore = load();
    for (let n = 0; n <= rounds; n++) {
      const rawDone = new Set<Run>();
      for (const step of plan) {
        if (!rawDone.has(step.raw)) {
          rawDone.add(step.raw);
          const t = await timed(() => step.raw(n));
          if (n > 0) step.row.raw.push(t);
        }
        const seen: [string, string] = ['', ''];
        const o = await timed(async () => (seen[0] = await step.ours(n)));
        const p = await timed(async () => (seen[1] = await step.peer(n)));
        const key = `${step.row.family} ${step.row.call}`;
        if (seen[0] !== seen[1]) differ.set(key, (differ.get(key) ?? 0) + 1);
        if (n > 0) {
          step.row.ours.push(o);
          step.row.peer.push(p);
        }
      }
    }
    for (const s of skipped) console.log(`not measured: ${s}`);
    for (const [key, count] of differ) console.log(`ours printed otherwise than the peer: ${key}, in ${count} of ${rounds + 1} rounds`);
    console.log(
      `aci peers: ${rounds} rounds interleaved, medians, one container of ${image}, sample repository at ${REPO}; load average ${loadBefore} before, ${load()} after`,
    );
    console.log(
      `${'family'.padEnd(20)} ${'call'.padEnd(30)} ${'raw ms'.padStart(8)} ${'ours ms'.padStart(8)} ${'peer ms'.padStart(8)} ${'ours/raw'.padStart(9)} ${'peer/ours'.padStart(10)}`,
    );
    for (const row of rows) {
      const [r, o, p] = [median(row.raw), median(row.ours), median(row.peer)];
      console.log(
        `${row.family.padEnd(20)} ${row.call.padEnd(30)} ${r.toFixed(1).padStart(8)} ${o.toFixed(1).padStart(8)} ${p.toFixed(1).padStart(8)} ${(o / r).toFixed(2).padStart(9)} ${(p / o).toFixed(1).padStart(10)}`,
      );
    }
    console.log('\nper family, peer/ours at the median (issue 15 targets: non-edit calls >= 9x, linted edits >= 5x; ours/raw <= 1.3x for non-edit calls)');
    for (const family of [...new Set(rows.map((r) => r.family))]) {
      const of = rows.filter((r) => r.family === family);
      const span = (list: Row[], f: (r: Row) => number) => {
        const v = list.map(f);
        return v.length === 0 ? '-' : `${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)}x`;
      };
      const nonEdit = of.filter((r) => !r.call.startsWith('linted'));
      const edits = of.filter((r) => r.call.startsWith('linted'));
      console.log(
        `${family.padEnd(20)} non-edit peer/ours ${span(nonEdit, (r) => median(r.peer) / median(r.ours))}, ours/raw ${span(nonEdit, (r) => median(r.ours) / median(r.raw))}; linted edits peer/ours ${span(edits, (r) => median(r.peer) / median(r.ours))}`,
      );
    }
  } finally {
    await box?.dispose();
    await rm(host, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
