import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, writeFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { detectScaffold, evidencedScaffoldName } from '../scaffolds/registry';
import { exportTrajectory, formatForFileName, type ExportFormat } from '../trajectory/exporters';
import type { WriteOptions } from '../trajectory/formatRegistry';
import { TrajectorySchema, type Outcome, type Step, type Task, type Trajectory, type TrajectoryMeta } from '../trajectory/model';

/** Collects a session's steps into a canonical trajectory that remembers where it came from. */
export class TrajectoryRecorder {
  private readonly recorded: Step[] = [];
  readonly id = randomUUID();
  private readonly createdAt = new Date().toISOString();

  constructor(
    private readonly task: Task,
    private readonly meta: TrajectoryMeta = {},
  ) {}

  get steps(): readonly Step[] {
    return this.recorded;
  }

  append(step: Step): void {
    this.recorded.push(step);
  }

  /** The trajectory so far, checked against the model so that a written file always loads. */
  trajectory(outcome: Outcome): Trajectory {
    return TrajectorySchema.parse({
      format: 'canonical',
      task: this.task,
      steps: this.recorded,
      outcome,
      meta: { ...this.meta, id: this.id, createdAt: this.createdAt },
    });
  }
}

/**
 * Writes `format` (default: the one format whose file ending the name has, as `.traj` is SWE-agent's, else
 * canonical JSON); beside the target first, then renamed, so a reader never sees half a file.
 */
export async function writeTrajectoryFile(
  file: string,
  trajectory: Trajectory,
  format: ExportFormat = formatForFileName(file),
  options: WriteOptions = {},
): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  // Written in another format than its own, a trajectory keeps the scaffold it shows (as detected when it does not
  // say): the new format's own detection would otherwise name that format's family.
  const scaffold = trajectory.meta.scaffold ?? (format === trajectory.format ? undefined : evidencedScaffoldName(detectScaffold(trajectory)));
  const text = exportTrajectory(scaffold ? { ...trajectory, meta: { ...trajectory.meta, scaffold } } : trajectory, format, options);
  try {
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/**
 * A session's trajectory kept on disk while it runs, so a stepper can read it as it grows: each
 * write replaces the whole file (atomically, canonical JSON), in the order asked. The file lives
 * in a folder of its own, which `remove` deletes once the session is gone.
 */
export class LiveTrajectoryFile {
  private last: Promise<void> = Promise.resolve();
  private removed = false;

  constructor(readonly file: string) {}

  /** Queues a write of `trajectory`; resolves once it, and every write queued before, is on disk. Nothing is written once removed. */
  write(trajectory: Trajectory): Promise<void> {
    const next = this.last.then(async () => {
      if (this.removed) return;
      await mkdir(dirname(this.file), { recursive: true });
      await writeTrajectoryFile(this.file, trajectory, 'canonical');
    });
    this.last = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every write queued so far has ended. */
  settled(): Promise<void> {
    return this.last;
  }

  /** Deletes the file and its folder after the writes already queued; later writes do nothing. */
  remove(): Promise<void> {
    this.removed = true;
    const next = this.last.then(() => rm(dirname(this.file), { recursive: true, force: true }));
    this.last = next.catch(() => undefined);
    return next;
  }
}

/**
 * The folder name of a session's trajectory file under the sessions folder: the extension host's
 * process id first, so that another window (another process, same global storage) can tell
 * whether the session that wrote it may still be running.
 */
export function sessionFolderName(pid = process.pid): string {
  return `${pid}-${randomUUID().slice(0, 8)}`;
}

/** Whether process `pid` exists (EPERM: it exists, owned by another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the session folders under `root` left by processes that have ended (a window closed or
 * crashed before removing its session's file), and any folder not named by `sessionFolderName`.
 * Folders of a live process, this one's included, stay: another window's session may be running.
 * Returns the names removed; a missing `root` removes nothing.
 */
export async function removeStaleSessionFolders(root: string, alive: (pid: number) => boolean = processAlive): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const removed: string[] = [];
  for (const entry of entries) {
    const pid = /^(\d+)-/.exec(entry.name)?.[1];
    if (pid !== undefined && alive(Number(pid))) continue;
    await rm(join(root, entry.name), { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed;
}
