/**
 * Harbor's Terminus-2 context-summarisation run (ATIF v1.6, ../shared/fixtures/third-party/harbor)
 * as ATIF v1.7 keeps it in one file: the three summarisation subagents, which Harbor wrote to files
 * of their own, embedded under `subagent_trajectories`, each with a `trajectory_id` (its session
 * id) that the parent's `subagent_trajectory_ref` names instead of a `trajectory_path`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

type Json = Record<string, any>;

const RUN = 'hello-world-context-summarization.trajectory';
const SUBAGENTS = ['summary', 'questions', 'answers'] as const;

/** The subagents' trajectory ids, in the order the parent's step names them. */
export const EMBEDDED_SUBAGENTS = SUBAGENTS.map((s) => `test-session-context-summarization-summarization-1-${s}`);

/** Writes the v1.7 file to `file` from Harbor's golden files in `terminus2` (harbor/golden/terminus_2). */
export function writeEmbeddedSubagentRun(terminus2: string, file: string): void {
  const read = (name: string): Json => JSON.parse(readFileSync(path.join(terminus2, `${name}.json`), 'utf8')) as Json;
  const parent = read(RUN);
  const embedded = SUBAGENTS.map((s) => {
    const sub = read(`${RUN}.summarization-1-${s}`);
    return { ...sub, schema_version: 'ATIF-v1.7', trajectory_id: sub.session_id };
  });
  const byPath = new Map(SUBAGENTS.map((s, k) => [`trajectory.summarization-1-${s}.json`, embedded[k]!.trajectory_id as string]));
  const steps = (parent.steps as Json[]).map((step) => ({
    ...step,
    ...(step.observation && {
      observation: {
        ...step.observation,
        results: (step.observation.results as Json[]).map((r) =>
          r.subagent_trajectory_ref
            ? {
                ...r,
                subagent_trajectory_ref: (r.subagent_trajectory_ref as Json[]).map(({ trajectory_path, ...ref }) => ({
                  ...ref,
                  trajectory_id: byPath.get(trajectory_path as string),
                })),
              }
            : r,
        ),
      },
    }),
  }));
  writeFileSync(file, JSON.stringify({ ...parent, schema_version: 'ATIF-v1.7', steps, subagent_trajectories: embedded }, null, 2));
}
