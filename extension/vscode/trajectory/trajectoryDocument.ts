import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Trajectory } from '../../core/trajectory/model';
import { loadTrajectory, type LoadedTrajectory } from '../../core/trajectory/load';

/**
 * A trajectory file opened in the stepper: its URI and, once a view first asks, the parsed
 * trajectory. Nothing is read until then, and the parse happens once per document.
 */
export class TrajectoryDocument implements vscode.CustomDocument {
  private loading: Promise<LoadedTrajectory> | undefined;
  private readonly controller = new AbortController();

  constructor(readonly uri: vscode.Uri) {}

  get fileName(): string {
    return path.basename(this.uri.fsPath);
  }

  loaded(): Promise<LoadedTrajectory> {
    this.loading ??= loadTrajectory(this.uri.fsPath, { signal: this.controller.signal });
    return this.loading;
  }

  async trajectory(): Promise<Trajectory> {
    return (await this.loaded()).trajectory;
  }

  dispose(): void {
    this.controller.abort('the trajectory was closed');
  }
}
