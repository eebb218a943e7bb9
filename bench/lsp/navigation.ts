/**
 * What the agent-facing navigation tools cost over the Pyright request each one wraps, on a
 * warm server in a container of the base image. The repository is the sample one plus
 * `--copies` copies of its package (so the per-call file scan has a realistic tree to walk).
 * Per round, in alternation:
 *   raw    the bare LSP request on the open document (the floor)
 *   tool   the tool through an AciSession: file lookup in the shell, change scan, document
 *          sync, the request, and the code lines of the answer
 * Usage: node --import tsx bench/lsp/navigation.ts [--rounds N] [--copies N]
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AciSession } from '../../extension/core/aci/aciSession';
// The lsp bundle registers itself with SWE-agent's bundles when its module loads.
import '../../extension/core/scaffolds/swe-agent/tools/lspTools';
import { disposePyright, fileUri, pyrightFor, pyrightMounts } from '../../extension/core/aci/lspServer';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { listTreeFiles, sampleRepoTree } from '../../test/helpers/sampleRepo';
import { median, timed } from '../timing';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '30' }, copies: { type: 'string', default: '50' } } });
const rounds = Number(values.rounds);
const copies = Number(values.copies);

async function lineOf(file: string, prefix: string): Promise<number> {
  const lines = (await readFile(path.join(sampleRepoTree, file), 'utf8')).split('\n');
  return lines.findIndex((l) => l.trimStart().startsWith(prefix)) + 1;
}

async function main(): Promise<void> {
  const hostRepo = await mkdtemp(path.join(tmpdir(), 'bench-lsp-'));
  await cp(sampleRepoTree, hostRepo, { recursive: true });
  for (let i = 0; i < copies; i++) await cp(path.join(sampleRepoTree, 'ledger'), path.join(hostRepo, `ledger_copy_${i}`), { recursive: true });
  const sandbox = await DockerSandbox.create({
    image: 'swe-workbench/base:bookworm',
    repoDir: hostRepo,
    repoPath: '/repo',
    mounts: pyrightMounts(),
    labels: { 'swe-workbench.bench': 'lsp' },
  });
  try {
    const aci = new AciSession(sandbox, { tools: toolSetFor(['lsp']) });
    const importLine = await lineOf('ledger/journal.py', 'from .money import');
    const classLine = await lineOf('ledger/money.py', 'class Money');
    const cold = await timed(() => aci.runCommand(`goto_definition ledger/journal.py ${importLine} sum_money`));
    const server = await pyrightFor(sandbox);
    await aci.runCommand(`find_references ledger/money.py ${classLine} Money`);
    await aci.runCommand('workspace_symbols Journal');
    const at = (file: string, line: number, character: number) => ({
      textDocument: { uri: fileUri(`/repo/${file}`) },
      position: { line: line - 1, character },
    });
    const cases = [
      {
        name: 'goto_definition',
        raw: () => server.request('textDocument/definition', at('ledger/journal.py', importLine, 26), z.unknown()),
        tool: () => aci.runCommand(`goto_definition ledger/journal.py ${importLine} sum_money`),
      },
      {
        name: 'find_references',
        raw: () => server.request('textDocument/references', { ...at('ledger/money.py', classLine, 6), context: { includeDeclaration: true } }, z.unknown()),
        tool: () => aci.runCommand(`find_references ledger/money.py ${classLine} Money`),
      },
      {
        name: 'workspace_symbols',
        raw: () => server.request('workspace/symbol', { query: 'Journal' }, z.unknown()),
        tool: () => aci.runCommand('workspace_symbols Journal'),
      },
    ];
    const files = (await listTreeFiles(hostRepo)).filter((f) => f.endsWith('.py')).length;
    console.log(`repository: ${files} Python files; ${rounds} rounds; first call on a fresh container (server start included): ${cold.toFixed(0)} ms`);
    console.log('case               raw ms   tool ms   tool/raw');
    for (const c of cases) {
      const raw: number[] = [];
      const tool: number[] = [];
      for (let r = 0; r < rounds; r++) {
        raw.push(await timed(c.raw));
        tool.push(await timed(c.tool));
      }
      const [rawMs, toolMs] = [median(raw), median(tool)];
      console.log(`${c.name.padEnd(18)} ${rawMs.toFixed(1).padStart(6)}  ${toolMs.toFixed(1).padStart(8)}  ${(toolMs / rawMs).toFixed(2).padStart(8)}`);
    }
  } finally {
    await disposePyright(sandbox);
    await sandbox.dispose();
    await rm(hostRepo, { recursive: true, force: true });
  }
}

void main();
