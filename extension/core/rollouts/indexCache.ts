import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FileEntry } from './fileEntry';
import type { Rollout } from './record';
import { describeZodError, errorText } from '../errors';

/** Bumped whenever what a file entry holds or how the file is laid out changes, so an older cache is dropped, not misread. */
const CACHE_VERSION = 5;

/**
 * The cache is a header line, then the entries and the rows joined from them as one JSON
 * object. The header carries the SHA-1 of those bytes: a cache that verifies is the one this
 * code wrote from validated entries, so they are not validated again (zod over 1,000 entries
 * cost half of a warm index), and the rows stand while no file changes (the join cost a third).
 */
const CacheHeaderSchema = z.object({
  version: z.literal(CACHE_VERSION),
  root: z.string(),
  entries: z.number().int().nonnegative(),
  sha1: z.string(),
});

export interface LoadedCache {
  entries: Map<string, FileEntry>;
  /** The rows joined from exactly these entries. */
  rollouts?: Rollout[];
  /** Why the cache on disk was discarded, if it was. */
  discarded?: string;
}

/** One cache file per indexed folder, named after a hash of its absolute path. @internal */
export function cacheFile(cacheDir: string, root: string): string {
  return join(cacheDir, `rollouts-${createHash('sha1').update(root).digest('hex').slice(0, 16)}.json`);
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export async function loadCache(cacheDir: string, root: string): Promise<LoadedCache> {
  let text: string;
  try {
    text = await readFile(cacheFile(cacheDir, root), 'utf8');
  } catch {
    return { entries: new Map() };
  }
  const discard = (why: string): LoadedCache => ({ entries: new Map(), discarded: why });
  const newline = text.indexOf('\n');
  const body = newline === -1 ? '' : text.slice(newline + 1);
  let header: unknown;
  try {
    header = JSON.parse(newline === -1 ? text : text.slice(0, newline));
  } catch (err) {
    return discard(`cache is not valid JSON (${errorText(err)})`);
  }
  const parsed = CacheHeaderSchema.safeParse(header);
  if (!parsed.success) return discard(`cache does not match version ${CACHE_VERSION}: ${describeZodError('header', parsed.error)}`);
  if (parsed.data.root !== root) return discard(`cache belongs to ${parsed.data.root}`);
  if (sha1(body) !== parsed.data.sha1) return discard('cache entries do not match their checksum');
  const { files, rollouts } = JSON.parse(body) as CacheBody;
  if (!Array.isArray(files) || files.length !== parsed.data.entries)
    return discard(`cache holds ${Array.isArray(files) ? files.length : 'no'} entries, its header says ${parsed.data.entries}`);
  return { entries: new Map(files.map((f) => [f.path, f])), rollouts: rollouts.map(withAbsentKeys) };
}

interface CacheBody {
  files: FileEntry[];
  rollouts: Rollout[];
}

/** The row members JSON drops when undefined, put back so a row from the cache equals a joined one. */
const MAYBE_UNDEFINED = ['line', 'exitStatus', 'reward', 'tokens', 'cost', 'duration', 'evaluation', 'prediction'] as const satisfies ReadonlyArray<
  keyof Rollout
>;

function withAbsentKeys(row: Rollout): Rollout {
  for (const key of MAYBE_UNDEFINED) if (!(key in row)) row[key] = undefined;
  return row;
}

/** Written to a temporary file and renamed, so a reader never sees half a cache. */
export async function saveCache(cacheDir: string, root: string, entries: FileEntry[], rollouts: Rollout[]): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  const target = cacheFile(cacheDir, root);
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  const body = JSON.stringify({ files: entries, rollouts } satisfies CacheBody);
  await writeFile(temp, `${JSON.stringify({ version: CACHE_VERSION, root, entries: entries.length, sha1: sha1(body) })}\n${body}`);
  await rename(temp, target);
}
