import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { BUG_FILES } from '../../core/bugs/bugArtifact';
import { configuredPath } from '../settings';

/** Setting: where captured bugs are saved (absolute, or relative to the first workspace folder). */
const BUGS_FOLDER_SETTING = 'bugs.folder';

export interface BugFolder {
  dir: string;
  /** Which of the five files are absent (the folder still shows, with what is missing). */
  missing: string[];
}

const NAMES = Object.values(BUG_FILES);

function within(dir: string, parent: string): boolean {
  const relative = path.relative(parent, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The workspace folders on disk. */
function workspaceDirs(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * Where bugs captured from `repo` are saved by default, never inside the repository:
 * `sweWorkbench.bugs.folder`, else `bugs/` in a workspace folder that is not the repository (the
 * demo's `workbench`), else a `<repository>-bugs` folder beside it.
 */
export function bugsRoot(repo: string): string {
  const configured = configuredPath(BUGS_FOLDER_SETTING);
  if (configured) return configured;
  const other = workspaceDirs().find((dir) => !within(dir, repo));
  return other ? path.join(other, 'bugs') : path.join(path.dirname(repo), `${path.basename(repo)}-bugs`);
}

/** Roots outside the workspace where bugs may have been saved: the setting's, and `<folder>-bugs` beside each folder. */
function rootsOutsideWorkspace(): string[] {
  const folders = workspaceDirs();
  const roots = [configuredPath(BUGS_FOLDER_SETTING), ...folders.map((f) => path.join(path.dirname(f), `${path.basename(f)}-bugs`))];
  return roots.filter((r): r is string => !!r && existsSync(r) && !folders.some((f) => within(r, f)));
}

/** Folders of the workspace (and of the bug roots outside it) that hold a bug's files: found by any of the five, listed with what they lack. */
export async function findBugFolders(token?: vscode.CancellationToken): Promise<BugFolder[]> {
  const found = await vscode.workspace.findFiles(`**/{${NAMES.join(',')}}`, '**/{node_modules,.git}/**', 10_000, token);
  const present = new Map<string, Set<string>>();
  const add = (file: string) => {
    const dir = path.dirname(file);
    const names = present.get(dir) ?? new Set<string>();
    names.add(path.basename(file));
    present.set(dir, names);
  };
  for (const uri of found) add(uri.fsPath);
  for (const root of rootsOutsideWorkspace()) {
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(root, entry.name);
      for (const name of readdirSync(dir)) if ((NAMES as readonly string[]).includes(name)) add(path.join(dir, name));
    }
  }
  // A single stray test_parser.py is not a bug folder; two of the five files are.
  return [...present]
    .filter(([, names]) => names.size >= 2)
    .map(([dir, names]) => ({ dir, missing: NAMES.filter((n) => !names.has(n)) }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
