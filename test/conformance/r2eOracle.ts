/**
 * Local helpers of the R2E-Gym conformance test: an image with what R2E-Gym's tools need, a
 * small Python repository these tests generate (no test has seen it), R2E-Gym's own tools
 * installed in a container as its `RepoEnv.add_commands` installs them, and its own action,
 * runtime and observation code run on a list of actions (r2eOracleDriver.py).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { needsShared } from '../helpers/sharedFolder';
import { r2eGymImage } from '../../extension/core/scaffolds/r2e-gym/image';

const run = promisify(execFile);

const oracles = needsShared('oracles');
export const ORACLES = oracles.dir;
export const R2E_ORACLE_SRC = path.join(ORACLES, 'r2e-gym/src');
const TOOLS = path.join(R2E_ORACLE_SRC, 'r2egym/agenthub/tools');
const DRIVER = path.join(__dirname, 'r2eOracleDriver.py');

/** Why the suite cannot run here, or undefined. */
export function missingOracles(): string | undefined {
  return oracles.skip || (existsSync(TOOLS) ? undefined : `the reference tools are not at ${TOOLS}`);
}

/** The product's R2E-Gym image (core/scaffolds/r2e-gym/image.ts), built offline when missing. */
export async function ensureR2eTestImage(): Promise<string> {
  return (await r2eGymImage.ensure({})).tag;
}

/** Where R2E-Gym's `RepoEnv.add_commands` puts its tools. */
const R2E_ORACLE_TOOL_DIR = '/usr/local/bin';

/** R2E-Gym's four tools copied to `dir` (default: where R2E-Gym puts them) without their `.py`, made executable. */
export async function installOracleTools(containerId: string, dir = R2E_ORACLE_TOOL_DIR): Promise<void> {
  await run('docker', ['exec', containerId, 'mkdir', '-p', dir]);
  for (const name of ['file_editor', 'execute_bash', 'search', 'finish']) {
    await run('docker', ['cp', path.join(TOOLS, `${name}.py`), `${containerId}:${dir}/${name}`]);
    await run('docker', ['exec', containerId, 'chmod', '+x', `${dir}/${name}`]);
  }
}

/** Per action, in order: the action as R2E-Gym records it and the observation its own code gives in the container. */
export async function oracleSteps(containerId: string, actions: readonly string[]): Promise<{ action: string; observation: string }[]> {
  const child = execFile('python3', [DRIVER, R2E_ORACLE_SRC, containerId], { maxBuffer: 64 * 1024 * 1024 });
  const output = new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: string) => (out += c));
    child.stderr!.on('data', (c: string) => (err += c));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`r2eOracleDriver.py exited with ${code}: ${err}`))));
  });
  child.stdin!.end(JSON.stringify(actions));
  return JSON.parse(await output) as { action: string; observation: string }[];
}

/**
 * A small Python project written here (a git repository): a long module for the condensed view,
 * classes with long docstrings, a file with tabs, one in Latin-1, CRLF and lone CR line ends, a non-Python
 * file, a hidden folder, and 101 modules that mention the same word (search's "narrow" limit).
 */
export async function writeGeneratedRepo(dir: string): Promise<void> {
  const files: Record<string, string | Buffer> = {
    'inventory/__init__.py': '"""Stock keeping."""\n',
    'inventory/items.py': longModule(),
    'inventory/small.py': 'def add(a, b):\n    return a + b\n\n\nTOTAL = add(1, 2)\n',
    'inventory/tabs.py': 'def tabbed():\n\tif True:\n\t\treturn "tab"\n',
    'inventory/crlf.py': 'first = 1\r\nsecond = 2\r\n',
    'inventory/lone_cr.py': 'one = 1\rtwo = 2\nthree = 3\r',
    'inventory/latin1.py': Buffer.from('# caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu\nNAME = "caf\xe9"\n', 'latin1'),
    'inventory/unicode.py': 'GREETING = "héllo wörld ✓"\n',
    'inventory/empty.py': '',
    'inventory/broken.py': 'def broken(:\n    pass\n' + 'x = 1\n'.repeat(120),
    'README.md': '# Inventory\n\nKeeps stock.\n',
    'notes.txt': 'restock on mondays\n',
    '.hidden/secret.py': 'SECRET = 1\n',
    'scripts/report.py': 'from inventory.items import Store\n\nprint(Store().describe())\n',
  };
  for (let i = 0; i < 101; i++) files[`generated/mod_${String(i).padStart(3, '0')}.py`] = `WIDGET_${i} = "widget"\n`;
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-qm', 'inventory');
}

function longModule(): string {
  const parts = ['"""Items and the store that holds them."""', 'import json', '', ''];
  parts.push(
    'class Item:',
    '    """An item in stock.',
    '',
    '    It has a name, a price',
    '    and a count, and knows',
    '    how to describe itself.',
    '    """',
    '',
  );
  parts.push(
    '    def __init__(self, name, price, count=0):',
    '        self.name = name',
    '        self.price = price',
    '        self.count = count',
    '        self.tags = []',
    '',
  );
  for (let i = 0; i < 12; i++) {
    parts.push(
      `    def method_${i}(self, value):`,
      `        total = value + ${i}`,
      '        if total > 10:',
      '            total -= 1',
      '        for _ in range(2):',
      '            total += 1',
      '        return total',
      '',
    );
  }
  parts.push(
    '',
    'class Store:',
    '    """Short doc."""',
    '',
    '    def describe(self):',
    '        return "store"',
    '',
    '    async def load(self, path):',
    '        with open(path) as f:',
    '            data = json.load(f)',
    '        self.items = data',
    '        return len(data)',
    '',
  );
  return parts.join('\n') + '\n';
}
