/**
 * The image Terminus-2's tests run in: the offline base image plus tmux, with `/app` as its
 * working directory (where Harbor's tasks keep their files). Built without the network: tmux and
 * the two libraries the base image lacks are fetched on the host with `apt-get download` (the
 * host runs the base image's Debian release) and installed from the files.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BASE_IMAGE } from './aciSandbox';

const run = promisify(execFile);

export const TMUX_TEST_IMAGE = 'swe-workbench/terminus-test:bookworm';
const PACKAGES = ['tmux', 'libevent-core-2.1-7', 'libutempter0'];

export async function ensureTmuxTestImage(): Promise<string> {
  const present = await run('docker', ['image', 'inspect', TMUX_TEST_IMAGE]).then(
    () => true,
    () => false,
  );
  if (present) return TMUX_TEST_IMAGE;
  const dir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-tmux-image-'));
  try {
    await run('apt-get', ['download', ...PACKAGES], { cwd: dir }).catch((err: Error) => {
      throw new Error(`cannot fetch ${PACKAGES.join(', ')} for ${TMUX_TEST_IMAGE} with apt-get download: ${err.message}`);
    });
    await writeFile(
      path.join(dir, 'Dockerfile'),
      `FROM ${BASE_IMAGE}\nCOPY *.deb /tmp/\nRUN dpkg -i /tmp/*.deb && rm /tmp/*.deb && mkdir -p /app\nWORKDIR /app\n`,
    );
    await run('docker', ['build', '--network', 'none', '-t', TMUX_TEST_IMAGE, dir], { maxBuffer: 16 * 1024 * 1024 });
    return TMUX_TEST_IMAGE;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
