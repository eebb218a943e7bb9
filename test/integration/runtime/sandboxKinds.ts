import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import type { Sandbox, SandboxOptions } from '../../../extension/core/runtime/sandbox';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';

export interface SandboxKind {
  name: string;
  tty: boolean;
  create(options: Omit<SandboxOptions, 'image'>): Promise<Sandbox>;
}

/** Every sandbox kind the behavioural tests run against. */
export function sandboxKinds(): SandboxKind[] {
  return [
    { name: 'docker', tty: false, create: (o) => DockerSandbox.create({ image: TEST_IMAGE, ...o }, testDocker()) },
    { name: 'docker (tty)', tty: true, create: (o) => DockerSandbox.create({ image: TEST_IMAGE, tty: true, ...o }, testDocker()) },
    { name: 'local', tty: false, create: (o) => LocalSandbox.create({ image: 'unused', ...o }) },
    { name: 'local (tty)', tty: true, create: (o) => LocalSandbox.create({ image: 'unused', tty: true, ...o }) },
  ];
}
