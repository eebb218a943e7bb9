/**
 * Starting the CLI again, in the same process, with V8 flags its work needs (and the environment
 * the C library reads when it starts): a running isolate's heap limits are fixed, so the flags
 * must be there when Node starts. `process.execve` replaces the program in place (same pid,
 * standard streams and terminal signals), so a caller sees one process, as before.
 */
import { relaunchPlan } from './relaunchPlan';

/**
 * Runs this program again with `flags` and does not return, unless a relaunch is not planned
 * (`relaunchPlan`) or the exec failed: then the program goes on without them. With
 * SWE_WORKBENCH_DEBUG set, says which on stderr.
 */
export function relaunchWith(flags: readonly string[], env: Readonly<Record<string, string>> = {}): void {
  const debug = process.env.SWE_WORKBENCH_DEBUG ? (line: string) => process.stderr.write(`swe-workbench: ${line}\n`) : () => undefined;
  const plan = relaunchPlan(flags, process, env);
  if ('skip' in plan) {
    debug(`not relaunched with ${flags.join(' ')}: ${plan.skip}`);
    return;
  }
  debug(`relaunched with ${plan.added.join(' ')}`);
  try {
    (process as unknown as { execve(file: string, args: string[], env: NodeJS.ProcessEnv): never }).execve(process.execPath, plan.args, plan.env);
  } catch (err) {
    debug(`the relaunch failed (${err instanceof Error ? err.message : String(err)}); running without ${flags.join(' ')}`);
  }
}
