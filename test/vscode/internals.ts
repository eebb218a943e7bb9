import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TEST_INTERNALS_COMMAND, type SweWorkbenchApi, type SweWorkbenchInternals } from '../../extension/vscode/extension';

export const EXTENSION_ID = 'swe-workbench.swe-workbench';

/** Activates the extension and returns its parts, which it hands out only to a test run (ExtensionMode.Test). */
export async function extensionInternals(): Promise<SweWorkbenchInternals> {
  const extension = vscode.extensions.getExtension<SweWorkbenchApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed in the extension host`);
  await extension.activate();
  const internals = await vscode.commands.executeCommand<SweWorkbenchInternals | undefined>(TEST_INTERNALS_COMMAND);
  assert.ok(internals, `${TEST_INTERNALS_COMMAND} answers in a test run`);
  return internals;
}
