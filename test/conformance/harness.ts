/**
 * A conformance harness for any scaffold family: a reference implementation's tools run in a
 * persistent shell in one container, ours in another container of the same image with the same
 * repository, the same calls go to both, and what each prints is compared byte for byte.
 * Family-specific parts (how the reference is installed and how a call is written for it) live
 * beside this file (`sweAgentReference.ts`).
 */
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Mount, Sandbox } from '../../extension/core/runtime/sandbox';
import { lineDiff } from '../../extension/core/session/lineDiff';
import { ACI_TEST_LABEL, BASE_IMAGE } from '../helpers/aciSandbox';

export interface ShellOptions {
  /** Host folder copied to `repoPath`. */
  repoDir: string;
  repoPath: string;
  /** Run the shell under a pseudo-terminal, as the reference's own runtime does. */
  tty: boolean;
  /** Default: the offline base image. */
  image?: string;
  /** Host files bound read-only into the container (a tool the image lacks). */
  mounts?: Mount[];
}

/** A container from the test image with the repository in it, labelled as a conformance test's. */
export function startConformanceSandbox(options: ShellOptions): Promise<Sandbox> {
  return DockerSandbox.create({
    image: options.image ?? BASE_IMAGE,
    repoDir: options.repoDir,
    repoPath: options.repoPath,
    tty: options.tty,
    labels: { [ACI_TEST_LABEL]: 'conformance' },
    limits: { commandTimeoutMs: 60_000 },
    ...(options.mounts ? { mounts: options.mounts } : {}),
  });
}

/** What one call printed and how it exited, with the tool state after it when the family records one. */
export interface CallOutcome {
  observation: string;
  exitCode: number;
  state?: Record<string, unknown>;
}

export interface Mismatch {
  index: number;
  call: string;
  what: 'observation' | 'exitCode' | 'state';
  reference: unknown;
  ours: unknown;
  diff: string;
}

/** Every difference between the reference's outcomes and ours, call by call. */
export function mismatches(calls: readonly string[], reference: readonly CallOutcome[], ours: readonly CallOutcome[]): Mismatch[] {
  const out: Mismatch[] = [];
  calls.forEach((call, index) => {
    const ref = reference[index];
    const our = ours[index];
    if (!ref || !our) {
      out.push({ index, call, what: 'observation', reference: ref, ours: our, diff: 'missing outcome' });
      return;
    }
    if (ref.observation !== our.observation) {
      out.push({
        index,
        call,
        what: 'observation',
        reference: ref.observation,
        ours: our.observation,
        diff: lineDiff(visible(ref.observation), visible(our.observation)),
      });
    }
    if (ref.exitCode !== our.exitCode)
      out.push({ index, call, what: 'exitCode', reference: ref.exitCode, ours: our.exitCode, diff: `${ref.exitCode} != ${our.exitCode}` });
    if (ref.state !== undefined && JSON.stringify(ref.state) !== JSON.stringify(our.state)) {
      out.push({ index, call, what: 'state', reference: ref.state, ours: our.state, diff: `${JSON.stringify(ref.state)} != ${JSON.stringify(our.state)}` });
    }
  });
  return out;
}

/** Lines with `\r` and tabs shown, so a diff of invisible bytes can be read. */
function visible(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/\r/g, '\\r').replace(/\t/g, '\\t'));
}

/** A report of the mismatches for an assertion message: call, what differs, the diff (`-` reference, `+` ours). */
export function describeMismatches(found: readonly Mismatch[], limit = 8): string {
  const shown = found
    .slice(0, limit)
    .map((m) => `call ${m.index}: ${JSON.stringify(m.call).slice(0, 120)}\n  ${m.what} differs (- reference, + ours):\n${m.diff.replace(/^/gm, '    ')}`);
  const more = found.length > limit ? `\n... and ${found.length - limit} more` : '';
  return `${found.length} of the calls differ from the reference:\n${shown.join('\n')}${more}`;
}
