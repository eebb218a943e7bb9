import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FileEntry } from './fileEntry';
import type { Rollout } from './record';
import { describeZodError, errorText } from '../errors';
import { inputLines } from '../input/readInput';

/** Bumped whenever what a file entry holds or how the file is laid out changes, so an older cache is dropped, not misread. */
const CACHE_VERSION = 6;

/**
 * The cache is JSON lines: a header, one line per file entry, one per row joined from them,
 * and a trailer with the counts and the SHA-1 of the lines between. It is written and read a
 * line at a time: one JSON text of a 100,000-rollout run was a 110 MB string held beside its
 * objects, the largest part of a cold index's peak memory. A cache that verifies is the one
 * this code wrote from validated entries, so they are not validated again (zod over 1,000
 * entries cost half of a warm index), and the rows stand while no file changes (the join cost a
 * third).
 */
const CacheHeaderSchema = z.object({ version: z.literal(CACHE_VERSION), root: z.string() });
const CacheTrailerSchema = z.object({ entries: z.number().int().nonnegative(), rollouts: z.number().int().nonnegative(), sha1: z.string() });

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

export async function loadCache(cacheDir: string, root: string): Promise<LoadedCache> {
  const file = cacheFile(cacheDir, root);
  if (!(await stat(file).catch(() => undefined))?.isFile()) return { entries: new Map() };
  const discard = (why: string): LoadedCache => ({ entries: new Map(), discarded: why });
  const hash = createHash('sha1');
  const body: unknown[] = [];
  // The last line read: a body line once another follows it, the trailer at the end.
  let last: string | undefined;
  try {
    for await (const l of inputLines(file)) {
      if (l.tooLong) return discard(`cache line ${l.line} is over the input limit`);
      if (l.line === 1) {
        const header = CacheHeaderSchema.safeParse(JSON.parse(l.text));
        if (!header.success) return discard(`cache does not match version ${CACHE_VERSION}: ${describeZodError('header', header.error)}`);
        if (header.data.root !== root) return discard(`cache belongs to ${header.data.root}`);
        continue;
      }
      if (last !== undefined) {
        hash.update(last).update('\n');
        body.push(JSON.parse(last));
      }
      last = l.text;
    }
  } catch (err) {
    return discard(`cache is not valid JSON (${errorText(err)})`);
  }
  let trailer: unknown;
  try {
    trailer = last === undefined ? undefined : JSON.parse(last);
  } catch (err) {
    return discard(`cache is not valid JSON (${errorText(err)})`);
  }
  const counts = CacheTrailerSchema.safeParse(trailer);
  if (!counts.success) return discard('cache ends without its checksum line (cut short)');
  if (hash.digest('hex') !== counts.data.sha1) return discard('cache entries do not match their checksum');
  if (body.length !== counts.data.entries + counts.data.rollouts)
    return discard(`cache holds ${body.length} lines, its trailer says ${counts.data.entries + counts.data.rollouts}`);
  const files = body.slice(0, counts.data.entries) as FileEntry[];
  const rollouts = body.slice(counts.data.entries) as Rollout[];
  return { entries: new Map(files.map((f) => [f.path, f])), rollouts: rollouts.map(withAbsentKeys) };
}

/** The row members JSON drops when undefined, put back so a row from the cache equals a joined one. */
const MAYBE_UNDEFINED = ['line', 'exitStatus', 'reward', 'tokens', 'cost', 'duration', 'evaluation', 'prediction'] as const satisfies ReadonlyArray<
  keyof Rollout
>;

function withAbsentKeys(row: Rollout): Rollout {
  for (const key of MAYBE_UNDEFINED) if (!(key in row)) row[key] = undefined;
  return row;
}

/** Lines written to the file at once. */
const WRITE_CHUNK = 1 << 20;

/** Written line by line to a temporary file and renamed, so a reader never sees half a cache. */
export async function saveCache(cacheDir: string, root: string, entries: FileEntry[], rollouts: Rollout[]): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  const target = cacheFile(cacheDir, root);
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  const out = await open(temp, 'w');
  try {
    const hash = createHash('sha1');
    let chunk = JSON.stringify({ version: CACHE_VERSION, root }) + '\n';
    const line = async (value: unknown) => {
      const text = JSON.stringify(value) + '\n';
      hash.update(text);
      chunk += text;
      if (chunk.length >= WRITE_CHUNK) {
        await out.write(chunk);
        chunk = '';
      }
    };
    for (const entry of entries) await line(entry);
    for (const row of rollouts) await line(row);
    chunk += JSON.stringify({ entries: entries.length, rollouts: rollouts.length, sha1: hash.digest('hex') }) + '\n';
    await out.write(chunk);
  } catch (err) {
    await out.close();
    await rm(temp, { force: true });
    throw err;
  }
  await out.close();
  await rename(temp, target);
}
