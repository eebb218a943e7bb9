import type { TreeSignal } from './shellSession';

/**
 * A bash script that signals a shell and the processes it started, found through /proc (so it
 * needs neither ps nor pkill, which many task images lack). Descendants that run in their own
 * process group (a pipeline under job control) have that whole group signalled too.
 * Arguments: the shell's pid and a TreeSignal.
 */
const SIGNAL_TREE_SCRIPT = [
  'root=$1; how=$2; declare -A kids pgrp',
  'for f in /proc/[0-9]*/stat; do',
  '  { read -r s < "$f"; } 2>/dev/null || continue',
  '  p=${s%% *}; set -- ${s##*) }; kids[$2]+=" $p"; pgrp[$p]=$3',
  'done',
  'desc=(); queue=("$root")',
  'while ((${#queue[@]})); do',
  '  cur=${queue[0]}; queue=("${queue[@]:1}")',
  '  for p in ${kids[$cur]}; do',
  '    if [[ $p != $$ ]]; then desc+=("$p"); queue+=("$p"); fi',
  '  done',
  'done',
  'case $how in interrupt) sig=INT;; *) sig=KILL;; esac',
  // The shell first: an interactive bash abandons the command line only if SIGINT reached it
  // before the child it waits for died of SIGINT. A shell that leads its own process group
  // (no job control: its children are in it) gets it with them in one kill: signalled one by
  // one, `sleep | cat` could see sleep die and cat end normally on EOF before cat's own SIGINT
  // came, and bash would take that as handled and go on with the loop.
  'if [[ $how == interrupt && ${pgrp[$root]} == "$root" ]]; then kill -s INT -- "-$root" 2>/dev/null;',
  'elif [[ $how != kill-children ]]; then kill -s $sig -- "$root" 2>/dev/null; fi',
  'declare -A groups',
  'for p in "${desc[@]}"; do g=${pgrp[$p]}; [[ $g != "${pgrp[$root]}" && $g != 0 ]] && groups[$g]=1; done',
  'for g in "${!groups[@]}"; do kill -s $sig -- "-$g" 2>/dev/null; done',
  '((${#desc[@]})) && kill -s $sig -- "${desc[@]}" 2>/dev/null',
  'exit 0',
].join('\n');

export function signalTreeArgv(pid: number, how: TreeSignal): string[] {
  return ['bash', '-c', SIGNAL_TREE_SCRIPT, 'signal-tree', String(pid), how];
}
