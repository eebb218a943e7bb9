/**
 * The image Terminus-2's tests run in: the offline base image plus tmux, with `/app` as its
 * working directory (where Harbor's tasks keep their files). Built without the network: tmux and
 * the two libraries the base image lacks are fetched on the host with `apt-get download` (the
 * host runs the base image's Debian release) and installed from the files.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BASE_IMAGE } from './aciSandbox';
import { ensureTestImage } from './testImage';

const run = promisify(execFile);

export const TMUX_TEST_IMAGE = 'swe-workbench/terminus-test:bookworm';
const PACKAGES = ['tmux', 'libevent-core-2.1-7', 'libutempter0'];

export function ensureTmuxTestImage(): Promise<string> {
  return ensureTestImage(
    TMUX_TEST_IMAGE,
    `FROM ${BASE_IMAGE}\nCOPY *.deb /tmp/\nRUN dpkg -i /tmp/*.deb && rm /tmp/*.deb && mkdir -p /app\nWORKDIR /app\n`,
    {},
    async (dir) => {
      await run('apt-get', ['download', ...PACKAGES], { cwd: dir }).catch((err: Error) => {
        throw new Error(`cannot fetch ${PACKAGES.join(', ')} for ${TMUX_TEST_IMAGE} with apt-get download: ${err.message}`);
      });
    },
  );
}
