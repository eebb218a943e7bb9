import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TEST_INTERNALS_COMMAND, type SweWorkbenchApi, type SweWorkbenchInternals } from '../../extension/vscode/extension';
import type { PageServed } from '../../extension/vscode/trajectory/stepperSession';

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

/** One thing a stepper gave its page, as a line: `boot: 4 steps`, `boot indexing: step 1 "…"`, `indexed: 20 steps`, `appended: 4 steps`, `summaries 0-20`. */
function describeServed(served: PageServed): string {
  switch (served.kind) {
    case 'boot': {
      const { boot } = served;
      if (!boot.ok) return `boot failed: ${boot.error.message}`;
      return boot.indexing ? `boot indexing: step 1 ${JSON.stringify(boot.detail?.action.raw)}` : `boot: ${boot.header.stepCount} steps`;
    }
    case 'indexed':
      return served.stepCount === undefined ? 'indexed: failed' : `indexed: ${served.stepCount} steps`;
    case 'appended':
      return `appended: ${served.stepCount} steps`;
    case 'summaries':
      return `summaries ${served.start}-${served.end}`;
  }
}

/**
 * What the steppers showing `uri` give their pages from now on, one line each in order, and an
 * event fired after each: the test's own record of the stepper's events (call `dispose` when done).
 */
export function watchPage(internals: SweWorkbenchInternals, uri: vscode.Uri): { lines: string[]; onDidServe: vscode.Event<void> } & vscode.Disposable {
  const lines: string[] = [];
  const served = new vscode.EventEmitter<void>();
  const listening = internals.trajectoryEditor.onDidServePage((event) => {
    if (event.uri.toString() !== uri.toString()) return;
    lines.push(describeServed(event.served));
    served.fire();
  });
  return {
    lines,
    onDidServe: served.event,
    dispose: () => {
      listening.dispose();
      served.dispose();
    },
  };
}
