/**
 * What a replay of Harbor's Terminus-2 recordings forgives besides the generic normalisers
 * (core/session/divergence): Harbor writes a terminal's screen into its recordings after rewriting
 * it, and a container's host name is its id, so neither says anything about the agent's world.
 * Both come from the image or the recording's writer, not from the tools (`environment`): other
 * families' replays apply them only when a person names them (`replay --forgive`).
 */
import type { Normaliser } from '../scaffold';

/** A shell prompt's host: Docker names a container's host after its id; Harbor's recordings write `CONTAINER_ID`. */
const containerHost: Normaliser = {
  name: 'container-host',
  forgives:
    "the container's host name in a shell prompt (`root@3f9c2a1b7d4e:/app#`): Docker names a container's host after its id, and Harbor's recordings write it `CONTAINER_ID`",
  environment: true,
  apply: (t) => t.replace(/\b([a-z_][\w-]*)@(?:[0-9a-f]{12}|CONTAINER_ID):/g, '$1@<host>:'),
};

/** What Harbor's test suite rewrites in a screen before it keeps the recording. */
const harborScreen: Normaliser = {
  name: 'harbor-screen',
  forgives:
    "what Harbor's own recordings normalise away in a terminal's output (its test suite rewrites them so): an idle prompt before blank lines, bash's job-control warnings, the blank lines after `New Terminal Output:`, and runs of blank lines",
  environment: true,
  apply: (t) =>
    t
      .replace(/\b[\w.-]+@[^\s:@]+:[^\s]*[#$]\n\n+/g, '\n\n')
      .replace(/bash: cannot set terminal process group \(-?\d+\): Inappropriate ioctl for device\n/g, '')
      .replace(/bash: no job control in this shell\n/g, '')
      .replace(/New Terminal Output:\n+/g, 'New Terminal Output:\n\n')
      .replace(/\n{3,}/g, '\n\n'),
};

/** In the order a replay applies them, before the default ones. */
export const TERMINUS_NORMALISERS: readonly Normaliser[] = [containerHost, harborScreen];
