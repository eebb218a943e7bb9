/**
 * An image to run OpenHands V1's reference tools (openhands-tools 1.43.1) and ours side by side:
 * Debian 13 (trixie) for the pydantic 2 and Python 3.12+ the SDK needs, with the libraries its
 * tools import at run time from trixie's own packages (rich, cachetools, binaryornot,
 * charset-normalizer, libtmux with tmux) and the programs they call (ripgrep for glob/grep, git).
 * Built from the Debian archive like the base image (core/runtime/baseImage.ts), no registry.
 */
import { ensureBaseImage } from '../../extension/core/runtime/baseImage';

export const OPENHANDS_V1_IMAGE = 'swe-workbench/openhands-v1:trixie';

export async function ensureOpenHandsV1Image(): Promise<string> {
  await ensureBaseImage({
    tag: OPENHANDS_V1_IMAGE,
    suite: 'trixie',
    packages: [
      'python3',
      'python3-pydantic',
      'python3-rich',
      'python3-cachetools',
      'python3-binaryornot',
      'python3-charset-normalizer',
      'python3-libtmux',
      'tmux',
      'ripgrep',
      'git',
      'procps',
    ],
  });
  return OPENHANDS_V1_IMAGE;
}
