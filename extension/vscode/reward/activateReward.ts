import path from 'node:path';
import * as vscode from 'vscode';
import { activeFileUri } from '../activeFile';
import { z } from 'zod';
import { RewardUiStateSchema, type RewardBreakdown, type RewardSources } from '../../protocol/reward';
import { recipeCatalog } from '../settings';
import { buildRewardBreakdown } from './rewardBreakdown';
import { REWARD_VIEW, RewardPanel } from './rewardPanel';
import { command, parseArgument, registerCommands, reportFailure, type Glue } from '../commands';

const PathArg = z.union([z.string().min(1), z.custom<vscode.Uri>((v) => v instanceof vscode.Uri, 'expected a path or a file URI').transform((u) => u.fsPath)]);
/** The argument of `sweWorkbench.reward.show` (command links and other extensions pass it). */
const RewardShowArgs = z.strictObject({
  testOutput: PathArg.optional(),
  instance: PathArg.optional(),
  instanceId: z.string().optional(),
  report: PathArg.optional(),
  trajectory: PathArg.optional(),
  record: z.number().int().nonnegative().optional(),
  title: z.string().optional(),
  recipe: z.string().optional(),
  /** How the rollout's run ended, as the rollouts table hands it (RewardSources.run). */
  run: z
    .strictObject({
      finishReason: z.string().optional(),
      steps: z.number().int().nonnegative().optional(),
      truncated: z.boolean().optional(),
      infraError: z.string().optional(),
      evaluationError: z.string().optional(),
    })
    .optional(),
});

/** What the command returns: the breakdown shown, so a caller (a test, a rollout) can read it. */
export interface RewardShown {
  breakdown: RewardBreakdown;
  panel: RewardPanel;
}

export function activateReward(glue: Glue): vscode.Disposable[] {
  const { context, log } = glue;
  const panels = new Set<RewardPanel>();
  /** Opens (or, after a reload, restores) a panel on `sources`; it says what failed too, and so does the command's message. */
  const show = async (sources: RewardSources, restored?: vscode.WebviewPanel): Promise<RewardShown> => {
    const grade = async (s: RewardSources) => buildRewardBreakdown(s, (await recipeCatalog()).recipes);
    const breakdown = grade(sources);
    const title = sources.title ?? `Reward: ${path.basename(sources.testOutput ?? sources.report ?? sources.trajectory ?? '')}`;
    const webviewPanel = restored ?? vscode.window.createWebviewPanel(REWARD_VIEW, title, vscode.ViewColumn.Active, { retainContextWhenHidden: false });
    const panel = new RewardPanel(webviewPanel, breakdown, sources, grade, context.extensionUri, log);
    panels.add(panel);
    webviewPanel.onDidDispose(() => panels.delete(panel));
    const shown = await breakdown;
    webviewPanel.title = shown.title;
    return { breakdown: shown, panel };
  };
  return [
    { dispose: () => [...panels].forEach((p) => p.panel.dispose()) },
    vscode.window.registerWebviewPanelSerializer(REWARD_VIEW, {
      // The files graded before the reload are graded again: one that is gone is named in the panel.
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const parsed = RewardUiStateSchema.safeParse(state);
        if (parsed.success) await show(parsed.data.sources, panel).catch((error: unknown) => void reportFailure(log, 'grade', error));
        else panel.dispose();
      },
    }),
    ...registerCommands(glue, [
      command({
        id: 'sweWorkbench.reward.show',
        title: 'grade',
        args: (arg?: unknown) => (arg === undefined ? pickRewardSources() : parseArgument(RewardShowArgs, arg, 'sweWorkbench.reward.show')),
        run: (sources) => show(sources),
      }),
    ]),
  ];
}

/**
 * Picks the files to grade. A report.json picked alone takes the test_output.txt beside it,
 * as SWE-smith and SWE-bench write one folder per instance.
 */
async function pickRewardSources(): Promise<RewardSources | undefined> {
  const active = activeFileUri();
  const picked =
    active?.scheme === 'file' && path.basename(active.fsPath) === 'report.json'
      ? [active]
      : await vscode.window.showOpenDialog({
          title: 'Grade: pick a test output with its task instance, or a report.json',
          canSelectMany: true,
          openLabel: 'Grade',
          defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
        });
  if (!picked?.length) return undefined;
  const sources: RewardSources = {};
  for (const uri of picked) {
    const name = path.basename(uri.fsPath);
    if (name === 'report.json') sources.report = uri.fsPath;
    else if (/\.jsonl?$/.test(name)) sources.instance = uri.fsPath;
    else sources.testOutput = uri.fsPath;
  }
  if (sources.report && !sources.testOutput) {
    const beside = vscode.Uri.file(path.join(path.dirname(sources.report), 'test_output.txt'));
    const exists = await vscode.workspace.fs.stat(beside).then(
      () => true,
      () => false,
    );
    if (exists) sources.testOutput = beside.fsPath;
  }
  return sources;
}
