/**
 * Starting the CLI again, in the same process, with V8 flags its work needs (and the environment
 * the C library reads when it starts): a running isolate's heap limits are fixed, so the flags
 * must be there when Node starts. `process.execve` replaces the program in place (same pid,
 * standard streams and terminal signals), so a caller sees one process, as before.
 */

/**
 * What a relaunch runs, or why there is none: this program again, the flags the user has not
 * set before its other Node options, with `env`'s variables the user has not set; `added` names
 * them, for the debug line.
 * @internal
 */
export function relaunchPlan(
  flags: readonly string[],
  process: Pick<NodeJS.Process, 'execPath' | 'execArgv' | 'argv' | 'env'> & { execve?: unknown },
  env: Readonly<Record<string, string>> = {},
): { args: string[]; env: NodeJS.ProcessEnv; added: string[] } | { skip: string } {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const nameOf = (flag: string) => flag.split('=')[0]!;
  // The user's own setting (or a relaunch's) is kept.
  const missing = flags.filter((flag) => !options.some((a) => a === nameOf(flag) || a.startsWith(`${nameOf(flag)}=`)));
  if (missing.length === 0) return { skip: `${flags.map(nameOf).join(' and ')} ${flags.length > 1 ? 'are' : 'is'} already set` };
  // Windows has no exec, and a Node before 22.15 no `process.execve`: the program runs as it is.
  if (typeof process.execve !== 'function') return { skip: 'this Node cannot exec (no process.execve)' };
  const script = process.argv[1];
  if (!script) return { skip: 'no script to run again' };
  // The user's own value of a variable is kept too.
  const added = Object.entries(env).filter(([variable]) => process.env[variable] === undefined);
  return {
    args: [process.execPath, ...missing, ...process.execArgv, script, ...process.argv.slice(2)],
    env: { ...process.env, ...Object.fromEntries(added) },
    added: [...missing, ...added.map(([variable, value]) => `${variable}=${value}`)],
  };
}

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
