import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { detectScaffold, scaffoldName } from '../scaffolds/registry';
import { exportTrajectory, type ExportFormat } from '../trajectory/exporters';
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
 * Writes `format` (default: SWE-agent's `.traj` when the name ends in `.traj`, else canonical JSON); beside the
 * target first, then renamed, so a reader never sees half a file.
 */
export async function writeTrajectoryFile(
  file: string,
  trajectory: Trajectory,
  format: ExportFormat = file.endsWith('.traj') ? 'swe-agent' : 'canonical',
): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  // Written in another format than its own, a trajectory keeps the scaffold it shows (as detected when it does not
  // say): the new format's own detection would otherwise name that format's family.
  const scaffold = trajectory.meta.scaffold ?? (format === trajectory.format ? undefined : scaffoldName(detectScaffold(trajectory)));
  const text = exportTrajectory(scaffold ? { ...trajectory, meta: { ...trajectory.meta, scaffold } } : trajectory, format);
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
 * write replaces the whole file (atomically, canonical JSON), in the order asked.
 */
export class LiveTrajectoryFile {
  private last: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** Queues a write of `trajectory`; resolves once it, and every write queued before, is on disk. */
  write(trajectory: Trajectory): Promise<void> {
    const next = this.last.then(async () => {
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
}
