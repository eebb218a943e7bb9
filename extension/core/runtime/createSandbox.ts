import type Docker from 'dockerode';
import { connectDocker, connectionOptionsFromEnv, describeDockerHost, pingDocker, type DockerConnectionOptions } from './dockerConnection';
import { DockerSandbox } from './dockerSandbox';
import { LocalSandbox } from './localSandbox';
import type { Sandbox, SandboxOptions } from './sandbox';

export interface CreateSandboxOptions extends SandboxOptions {
  /** `local` skips Docker; `docker` fails instead of falling back. Default: Docker when it answers. */
  prefer?: 'auto' | 'docker' | 'local';
  /** The engine to use; default DOCKER_HOST and friends, as the docker CLI reads them. */
  docker?: DockerConnectionOptions;
  /** How long to wait for the engine's answer before falling back. */
  pingTimeoutMs?: number;
}

export interface SandboxChoice {
  sandbox: Sandbox;
  /** Why the sandbox is not the one asked for (e.g. no Docker engine answered), for the person to read. */
  notice?: string;
}

/**
 * A DockerSandbox when the engine answers, else a LocalSandbox with a notice saying why and
 * what is lost (isolation, network cut, resource limits, the task image's environment).
 */
export async function createSandbox(options: CreateSandboxOptions): Promise<SandboxChoice> {
  const prefer = options.prefer ?? 'auto';
  if (prefer === 'local') return { sandbox: await LocalSandbox.create(options) };
  const connection = options.docker ?? connectionOptionsFromEnv(process.env);
  const where = describeDockerHost(connection);
  let docker: Docker;
  try {
    docker = connectDocker(connection);
    await pingDocker(docker, options.pingTimeoutMs ?? 3000, options.signal);
  } catch (err) {
    if (prefer === 'docker' || options.signal?.aborted)
      throw new Error(`the Docker engine at ${where} does not answer: ${(err as Error).message}`, { cause: err });
    const notice =
      `The Docker engine at ${where} does not answer (${(err as Error).message}), so commands run on this machine ` +
      `in a temporary copy of the repository, not in the image '${options.image}': no isolation, no network cut, no memory or CPU limits.`;
    return { sandbox: await LocalSandbox.create(options), notice };
  }
  return { sandbox: await DockerSandbox.create(options, docker) };
}
