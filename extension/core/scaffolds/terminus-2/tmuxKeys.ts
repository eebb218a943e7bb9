/**
 * How Harbor's `TmuxSession` turns keystrokes into `tmux send-keys` command lines and finds what is
 * new on the screen: the pure half of Terminus-2's terminal, which `tmuxSession.ts` drives.
 */
import { pyStrip, shlexQuote } from '../../parsing/pythonText';

const ENTER_KEYS = new Set(['Enter', 'C-m', 'KPEnter', 'C-j', '^M', '^J']);
const COMPLETION_COMMAND = '; tmux wait -S done';
/** tmux drops a command longer than its buffer (~16 KB); Harbor keeps each send-keys under this many characters. */
const SEND_KEYS_MAX_COMMAND_LENGTH = 16_000;

/** Length in code points, as Python counts a string. */
function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function isEnterKey(key: string): boolean {
  return ENTER_KEYS.has(key);
}

function isExecutingCommand(key: string): boolean {
  return isEnterKey(key) || /[\r\n]$/.test(key);
}

/** The keys without what would run them (a final Enter, trailing newlines), as `_prevent_execution` leaves them. */
function preventExecution(keys: readonly string[]): string[] {
  const out = [...keys];
  while (out.length > 0 && isExecutingCommand(out.at(-1)!)) {
    const last = out.at(-1)!;
    if (isEnterKey(last)) out.pop();
    else {
      const stripped = last.replace(/[\r\n]+$/, '');
      if (stripped) out[out.length - 1] = stripped;
      else out.pop();
    }
  }
  return out;
}

/** The keys to send and whether the send blocks, as `_prepare_keys` decides. */
export function prepareKeys(keys: string | readonly string[], block: boolean): { keys: string[]; blocking: boolean } {
  const list = typeof keys === 'string' ? [keys] : [...keys];
  if (!block || list.length === 0 || !isExecutingCommand(list.at(-1)!)) return { keys: list, blocking: false };
  return { keys: [...preventExecution(list), COMPLETION_COMMAND, 'Enter'], blocking: true };
}

/** The longest quoted prefixes of `key` whose quoted form fits `maxEscaped` characters (`_split_key_for_tmux`). */
function splitKey(key: string, maxEscaped: number): string[] {
  const chunks: string[] = [];
  let rest = Array.from(key);
  while (rest.length > 0) {
    let [lo, hi, best] = [1, rest.length, 1];
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (pyLen(shlexQuote(rest.slice(0, mid).join(''))) <= maxEscaped) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    chunks.push(shlexQuote(rest.slice(0, best).join('')));
    rest = rest.slice(best);
  }
  return chunks;
}

/** The `tmux send-keys` command lines for `keys`, split as `_tmux_send_keys` splits them. */
export function sendKeysCommands(session: string, keys: readonly string[]): string[] {
  const prefix = `tmux send-keys -t ${shlexQuote(session)}`;
  const max = SEND_KEYS_MAX_COMMAND_LENGTH;
  const escaped = keys.map(shlexQuote);
  const single = `${prefix} ${escaped.join(' ')}`;
  if (pyLen(single) <= max) return [single];
  const commands: string[] = [];
  let current: string[] = [];
  let length = pyLen(prefix);
  const flush = () => {
    if (current.length > 0) {
      commands.push(`${prefix} ${current.join(' ')}`);
      current = [];
      length = pyLen(prefix);
    }
  };
  for (const key of keys) {
    const quoted = shlexQuote(key);
    const addition = 1 + pyLen(quoted);
    if (length + addition <= max) {
      current.push(quoted);
      length += addition;
    } else if (pyLen(prefix) + addition <= max) {
      flush();
      current.push(quoted);
      length = pyLen(prefix) + addition;
    } else {
      flush();
      for (const chunk of splitKey(key, max - pyLen(prefix) - 1)) {
        if (length + 1 + pyLen(chunk) <= max) {
          current.push(chunk);
          length += 1 + pyLen(chunk);
        } else {
          flush();
          current.push(chunk);
          length = pyLen(prefix) + 1 + pyLen(chunk);
        }
      }
    }
  }
  flush();
  return commands;
}

/**
 * What is new in `current` since `previous` (`_find_new_content`): when the stripped
 * previous capture is found in the current one, the text from the previous capture's last line
 * break on, that position taken in the previous capture but applied to the current one, as
 * Harbor does; undefined when it is not found.
 */
export function findNewContent(previous: string | undefined, current: string): string | undefined {
  const pb = previous === undefined ? '' : pyStrip(previous);
  const at = current.indexOf(pb);
  if (at === -1) return undefined;
  // Python indexes code points: positions are counted that way in both strings.
  const points = Array.from(current);
  const idx = pb.includes('\n') ? Array.from(pb).lastIndexOf('\n') : Array.from(current.slice(0, at)).length;
  return points.slice(idx).join('');
}
