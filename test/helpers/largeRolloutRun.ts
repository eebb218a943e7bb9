import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { patchFor, r2eGymRecord, workSteps } from '../fixtures/rollouts/runWriter';

export interface LargeRun {
  root: string;
  rollouts: number;
  instances: number;
  cleanup(): void;
}

/**
 * A GRPO-sized run for the table: `instances` x `attempts` R2E-Gym records, one JSONL file per
 * attempt. Instance i resolves on attempt a when (i + a) % 5 < i % 4, so groups range from
 * never solved to mostly solved and many are mixed.
 */
export function writeLargeRolloutRun(instances = 1000, attempts = 10): LargeRun {
  const root = mkdtempSync(path.join(tmpdir(), 'swe-workbench-large-run-'));
  const patch = patchFor('src/widgets/resize.py');
  for (let a = 0; a < attempts; a++) {
    const lines: string[] = [];
    for (let i = 0; i < instances; i++) {
      const solved = (i + a) % 5 < i % 4;
      const steps = 2 + ((i * 7 + a * 3) % 9);
      const instance = `acme__widgets-${String(i).padStart(4, '0')}`;
      lines.push(
        JSON.stringify(
          r2eGymRecord({
            instance,
            steps: workSteps(steps, 2),
            exit: solved || a % 3 ? 'agent' : 'max_step_limit',
            patch: solved || a % 3 ? patch : '',
            reward: solved ? 1 : 0,
          }),
        ),
      );
    }
    mkdirSync(path.join(root, `attempt_${a + 1}`), { recursive: true });
    writeFileSync(path.join(root, `attempt_${a + 1}`, 'deepswe.jsonl'), lines.join('\n') + '\n');
  }
  return { root, rollouts: instances * attempts, instances, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
