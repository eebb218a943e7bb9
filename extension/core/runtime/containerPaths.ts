/**
 * Where the workbench keeps its own files inside a sandbox container: under one hidden folder of
 * /tmp, outside the repository, so an agent's `git status` never sees them.
 */
const ROOT = '/tmp/.swe-workbench';

/** The repository copies `Sandbox.snapshot()` takes. */
export const SANDBOX_SNAPSHOT_DIR = `${ROOT}/snapshots`;

/** The pid files of the processes a sandbox spawns. */
export const PROCESS_DIR = `${ROOT}/processes`;

/** A session's fork snapshots (`session/forkSnapshots.ts`): one folder per session, its tars and dumps. */
export const FORK_SNAPSHOT_DIR = `${ROOT}/fork-snapshots`;
