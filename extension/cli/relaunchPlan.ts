/**
 * What a relaunch of the CLI runs (relaunch.ts does it): decided from the process as it started,
 * apart from the exec itself.
 */

/**
 * What a relaunch runs, or why there is none: this program again, the flags the user has not
 * set before its other Node options, with `env`'s variables the user has not set; `added` names
 * them, for the debug line.
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
