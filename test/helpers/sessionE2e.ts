import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { toCanonicalJson } from '../../extension/core/trajectory/canonicalExport';
import { TrajectorySchema } from '../../extension/core/trajectory/model';

/** A shell step of a recording: the command as the agent wrote it and the output it recorded. */
export interface ShellStep {
  raw: string;
  observation: string;
}

/**
 * Writes a canonical recording of plain shell steps on the base image at /repo, as a replay in
 * the e2e workspace (copied into the container) reads it.
 */
export function writeShellRecording(file: string, steps: readonly ShellStep[]): void {
  const trajectory = TrajectorySchema.parse({
    format: 'canonical',
    task: { image: 'swe-workbench/base:bookworm', repoPath: '/repo' },
    steps: steps.map((s, index) => ({ index, thought: `Step ${index + 1}.`, action: { raw: s.raw, tool: null, args: {} }, observation: s.observation })),
    outcome: {},
    meta: { parseFunction: 'thought_action' },
  });
  writeFileSync(file, toCanonicalJson(trajectory));
}

/** Containers of VS Code sessions on this Docker engine, running or not. */
export function sessionContainers(): string[] {
  return execFileSync('docker', ['ps', '-aq', '--filter', 'label=swe-workbench.role=vscode-session'], { encoding: 'utf8' }).split('\n').filter(Boolean);
}
