/**
 * Tar streams for Docker's archive API (putArchive / getArchive): files and directory trees
 * from the host, byte for byte, and back out again without leaving the target directory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readlink, symlink, chmod } from 'node:fs/promises';
import { join, posix, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import tar from 'tar-stream';

type Pack = ReturnType<typeof tar.pack>;

async function addEntry(pack: Pack, hostPath: string, name: string): Promise<void> {
  const st = await lstat(hostPath);
  const header = { name, mode: st.mode & 0o7777, mtime: st.mtime, uid: 0, gid: 0 };
  if (st.isSymbolicLink()) {
    pack.entry({ ...header, type: 'symlink', linkname: await readlink(hostPath) });
  } else if (st.isDirectory()) {
    pack.entry({ ...header, type: 'directory' });
    for (const child of (await readdir(hostPath)).sort()) await addEntry(pack, join(hostPath, child), `${name}/${child}`);
  } else if (st.isFile()) {
    await new Promise<void>((done, fail) => {
      const entry = pack.entry({ ...header, type: 'file', size: st.size }, (err) => (err ? fail(err) : done()));
      createReadStream(hostPath).on('error', fail).pipe(entry);
    });
  }
}

/** A tar of a host file or directory, its top entry named `name` (no leading slash). */
export function packHostPath(hostPath: string, name: string): NodeJS.ReadableStream {
  const pack = tar.pack();
  addEntry(pack, hostPath, name).then(
    () => pack.finalize(),
    (err: Error) => pack.destroy(err),
  );
  return Readable.from(pack, { objectMode: false });
}

/**
 * Extracts a getArchive stream to `target`: its top entry becomes `target` itself. Entries that
 * would land outside `target` (`..`, absolute names) are refused.
 */
export async function extractTo(stream: NodeJS.ReadableStream, target: string): Promise<void> {
  const root = resolve(target);
  const extract = tar.extract();
  stream.pipe(extract);
  for await (const entry of extract) {
    const { header } = entry;
    const rest = header.name
      .split('/')
      .slice(1)
      .filter((p) => p !== '' && p !== '.')
      .join('/');
    const dest = resolve(root, rest);
    if (dest !== root && !dest.startsWith(root + sep)) throw new Error(`refusing archive entry '${header.name}': it points outside ${root}`);
    if (relative(root, dest).split(sep).includes('..')) throw new Error(`refusing archive entry '${header.name}'`);
    if (header.type === 'directory') {
      await mkdir(dest, { recursive: true });
      entry.resume();
    } else if (header.type === 'file') {
      await mkdir(posix.dirname(dest), { recursive: true });
      await pipeline(entry, createWriteStream(dest));
      if (header.mode !== undefined) await chmod(dest, header.mode & 0o7777);
    } else if (header.type === 'symlink' && header.linkname) {
      await mkdir(posix.dirname(dest), { recursive: true });
      await symlink(header.linkname, dest);
      entry.resume();
    } else {
      entry.resume();
    }
  }
}
