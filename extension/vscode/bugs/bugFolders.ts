import path from 'node:path';
import * as vscode from 'vscode';
import { BUG_FILES } from '../../core/bugs/bugArtifact';

export interface BugFolder {
  dir: string;
  /** Which of the five files are absent (the folder still shows, with what is missing). */
  missing: string[];
}

const NAMES = Object.values(BUG_FILES);

/** Folders of the workspace that hold a bug's files: found by any of the five, listed with what they lack. */
export async function findBugFolders(token?: vscode.CancellationToken): Promise<BugFolder[]> {
  const found = await vscode.workspace.findFiles(`**/{${NAMES.join(',')}}`, '**/{node_modules,.git}/**', 10_000, token);
  const present = new Map<string, Set<string>>();
  for (const uri of found) {
    const dir = path.dirname(uri.fsPath);
    const names = present.get(dir) ?? new Set<string>();
    names.add(path.basename(uri.fsPath));
    present.set(dir, names);
  }
  // A single stray test_parser.py is not a bug folder; two of the five files are.
  return [...present]
    .filter(([, names]) => names.size >= 2)
    .map(([dir, names]) => ({ dir, missing: NAMES.filter((n) => !names.has(n)) }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
