import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TEST_INTERNALS_COMMAND, type SweWorkbenchApi, type SweWorkbenchInternals } from '../../extension/vscode/extension';
import type { ResponseMessage } from '../../extension/protocol/ipc';
import type { StepperSession } from '../../extension/vscode/trajectory/stepperSession';

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

/** The stepper showing `uri`; waits a moment for one being opened (its editor resolves after the command returns). */
export async function stepperFor(internals: SweWorkbenchInternals, uri: vscode.Uri): Promise<StepperSession> {
  for (let attempt = 0; ; attempt++) {
    const stepper = internals.steppers.forUri(uri);
    if (stepper) return stepper;
    if (attempt >= 50) assert.fail(`no stepper is open for ${uri.toString()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the stepper showing `uri` answers request `method`, sent exactly as its page sends it. */
export async function askStepper(internals: SweWorkbenchInternals, uri: vscode.Uri, method: string, params: unknown): Promise<ResponseMessage> {
  const response = await (await stepperFor(internals, uri)).messenger.receive({ kind: 'request', id: nextRequest++, method, params });
  assert.ok(response, `${method} was answered`);
  return response;
}
let nextRequest = 1;

/** The HTML the stepper showing `uri` gave its webview (the page, with the step it embeds). */
export function stepperPage(internals: SweWorkbenchInternals, uri: vscode.Uri): string | undefined {
  return internals.steppers.forUri(uri)?.panel.webview.html;
}

/** One thing a stepper's page asked of the host, as a line: `shows step 3` (it reports the step on screen), `boot`, `summaries 0-20`. */
function describeAsked(message: unknown): string | undefined {
  const parsed = message as { kind?: unknown; method?: unknown; params?: unknown } | undefined;
  if (parsed?.kind !== 'request' || typeof parsed.method !== 'string') return undefined;
  const params = (parsed.params ?? {}) as { index?: number; start?: number; end?: number };
  switch (parsed.method) {
    case 'stepper/selected':
      return `shows step ${(params.index ?? -1) + 1}`;
    case 'stepper/boot':
      return 'boot';
    case 'steps/summaries':
      return `summaries ${params.start}-${params.end}`;
    default:
      return undefined;
  }
}

/**
 * What the page of the stepper showing `uri` asks of the host from now on, one line each in order
 * (read from its webview's messages, as VS Code delivers them to the extension), and an event
 * fired after each: call it as soon as the stepper is open (`openWatched`), before its page runs.
 */
export function watchPage(stepper: StepperSession): PageWatch {
  const lines: string[] = [];
  const asked = new vscode.EventEmitter<void>();
  const listening = stepper.panel.webview.onDidReceiveMessage((message: unknown) => {
    const line = describeAsked(message);
    if (line === undefined) return;
    lines.push(line);
    asked.fire();
  });
  return {
    lines,
    onDidAsk: asked.event,
    shown: () => {
      const last = lines.findLast((l) => l.startsWith('shows step '));
      return last === undefined ? undefined : Number(last.slice('shows step '.length)) - 1;
    },
    dispose: () => {
      listening.dispose();
      asked.dispose();
    },
  };
}

export interface PageWatch extends vscode.Disposable {
  readonly lines: string[];
  readonly onDidAsk: vscode.Event<void>;
  /** The step (0-based) the page last reported it shows; undefined before it reported one. */
  shown(): number | undefined;
}

/**
 * Runs `open` (a command that opens `uri` in a stepper) and watches that stepper's page from the
 * moment the stepper exists. The stepper is registered before it renders its page, which the
 * browser then loads before the page sends its first message: looking every few milliseconds
 * finds it well before that (the command may return before the editor has resolved).
 */
export async function openWatched(internals: SweWorkbenchInternals, uri: vscode.Uri, open: () => Thenable<unknown>): Promise<PageWatch> {
  const opening = Promise.resolve(open());
  for (let attempt = 0; ; attempt++) {
    const stepper = internals.steppers.forUri(uri);
    if (stepper) {
      const watch = watchPage(stepper);
      await opening;
      return watch;
    }
    if (attempt >= 2000) assert.fail(`no stepper opened ${uri.fsPath}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
