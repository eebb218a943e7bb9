/**
 * What an ATIF file refers to beyond itself, read once it is imported: the files its run continues
 * in (`continued_trajectory_ref`, which Terminus-2 writes when it summarises with a linear
 * history: `trajectory.json`, then `trajectory.cont-1.json`...) and the trajectories its steps
 * delegated to (`subagent_trajectory_ref`: embedded in `subagent_trajectories` by
 * `trajectory_id`, or a file of its own by `trajectory_path`). A path is read beside the file
 * that names it; Harbor's own tests keep the files under a common prefix
 * (`hello-world.trajectory.json` naming `trajectory.cont-1.json`), so the same prefix is tried
 * when the plain name is not there.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { InputError } from '../../errors';
import type { LinkedFile } from '../formatRegistry';
import type { Step } from '../model';
import { continuationFlag } from '../copiedContext';
import { importAtifSubagent, refName } from './atif';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A run split over more files than this is taken for a loop of references. */
const MAX_SEGMENTS = 1000;

/** The file `ref` names, read beside `from`: as written, else under `from`'s own prefix; undefined when neither is there. */
function besides(from: string, ref: string): { found?: string; tried: string[] } {
  if (isAbsolute(ref)) return existsSync(ref) ? { found: ref, tried: [ref] } : { tried: [ref] };
  const dir = dirname(from);
  const tried = [join(dir, ref)];
  const parts = basename(from).split('.');
  for (let n = 1; n < parts.length - 1; n++) tried.push(join(dir, `${parts.slice(0, n).join('.')}.${ref}`));
  return { found: tried.find((f) => existsSync(f)), tried };
}

const continuation = (root: unknown): string | undefined =>
  isObj(root) && typeof root.continued_trajectory_ref === 'string' ? root.continued_trajectory_ref : undefined;

/**
 * The run a file begins, joined with every file it continues in, in order: one trajectory whose
 * steps from continuation file N carry `continuationFlag(N)` (its head, the context copied over,
 * is marked as copied context by the file itself). The outcome and totals are the last file's:
 * Harbor's final metrics count the whole run. Steps keep their records: `root` holds each file's,
 * in order, and a step's pointers lead into its own.
 */
export async function joinContinuations(first: LinkedFile, load: (file: string) => Promise<LinkedFile>): Promise<LinkedFile> {
  let ref = continuation(first.root);
  if (ref === undefined) return first;
  const segments = [first];
  while (ref !== undefined) {
    const from = segments[segments.length - 1]!;
    const { found, tried } = besides(from.file, ref);
    if (!found)
      throw new InputError(from.file, '$.continued_trajectory_ref', `the run continues in '${ref}', which is not there (looked for ${tried.join(', ')})`);
    if (segments.some((s) => s.file === found))
      throw new InputError(from.file, '$.continued_trajectory_ref', `'${ref}' is ${found}, a file of this run already read: the continuations make a loop`);
    if (segments.length >= MAX_SEGMENTS) throw new InputError(from.file, '$.continued_trajectory_ref', `the run continues past ${MAX_SEGMENTS} files`);
    const next = await load(found);
    if (next.format !== 'atif') throw new InputError(found, undefined, `read as ${next.format}, but ${from.file} continues in it as ATIF`);
    segments.push(next);
    ref = continuation(next.root);
  }
  const steps: Step[] = [];
  segments.forEach((segment, k) => {
    for (const step of segment.trajectory.steps) {
      const flags = k === 0 ? step.flags : [...(step.flags ?? []), continuationFlag(k)];
      const source = step.source && { ...step.source, pointers: step.source.pointers.map((p) => `/${k}${p}`) };
      steps.push({ ...step, index: steps.length, ...(flags ? { flags } : {}), ...(source ? { source } : {}) });
    }
  });
  const last = segments[segments.length - 1]!.trajectory;
  const files = segments.map((s) => basename(s.file));
  return {
    ...first,
    root: segments.map((s) => s.root),
    trajectory: {
      ...first.trajectory,
      steps,
      outcome: { ...first.trajectory.outcome, ...last.outcome },
      meta: { ...first.trajectory.meta, segments: files },
    },
  };
}

/** Every subagent reference in a file's steps. */
function refsOf(root: unknown): Json[] {
  const steps = isObj(root) && Array.isArray(root.steps) ? root.steps : [];
  return steps.flatMap((s) => {
    const results = isObj(s) && isObj(s.observation) && Array.isArray(s.observation.results) ? s.observation.results : [];
    return results.flatMap((r) => (isObj(r) && Array.isArray(r.subagent_trajectory_ref) ? r.subagent_trajectory_ref.filter(isObj) : []));
  });
}

/** The names a subagent can be opened by: the ids of those embedded, the paths of those in files of their own. */
function subagentNames(root: unknown): string[] {
  const embedded = isObj(root) && Array.isArray(root.subagent_trajectories) ? root.subagent_trajectories : [];
  const ids = embedded.flatMap((s) => (isObj(s) && typeof s.trajectory_id === 'string' ? [s.trajectory_id] : []));
  const paths = refsOf(root).flatMap((r) => (typeof r.trajectory_path === 'string' && r.trajectory_id == null ? [r.trajectory_path] : []));
  return [...new Set([...ids, ...paths])];
}

/**
 * The subagent trajectory `name` as a trajectory of its own: the embedded one with that
 * `trajectory_id` (its steps located inside the parent's file), else the file a reference names
 * by that `trajectory_path`, read beside the parent.
 */
export async function openSubagent(parent: LinkedFile, name: string, load: (file: string) => Promise<LinkedFile>): Promise<LinkedFile> {
  const embedded = importAtifSubagent(parent.root, name, { file: parent.file, base: [] });
  if (embedded) return { ...parent, trajectory: embedded };
  const ref = refsOf(parent.root).find((r) => r.trajectory_path === name || r.trajectory_id === name);
  const path = typeof ref?.trajectory_path === 'string' ? ref.trajectory_path : undefined;
  if (path === undefined) {
    const names = subagentNames(parent.root);
    const known = names.length === 0 ? 'it delegates to none' : `it names ${names.join(', ')}`;
    const hint = ref ? ` (the reference ${refName(ref as never)} has no trajectory_path and no embedded trajectory matches)` : '';
    throw new InputError(parent.file, undefined, `no subagent trajectory '${name}'${hint}: ${known}`);
  }
  const { found, tried } = besides(parent.file, path);
  if (!found) throw new InputError(parent.file, undefined, `the subagent trajectory '${path}' is not there (looked for ${tried.join(', ')})`);
  return load(found);
}
