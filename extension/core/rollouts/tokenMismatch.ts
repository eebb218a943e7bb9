/**
 * A run's re-score, as the rollouts table shows it: `swe-workbench tokens DIR --save` writes one
 * line per rollout to `DIR/.swe-workbench-tokens.jsonl` (a hidden file, which indexing skips), and
 * the index joins each line to its rollout. A rollout the file does not name was not re-scored:
 * its columns are unknown, never 0.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodError, InputError } from '../errors';
import type { Rollout } from './record';

export const TOKEN_REPORT_FILE = '.swe-workbench-tokens.jsonl';

const Count = z.number().int().nonnegative();

/** One rollout's re-score: over the agent steps the server answered. */
const TokenMismatchSchema = z.object({
  /**
   * The rollout as `tokens DIR`, the table and `rollouts list` name it: a file relative to the
   * folder, `file:LINE` for a JSONL file's record at its 1-based line (`file#N`, the Nth rollout
   * from 0, in reports written before).
   */
  rollout: z.string().min(1),
  /** Agent steps, and those not re-scored (a server error, no token ids). */
  steps: Count,
  errors: Count,
  /** Completion tokens re-scored. */
  tokens: Count,
  /** null when no token was re-scored. */
  maxAbsDiff: z.number().nonnegative().nullable(),
  outside: Count,
  /** The mean k3 estimate of KL per token; null when no token was re-scored. */
  kl: z.number().nullable(),
  /** The first agent step (0-based) whose re-tokenized prompt differs, and the 0-based position in its prompt ids. */
  firstDrift: z.object({ step: Count, position: Count }).nullable(),
  /** Steps whose drift could not be checked. */
  driftUnknown: Count,
  bounds: z.tuple([z.number(), z.number()]),
});
export type TokenMismatch = z.infer<typeof TokenMismatchSchema>;

/** The re-score lines of `root`; undefined when the run was never re-scored. A bad line is an InputError at its line. */
export async function readTokenReport(root: string, signal?: AbortSignal): Promise<Map<string, TokenMismatch> | undefined> {
  const file = join(root, TOKEN_REPORT_FILE);
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', ...(signal ? { signal } : {}) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const report = new Map<string, TokenMismatch>();
  text.split('\n').forEach((line, k) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new InputError(file, `line ${k + 1}`, `not JSON: ${(error as Error).message}`);
    }
    const parsed = TokenMismatchSchema.safeParse(json);
    if (!parsed.success) throw new InputError(file, `line ${k + 1}`, describeZodError('', parsed.error));
    report.set(parsed.data.rollout, parsed.data);
  });
  return report;
}

/** Writes the re-score lines whole: to a temporary file renamed over the old one, so a failure leaves it as it was. */
export async function writeTokenReport(root: string, lines: readonly TokenMismatch[]): Promise<string> {
  const file = join(root, TOKEN_REPORT_FILE);
  // Random bytes, not the pid alone: two saves in one process (a worker and its host) would share it.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, lines.map((l) => JSON.stringify(TokenMismatchSchema.parse(l)) + '\n').join(''));
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return file;
}

/**
 * The rollouts with their re-score joined by their id (`file`, `file:LINE`); an older report's
 * `file#N` names the Nth (from 0) in line order of a JSONL file's rollouts.
 */
export function joinTokenReport(rollouts: readonly Rollout[], report: ReadonlyMap<string, TokenMismatch>): Rollout[] {
  const byPath = new Map<string, Rollout[]>();
  for (const r of rollouts) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  const named = new Map<string, TokenMismatch>();
  for (const [path, list] of byPath) {
    const ordered = [...list].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    ordered.forEach((r, n) => {
      // By the rollout's id (`file:LINE`, as `tokens DIR` names it); a report written before it was named so used `file#N`.
      const line = report.get(r.id) ?? report.get(r.line === undefined ? path : `${path}#${n}`) ?? (ordered.length === 1 ? report.get(path) : undefined);
      if (line) named.set(r.id, line);
    });
  }
  return rollouts.map((r) => {
    const mismatch = named.get(r.id);
    return mismatch ? { ...r, mismatch } : r;
  });
}
