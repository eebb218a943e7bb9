import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FileEntrySchema, type FileEntry } from './fileEntry';

/** Bumped whenever what a file entry holds changes, so an older cache is dropped, not misread. */
const CACHE_VERSION = 1;

const CacheFileSchema = z.object({
  version: z.literal(CACHE_VERSION),
  root: z.string(),
  files: z.array(FileEntrySchema),
});

export interface LoadedCache {
  entries: Map<string, FileEntry>;
  /** Why the cache on disk was discarded, if it was. */
  discarded?: string;
}

/** One cache file per indexed folder, named after a hash of its absolute path. */
export function cacheFile(cacheDir: string, root: string): string {
  return join(cacheDir, `rollouts-${createHash('sha1').update(root).digest('hex').slice(0, 16)}.json`);
}

export async function loadCache(cacheDir: string, root: string): Promise<LoadedCache> {
  let text: string;
  try {
    text = await readFile(cacheFile(cacheDir, root), 'utf8');
  } catch {
    return { entries: new Map() };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { entries: new Map(), discarded: `cache is not valid JSON (${(err as Error).message})` };
  }
  const parsed = CacheFileSchema.safeParse(value);
  if (!parsed.success) return { entries: new Map(), discarded: `cache does not match version ${CACHE_VERSION}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  if (parsed.data.root !== root) return { entries: new Map(), discarded: `cache belongs to ${parsed.data.root}` };
  return { entries: new Map(parsed.data.files.map((f) => [f.path, f])) };
}

/** Written to a temporary file and renamed, so a reader never sees half a cache. */
export async function saveCache(cacheDir: string, root: string, entries: Iterable<FileEntry>): Promise<void> {
  await mkdir(cacheDir, { recursive: true });
  const target = cacheFile(cacheDir, root);
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, JSON.stringify({ version: CACHE_VERSION, root, files: [...entries] }));
  await rename(temp, target);
}
