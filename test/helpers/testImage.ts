/**
 * An image a test needs, built offline once from a Dockerfile and the files beside it, and kept
 * by its tag for later runs (a changed recipe gets a new tag).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A file in the build folder: its text, or its text and mode. */
type BuildFile = string | { text: string; mode: number };

/** `prepare` fills the build folder with what cannot be given as text (packages fetched on the host). */
export async function ensureTestImage(
  tag: string,
  dockerfile: string,
  files: Record<string, BuildFile> = {},
  prepare?: (dir: string) => Promise<void>,
): Promise<string> {
  const present = await run('docker', ['image', 'inspect', tag]).then(
    () => true,
    () => false,
  );
  if (present) return tag;
  const dir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-test-image-'));
  try {
    await prepare?.(dir);
    await writeFile(path.join(dir, 'Dockerfile'), dockerfile);
    for (const [name, file] of Object.entries(files))
      await writeFile(path.join(dir, name), typeof file === 'string' ? file : file.text, typeof file === 'string' ? {} : { mode: file.mode });
    await run('docker', ['build', '--network', 'none', '-t', tag, dir], { maxBuffer: 16 * 1024 * 1024 });
    return tag;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
