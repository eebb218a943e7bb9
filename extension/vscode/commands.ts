/**
 * The one way the glue registers a command. A command is data (`CommandSpec`): its id, what it
 * is called when it fails, how its raw arguments (a tree node, an explorer URI, named fields from
 * a command link) become its own, and its work. Every failure takes the same path
 * (`reportFailure`): a cancellation is said as such, bad input names its file and place with a
 * button that opens it there, anything else gives one message with the details in the log. So no
 * feature writes its own try/catch around a command, and a feature's `activate*` is a list.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import { CancelledError, InputError, describeZodError, errorText } from '../core/errors';

/** What every feature's commands share: the extension's context and its log. */
export interface Glue {
  readonly context: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
}

/** A command argument that does not fit the command: said as `ID: argument...`, never logged as our fault. */
class ArgumentError extends Error {
  override readonly name = 'ArgumentError';
}

/** Reads a command's argument with `schema`; a bad one fails the command with the field it breaks. */
export function parseArgument<T>(schema: z.ZodType<T>, arg: unknown, command: string): T {
  const parsed = schema.safeParse(arg ?? {});
  if (parsed.success) return parsed.data;
  throw new ArgumentError(`${command}: ${describeZodError('argument', parsed.error)}`);
}

export interface CommandSpec<A = unknown> {
  readonly id: string;
  /** What the command does, as a verb phrase a failure completes ("cannot run the checks of bug-1"); a function of the arguments when they name it. */
  readonly title: string | ((args: A) => string);
  /**
   * Turns the raw arguments into the command's own; may ask the person. Undefined: nothing to do
   * (the person cancelled a pick). Without it the command takes its first raw argument as it is.
   */
  readonly args?: (...raw: unknown[]) => A | undefined | Promise<A | undefined>;
  readonly run: (args: A) => unknown;
}

/** A spec with its argument type checked where it is written, stored with the others. */
export function command<A>(spec: CommandSpec<A>): CommandSpec {
  return spec as CommandSpec;
}

/** The file and line an input error names (`where` reads "line N" when it is a line), to open it there. */
export function inputErrorLocation(error: unknown): vscode.Location | undefined {
  if (!(error instanceof InputError) || !error.file) return undefined;
  const line = /^line (\d+)$/.exec(error.where ?? '')?.[1];
  return new vscode.Location(vscode.Uri.file(error.file), new vscode.Position(line ? Number(line) - 1 : 0, 0));
}

/**
 * Says why `title` did not happen ("cannot TITLE: why"). Cancelled: an information message. Bad input: its own words
 * (file and place) and a button opening the file there. Anything else: the message, logged with
 * its stack, and a button showing the log.
 */
export async function reportFailure(log: vscode.LogOutputChannel, title: string, error: unknown): Promise<void> {
  if (error instanceof CancelledError) {
    void vscode.window.showInformationMessage(`SWE Workbench: ${title}: cancelled.`);
    return;
  }
  if (error instanceof ArgumentError) {
    void vscode.window.showErrorMessage(`SWE Workbench: ${error.message}`);
    return;
  }
  const location = inputErrorLocation(error);
  if (!(error instanceof InputError)) log.error(`${title} failed`, error);
  const open = location && `Open ${location.uri.path.split('/').at(-1)}`;
  const buttons = [...(open ? [open] : []), ...(error instanceof InputError ? [] : ['Show Log'])];
  const choice = await vscode.window.showErrorMessage(`SWE Workbench: cannot ${title}: ${errorText(error)}`, ...buttons);
  if (location && choice === open) await vscode.window.showTextDocument(location.uri, { selection: location.range });
  else if (choice === 'Show Log') log.show();
}

/**
 * Runs `spec` for raw arguments; a failure is reported and the command answers undefined. A
 * feature calls it for a command's work it starts itself (a webview's button, a setting), so that
 * work fails the way the command does.
 */
export async function execute(log: vscode.LogOutputChannel, spec: CommandSpec, raw: unknown[]): Promise<unknown> {
  let title = typeof spec.title === 'string' ? spec.title : spec.id;
  try {
    const args = spec.args ? await spec.args(...raw) : raw[0];
    if (spec.args && args === undefined) return undefined;
    if (typeof spec.title === 'function') title = spec.title(args);
    return await spec.run(args);
  } catch (error) {
    // Not awaited: the command answers now, not when the person closes the message.
    void reportFailure(log, title, error);
    return undefined;
  }
}

/** Registers each spec as a VS Code command. */
export function registerCommands(glue: Glue, specs: readonly CommandSpec[]): vscode.Disposable[] {
  return specs.map((spec) => vscode.commands.registerCommand(spec.id, (...raw: unknown[]) => execute(glue.log, spec, raw)));
}

/** Runs `work` with a signal that aborts, with `reason`, when the person cancels `token` (a progress notification's). */
export async function whileNotCancelled<T>(token: vscode.CancellationToken, reason: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const cancel = token.onCancellationRequested(() => abort.abort(reason));
  try {
    return await work(abort.signal);
  } finally {
    cancel.dispose();
  }
}
