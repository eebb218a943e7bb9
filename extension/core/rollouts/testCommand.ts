/** Which command runs a task instance's tests when a forced patch is graded (`rollouts grade`). */
import type { TaskInstance } from '../reward/instance';
import { bashQuote } from '../runtime/shellSession';

/** The command that runs an instance's tests: --test-command, its test_cmd, else pytest over the files of its test ids. */
export function testCommandFor(instance: TaskInstance, override?: string): string | { error: string } {
  if (override !== undefined) return override;
  const own = instance['test_cmd'] ?? instance['test_command'];
  if (typeof own === 'string' && own.trim() !== '') return own;
  const files = [
    ...new Set([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].filter((id) => id.includes('::')).map((id) => id.slice(0, id.indexOf('::')))),
  ].sort();
  if (files.length === 0) return { error: `instance '${instance.instance_id}' has no test_cmd and its test ids name no pytest file; give --test-command` };
  return `pytest -rA -p no:cacheprovider ${files.map(bashQuote).join(' ')}`;
}
