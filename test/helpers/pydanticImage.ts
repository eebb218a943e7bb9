/**
 * An image with pydantic 2, for the reference code that needs it (Harbor's ATIF models and
 * validator, NVIDIA's nat.atif): Debian 12 has pydantic 1, so it is Debian 13 (trixie), built from
 * the same archive as the base image (core/runtime/baseImage.ts), no registry.
 */
import { ensureBaseImage } from '../../extension/core/runtime/baseImage';

export const PYDANTIC_IMAGE = 'swe-workbench/pydantic:trixie';

export async function ensurePydanticImage(): Promise<string> {
  await ensureBaseImage({ tag: PYDANTIC_IMAGE, suite: 'trixie', packages: ['python3', 'python3-pydantic'] });
  return PYDANTIC_IMAGE;
}
