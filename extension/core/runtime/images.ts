/**
 * Images on a Docker engine: which are there, what to do when a session needs one that is not
 * (a `MissingImageError` the front ends turn into choices), and pulling one from its registry.
 */
import type Docker from 'dockerode';
import { CancelledError, errorText, throwIfAborted } from '../errors';

/** A container was asked of an image the engine does not have ("No such image"). */
export class MissingImageError extends Error {
  override readonly name = 'MissingImageError';

  constructor(readonly image: string) {
    super(
      `cannot start a sandbox from image '${image}': no such image on the Docker engine; pull it (docker pull ${image}), choose another image, or build the offline base image (swe-workbench image build)`,
    );
  }
}

/** The `MissingImageError` behind a failure, following `cause`s, else undefined. */
export function missingImageOf(error: unknown): MissingImageError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof MissingImageError || (e instanceof Error && e.name === 'MissingImageError' && 'image' in e)) return e as MissingImageError;
  }
  return undefined;
}

/** The engine's answer to creating a container names a missing image (404, "No such image"). */
export function isNoSuchImage(error: unknown): boolean {
  const status = typeof error === 'object' && error !== null && 'statusCode' in error ? (error as { statusCode: unknown }).statusCode : undefined;
  return status === 404 && /no such image/i.test(errorText(error));
}

/** Whether the engine has `image`; undefined when it cannot say (not reachable, another failure). */
export async function hasImage(docker: Docker, image: string): Promise<boolean | undefined> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (error) {
    return isNoSuchImage(error) ? false : undefined;
  }
}

/** `repo:tag` of every tagged image on the engine, sorted. */
export async function localImageTags(docker: Docker): Promise<string[]> {
  const images = await docker.listImages();
  return [...new Set(images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'))].sort();
}

/** Pulls `image` (`:latest` when no tag is named); progress lines as the docker CLI prints them. */
export async function pullImage(docker: Docker, image: string, options: { onProgress?: (line: string) => void; signal?: AbortSignal } = {}): Promise<void> {
  const { onProgress, signal } = options;
  throwIfAborted(signal);
  const stream = (await docker.pull(image, { abortSignal: signal })) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      reject(new CancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: { error?: string }[]) => {
        signal?.removeEventListener('abort', onAbort);
        const failed = error ?? events.find((e) => e.error)?.error;
        if (failed) reject(new Error(`cannot pull '${image}': ${errorText(failed)}`));
        else resolve();
      },
      (event: { status?: string; id?: string; progress?: string }) => {
        if (event.status) onProgress?.([event.id, event.status, event.progress].filter(Boolean).join(' '));
      },
    );
  });
}
