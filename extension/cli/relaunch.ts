/**
 * Starting the CLI again, in the same process, with a V8 flag its work needs (and the environment
 * the C library reads when it starts): a running isolate's heap limits are fixed, so the flag
 * must be there when Node starts. `process.execve` replaces the program in place (same pid,
 * standard streams and terminal signals), so a caller sees one process, as before.
 */

/**
 * What a relaunch runs, or why there is none: this program again, the flag before its other Node
 * options, with `env`'s variables the user has not set; `added` names both, for the debug line.
 * @internal
 */
export function relaunchPlan(
  flag: string,
  process: Pick<NodeJS.Process, 'execPath' | 'execArgv' | 'argv' | 'env'> & { execve?: unknown },
  env: Readonly<Record<string, string>> = {},
): { args: string[]; env: NodeJS.ProcessEnv; added: string[] } | { skip: string } {
  const name = flag.split('=')[0]!;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a === name || a.startsWith(`${name}=`));
  // The user's own setting (or a relaunch's) is kept.
  if (given) return { skip: `${name} is already set` };
  // Windows has no exec, and a Node before 22.15 no `process.execve`: the program runs as it is.
  if (typeof process.execve !== 'function') return { skip: 'this Node cannot exec (no process.execve)' };
  const script = process.argv[1];
  if (!script) return { skip: 'no script to run again' };
  // The user's own value of a variable is kept too.
  const added = Object.entries(env).filter(([variable]) => process.env[variable] === undefined);
  return {
    args: [process.execPath, flag, ...process.execArgv, script, ...process.argv.slice(2)],
    env: { ...process.env, ...Object.fromEntries(added) },
    added: [flag, ...added.map(([variable, value]) => `${variable}=${value}`)],
  };
}

/**
 * Runs this program again with `flag` and does not return, unless a relaunch is not planned
 * (`relaunchPlan`) or the exec failed: then the program goes on without the flag. With
 * SWE_WORKBENCH_DEBUG set, says which on stderr.
 */
export function relaunchWith(flag: string, env: Readonly<Record<string, string>> = {}): void {
  const debug = process.env.SWE_WORKBENCH_DEBUG ? (line: string) => process.stderr.write(`swe-workbench: ${line}\n`) : () => undefined;
  const plan = relaunchPlan(flag, process, env);
  if ('skip' in plan) {
    debug(`not relaunched with ${flag}: ${plan.skip}`);
    return;
  }
  debug(`relaunched with ${plan.added.join(' ')}`);
  try {
    (process as unknown as { execve(file: string, args: string[], env: NodeJS.ProcessEnv): never }).execve(process.execPath, plan.args, plan.env);
  } catch (err) {
    debug(`the relaunch failed (${err instanceof Error ? err.message : String(err)}); running without ${flag}`);
  }
}
