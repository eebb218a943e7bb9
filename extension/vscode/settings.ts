import path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { type Recipe } from '../core/reward/recipes';
import { loadRecipeCatalog } from '../core/reward/recipeFiles';
import { connectionOptionsFromEnv, type DockerConnectionOptions } from '../core/runtime/dockerConnection';
import type { SandboxLimits } from '../core/runtime/sandbox';
import { describeZodError } from '../core/errors';

export const SECTION = 'sweWorkbench';
const API_KEY_SECRET = 'sweWorkbench.policy.apiKey';

const SettingsSchema = z.object({
  policy: z.object({ url: z.string(), model: z.string(), tokenIds: z.boolean() }),
  docker: z.object({ host: z.string(), image: z.string() }),
  limits: z.object({
    cpus: z.number().positive(),
    memoryMb: z.number().int().positive(),
    pids: z.number().int().positive(),
    timeoutSeconds: z.number().positive(),
  }),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** The sandbox limits and Docker engine the settings ask for, in the runtime's terms. */
export function sandboxSettings(settings: Settings): { limits: Partial<SandboxLimits>; docker: DockerConnectionOptions } {
  const { limits, docker } = settings;
  return {
    limits: { cpus: limits.cpus, memoryBytes: limits.memoryMb * 1024 * 1024, pids: limits.pids, commandTimeoutMs: limits.timeoutSeconds * 1000 },
    docker: connectionOptionsFromEnv(docker.host ? { ...process.env, DOCKER_HOST: docker.host } : process.env),
  };
}

/** Reads `sweWorkbench.*`; a value of the wrong type (hand-edited settings.json) is named in the error. */
export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const raw = {
    policy: { url: c.get('policy.url'), model: c.get('policy.model'), tokenIds: c.get('policy.tokenIds') },
    docker: { host: c.get('docker.host'), image: c.get('docker.image') },
    limits: { cpus: c.get('limits.cpus'), memoryMb: c.get('limits.memoryMb'), pids: c.get('limits.pids'), timeoutSeconds: c.get('limits.timeoutSeconds') },
  };
  const parsed = SettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new Error(`setting ${describeZodError(SECTION, parsed.error)}`);
}

export function readApiKey(secrets: vscode.SecretStorage): Thenable<string | undefined> {
  return secrets.get(API_KEY_SECRET);
}

export function activateSettings(context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sweWorkbench.policy.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'Policy server API key',
        password: true,
        ignoreFocusOut: true,
        prompt: 'Stored in the secret storage of VS Code, never in settings.',
      });
      if (key === undefined) return;
      await context.secrets.store(API_KEY_SECRET, key);
      void vscode.window.showInformationMessage('SWE Workbench: API key stored.');
    }),
    vscode.commands.registerCommand('sweWorkbench.policy.clearApiKey', async () => {
      await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage('SWE Workbench: API key removed.');
    }),
  ];
}

/** A path setting (`sweWorkbench.<setting>`); it may be relative to the first workspace folder. */
export function configuredPath(setting: string): string | undefined {
  const raw = vscode.workspace.getConfiguration(SECTION).get<unknown>(setting);
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return base ? path.resolve(base, raw) : path.resolve(raw);
}

const RECIPE_FILE_SETTING = 'rewards.recipeFile';

/** The reward recipes the views offer: the built-in ones and those of `sweWorkbench.rewards.recipeFile`. */
export async function recipeCatalog(): Promise<{ recipes: Recipe[]; file: string | null; problem: string | null }> {
  const file = configuredPath(RECIPE_FILE_SETTING);
  return { ...(await loadRecipeCatalog(file)), file: file ?? null };
}
