import { LocalSandbox } from '../../../extension/core/runtime/local-sandbox';
import type { Sandbox, SandboxOptions } from '../../../extension/core/runtime/sandbox';

export interface SandboxKind {
  name: string;
  create(options: Omit<SandboxOptions, 'image'>): Promise<Sandbox>;
}

/** Every sandbox kind the behavioural tests run against. */
export function sandboxKinds(): SandboxKind[] {
  return [{ name: 'local', create: (o) => LocalSandbox.create({ image: 'unused', ...o }) }];
}
