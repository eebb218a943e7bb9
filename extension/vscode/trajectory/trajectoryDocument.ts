import * as path from 'node:path';
import type * as vscode from 'vscode';
import { InputError } from '../../core/errors';
import type { Trajectory } from '../../core/trajectory/model';
import { loadTrajectory, type LoadedTrajectory } from '../../core/trajectory/load';

const RECORD_PARAM = 'record';

/**
 * The URI that opens record `record` (0-based) of a JSONL file in the stepper. The record rides in
 * the query, which `vscode.openWith` hands to the custom editor intact and which makes each record
 * its own document.
 */
export function withRecord(uri: vscode.Uri, record: number): vscode.Uri {
  return uri.with({ query: `${RECORD_PARAM}=${record}` });
}

/** The JSONL record a stepper URI names, or undefined for the first. */
export function recordOf(uri: vscode.Uri): number | undefined {
  const value = new URLSearchParams(uri.query).get(RECORD_PARAM);
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw new InputError(uri.fsPath, `URI query ${RECORD_PARAM}`, `expected a record number (0 or more), got "${value}"`);
  return Number(value);
}

/**
 * A trajectory file opened in the stepper: its URI and, once asked (when the editor opens it),
 * the parsed trajectory. The parse happens once per document.
 */
export class TrajectoryDocument implements vscode.CustomDocument {
  private loading: Promise<LoadedTrajectory> | undefined;
  private readonly controller = new AbortController();

  constructor(readonly uri: vscode.Uri) {}

  get fileName(): string {
    return path.basename(this.uri.fsPath);
  }

  private settled = false;

  loaded(): Promise<LoadedTrajectory> {
    this.loading ??= Promise.resolve()
      .then(() => loadTrajectory(this.uri.fsPath, { signal: this.controller.signal, record: recordOf(this.uri) }))
      .finally(() => {
        this.settled = true;
      });
    return this.loading;
  }

  /** The parse has ended (read or failed): what it gives is at hand without waiting. */
  get isSettled(): boolean {
    return this.settled;
  }

  async trajectory(): Promise<Trajectory> {
    return (await this.loaded()).trajectory;
  }

  dispose(): void {
    this.controller.abort('the trajectory was closed');
  }
}
