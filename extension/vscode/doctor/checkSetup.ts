import { tmpdir } from 'node:os';
import * as vscode from 'vscode';
import { DEFAULT_TOOLS_DIR, formatDoctor, runDoctor, type CheckResult } from '../../core/doctor/doctor';
import { DEFAULT_BASE_IMAGE } from '../../core/runtime/baseImage';
import { readApiKey, readSettings, sandboxSettings } from '../settings';
import { command, registerCommands, type Glue } from '../commands';

/** "SWE Workbench: Check Setup": the doctor's checks with this window's settings; the report goes to the log. */
export function activateCheckSetup(glue: Glue): vscode.Disposable[] {
  return registerCommands(glue, [command({ id: 'sweWorkbench.checkSetup', title: 'check the setup', run: () => checkSetup(glue) })]);
}

async function checkSetup({ context, log }: Glue): Promise<CheckResult[]> {
  const settings = readSettings();
  const apiKey = await readApiKey(context.secrets);
  const results = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'SWE Workbench: checking the setup…' }, () =>
    runDoctor({
      docker: sandboxSettings(settings).docker,
      image: settings.docker.image || DEFAULT_BASE_IMAGE,
      ...(settings.policy.url ? { policyUrl: settings.policy.url } : {}),
      ...(settings.policy.model ? { model: settings.policy.model } : {}),
      ...(apiKey ? { apiKey } : {}),
      toolsDir: process.env.SWE_WORKBENCH_TOOLS ?? DEFAULT_TOOLS_DIR,
      // In code-server (the demo), its own install: found even when this window's environment names another tools folder.
      runningFrom: [vscode.env.appRoot],
      diskPaths: [tmpdir()],
    }),
  );
  log.info(`Check Setup\n${formatDoctor(results)}`);
  const failed = results.filter((r) => r.status === 'fail');
  const warned = results.filter((r) => r.status === 'warn');
  const names = (list: CheckResult[]) => list.map((r) => r.title).join(', ');
  const show = (choice: string | undefined) => choice && log.show();
  if (failed.some((r) => r.required))
    void vscode.window.showErrorMessage(`SWE Workbench is not ready: ${names(failed)} failed. The log says how to fix each.`, 'Show Details').then(show);
  else if (failed.length + warned.length > 0)
    void vscode.window.showWarningMessage(`SWE Workbench is ready; to look at: ${names([...failed, ...warned])}.`, 'Show Details').then(show);
  else void vscode.window.showInformationMessage('SWE Workbench is ready: Docker, the image, Pyright, the policy server and disk space all check out.');
  return results;
}
