import { createHash } from 'node:crypto';

/**
 * A name for a submitted patch's text: equal names, the same patch. Line endings and the blank
 * space around the whole text are not the patch (a JSON writer or an editor changes them); every
 * other byte is, whitespace inside a line included (it is code). 64 bits of SHA-256: a run's
 * patches of one instance never collide in practice, and the name stays short in the index.
 */
export function patchDigest(submission: string | undefined): string | undefined {
  const text = submission?.replace(/\r\n/g, '\n').trim();
  return text ? createHash('sha256').update(text).digest('hex').slice(0, 16) : undefined;
}
