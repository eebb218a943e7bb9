import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { repoRoot } from '../../helpers/trajectoryFiles';

/** A function declaration of `lines` lines in all. */
const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  void ${i};`).join('\n');
const activate = (name: string, lines: number) => `export function ${name}(): void {\n${body(lines)}\n}\n`;
const cliCommand = (lines: number) => `export const command = {\n  async run(): Promise<number> {\n${body(lines - 1)}\n    return 0;\n  },\n};\n`;

async function entryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await new ESLint({ cwd: repoRoot }).lintText(code, { filePath: `${repoRoot}/${file}` });
  return result!.messages.filter((m) => m.ruleId === 'entries/entry-length').map((m) => m.message);
}

describe("the glue's entry points stay short lists (ESLint)", () => {
  test('an activate* function of the VS Code glue over 60 lines fails lint, one of 60 passes', async () => {
    assert.deepEqual(await entryErrors('extension/vscode/probe/activateProbe.ts', activate('activateProbe', 60)), []);
    assert.deepEqual(await entryErrors('extension/vscode/probe/activateProbe.ts', activate('activateProbe', 61)), [
      'activateProbe is 61 lines, over 60: keep it a short list of calls and move the work into named helpers',
    ]);
    assert.deepEqual(await entryErrors('extension/vscode/probe/other.ts', activate('registerProbe', 90)), [], 'only activate* functions are held to it');
  });

  test("a CLI command's run over 60 lines fails lint, one of 60 passes", async () => {
    assert.deepEqual(await entryErrors('extension/cli/probe.ts', cliCommand(60)), []);
    assert.deepEqual(await entryErrors('extension/cli/probe.ts', cliCommand(61)), [
      'run is 61 lines, over 60: keep it a short list of calls and move the work into named helpers',
    ]);
  });
});
