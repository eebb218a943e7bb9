/**
 * The offline R2E-Gym image: the base image plus what R2E-Gym's images give its tools, the
 * interpreter at `/root/.venv/bin/python` (their shebang) and python3-chardet (R2E-Gym's
 * file_editor reads a file's encoding with it). No registry: the package is fetched from the
 * machine's Debian mirror with `apt-get download` (kept in the package cache, so a rebuild
 * fetches nothing) and installed by a `docker build` without network.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { throwIfAborted } from '../../errors';
import {
  DEFAULT_BASE_IMAGE,
  DEFAULT_CACHE_DIR,
  ensureBaseImage,
  existingImage,
  hasCommand,
  run,
  type BaseImageOptions,
  type BaseImageResult,
} from '../../runtime/baseImage';
import { dockerFromEnv } from '../../runtime/dockerConnection';
import { NeedsImageError } from '../../runtime/neededImage';
import type { FamilyImage } from '../scaffold';

export const DEFAULT_R2E_IMAGE = 'swe-workbench/r2e:bookworm';
const R2E_PACKAGES = ['python3-chardet'] as const;

interface R2eImageOptions extends Omit<BaseImageOptions, 'mirror'> {
  /** The image it is built from (built first when missing); default the base image. */
  base?: string;
}

/** The packages' .deb files in `dir`, fetched there with `apt-get download` unless already there. */
async function packageFiles(dir: string, progress: (line: string) => void, signal?: AbortSignal): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const present = (name: string) => readdir(dir).then((files) => files.filter((f) => f.startsWith(`${name}_`) && f.endsWith('.deb')));
  for (const name of R2E_PACKAGES) {
    if ((await present(name)).length > 0) continue;
    if (!hasCommand('apt-get')) throw new Error(`cannot fetch ${name} for the R2E-Gym image: this machine has no apt-get (a Debian or Ubuntu host is needed)`);
    progress(`apt-get download ${name} (package cache: ${dir})`);
    await run(['sh', '-c', `cd "$0" && apt-get download ${name}`, dir], progress, signal).catch((error: unknown) => {
      throw new Error(`cannot fetch ${name} for the R2E-Gym image with apt-get download: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return (await readdir(dir)).filter((f) => R2E_PACKAGES.some((name) => f.startsWith(`${name}_`)) && f.endsWith('.deb'));
}

/** Builds `context` (a folder with a Dockerfile) as `tag`, without network. */
async function buildWithoutNetwork(docker: Docker, context: string, tag: string, progress: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const tar = spawn('tar', ['-C', context, '-c', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const stream = await docker.buildImage(tar.stdout, { t: tag, networkmode: 'none', ...(signal ? { abortSignal: signal } : {}) });
  const output = await new Promise<{ stream?: string; error?: string }[]>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: { stream?: string; error?: string }[]) => (err ? reject(err) : resolve(out))),
  );
  for (const line of output) if (line.stream?.trim()) progress(line.stream.trim());
  const failed = output.find((line) => line.error);
  if (failed) throw new Error(`building ${tag} failed: ${failed.error}`);
  throwIfAborted(signal);
}

/**
 * Makes sure the R2E-Gym image exists: returns at once when it does (unless `force`), else builds
 * it from the base image (built first when missing).
 */
async function ensureR2eImage(options: R2eImageOptions = {}): Promise<BaseImageResult> {
  const tag = options.tag ?? DEFAULT_R2E_IMAGE;
  const base = options.base ?? DEFAULT_BASE_IMAGE;
  const docker = options.docker ?? dockerFromEnv();
  const progress = options.onProgress ?? (() => undefined);
  const { signal } = options;
  const existing = options.force ? undefined : await existingImage(docker, tag, progress);
  if (existing) return existing;
  await ensureBaseImage({
    tag: base,
    docker,
    onProgress: progress,
    ...(signal ? { signal } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
  });
  const debs = join(options.cacheDir ?? DEFAULT_CACHE_DIR, 'r2e-packages');
  const files = await packageFiles(debs, progress, signal);
  const context = await mkdtemp(join(tmpdir(), 'swe-workbench-r2e-image-'));
  try {
    for (const file of files) await copyFile(join(debs, file), join(context, file));
    await writeFile(
      join(context, 'Dockerfile'),
      `FROM ${base}\nCOPY *.deb /tmp/\nRUN dpkg -i /tmp/*.deb && rm /tmp/*.deb && mkdir -p /root/.venv/bin && ln -s /usr/bin/python3 /root/.venv/bin/python\n`,
    );
    progress(`building ${tag} from ${base} without network`);
    await buildWithoutNetwork(docker, context, tag, progress, signal);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  const image = await docker.getImage(tag).inspect();
  progress(`built ${tag} (${image.Id})`);
  return { tag, imageId: image.Id, built: true };
}

/** The image lacks what R2E-Gym's tools need (`/root/.venv/bin/python`): the R2E-Gym image has it. */
export class NeedsR2eImageError extends NeedsImageError {
  constructor(message: string) {
    super(DEFAULT_R2E_IMAGE, "R2E-Gym's tools, which need /root/.venv/bin/python", message);
  }
}

/** The R2E-Gym image as the family offers it: `swe-workbench image build` and a session missing it build it. */
export const r2eGymImage: FamilyImage = {
  tag: DEFAULT_R2E_IMAGE,
  adds: "python3-chardet and /root/.venv/bin/python, which R2E-Gym's tools need",
  ensure: (options) => ensureR2eImage(options),
};
