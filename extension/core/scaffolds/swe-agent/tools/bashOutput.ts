/**
 * What the `bash` tool wraps around a command and reads back from its output: the marker line that
 * brings the shell's working directory back after the command's own output (one round trip serves
 * the call and the step state), and SWE-agent's note when an observation is over the limit.
 */
import { randomBytes } from 'node:crypto';
import { shellQuote } from '../../../parsing/shellWords';

const CWD_MARK = `__SWB_CWD_${randomBytes(6).toString('hex')}__`;

/** `command` as the persistent shell runs it, its exit code kept, the working-directory marker after its output. */
export function markedCommand(command: string): string {
  // eval keeps a syntax error inside the command from swallowing the marker line; the exit
  // code is handed back through a function, which costs no fork.
  return `__swb_ret() { return $1; }; eval ${shellQuote(command)}\n__swb_rc=$?; printf '\\n${CWD_MARK}%s\\n' "$PWD"; __swb_ret $__swb_rc`;
}

/** SWE-agent's note for an observation over the limit, after the kept characters. */
export function clipObservation(text: string, max: number, droppedBytes = 0): string {
  if (text.length <= max && droppedBytes === 0) return text;
  const elided = Math.max(0, text.length - max) + droppedBytes;
  return (
    `${text.slice(0, max)}<response clipped><NOTE>Observations should not exceeded ${max} characters. ${elided} characters were elided. ` +
    'Please try a different command that produces less output or use head/tail/grep/redirect the output to a file. Do not use interactive pagers.</NOTE>'
  );
}

/** Splits the working-directory marker off the command's output. */
export function splitCwdMarker(output: string): { output: string; cwd: string | undefined } {
  const at = output.lastIndexOf(`\n${CWD_MARK}`);
  if (at < 0) return { output, cwd: undefined };
  const cwd = output.slice(at + CWD_MARK.length + 1).replace(/\r?\n$/, '');
  return { output: output.slice(0, at), cwd };
}
