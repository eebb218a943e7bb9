/**
 * Whether a replayed observation is the one the recording holds. Exact text differs for reasons
 * that say nothing about the agent's world (a pty's `\r\n`, a test run's duration, a temporary
 * directory's random name), so each difference that is forgiven is forgiven by a named
 * normaliser that says what it forgives; everything else is a divergence.
 */

export interface Normaliser {
  name: NormaliserName;
  /** What differences this normaliser hides, in the words shown to the person. */
  forgives: string;
  /** The difference comes from the image or the machine, not from the tools: off unless chosen. */
  environment?: boolean;
  apply(text: string): string;
}

export const NORMALISER_NAMES = [
  'line-endings',
  'ansi',
  'trailing-whitespace',
  'timings',
  'temp-paths',
  'pids',
  'git-hashes',
  'container-host',
  'harbor-screen',
] as const;
export type NormaliserName = (typeof NORMALISER_NAMES)[number];

export const NORMALISERS: Record<NormaliserName, Normaliser> = {
  'line-endings': {
    name: 'line-endings',
    forgives: "`\\r\\n` (a pseudo-terminal's line end in SWE-agent 1.x recordings) against `\\n`, and stray `\\r`",
    apply: (t) => t.replace(/\r+\n/g, '\n').replace(/\r/g, ''),
  },
  ansi: {
    name: 'ansi',
    forgives: 'terminal colour and cursor escape sequences',
    apply: (t) => t.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, ''),
  },
  'trailing-whitespace': {
    name: 'trailing-whitespace',
    forgives: 'spaces and tabs at the end of lines, and blank lines at the end of the output',
    apply: (t) => t.replace(/[ \t]+$/gm, '').replace(/\n+$/, ''),
  },
  timings: {
    name: 'timings',
    forgives: 'durations (`0.12s`, `in 1.05 seconds`, `12ms`) and clock times or dates (`12:03:44`, `2024-05-01`)',
    apply: (t) =>
      t
        .replace(/\b\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?/g, '<date>')
        .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<time>')
        .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|secs|seconds|second|min|minutes)\b/g, '<duration>'),
  },
  'temp-paths': {
    name: 'temp-paths',
    forgives: 'randomly named temporary paths (`/tmp/tmpa1b2c3`, `/tmp/pytest-of-root/pytest-7`)',
    apply: (t) => t.replace(/\/tmp\/pytest-of-[\w-]+\/pytest-\d+/g, '<tmp>').replace(/\/tmp\/(tmp|swe-workbench-)[\w.-]+/g, '<tmp>'),
  },
  pids: {
    name: 'pids',
    forgives: "process ids (`pid 4242`, `PID: 4242`, a job's `[1] 4242`)",
    apply: (t) => t.replace(/\b(pid|PID|process)([:= ]+)\d+/g, '$1$2<pid>').replace(/^\[(\d+)\] \d+$/gm, '[$1] <pid>'),
  },
  'git-hashes': {
    name: 'git-hashes',
    forgives:
      "abbreviated git hashes (`index 27ddd68..18b6bed`, `a1b2c3d fix`): git picks their length (7 to 12 digits) from the repository's size, so another copy of the repository can print them longer",
    environment: true,
    apply: (t) => t.replace(/\b[0-9a-f]{7,12}\b(?=\.\.|\s|$)/gm, (hash) => (/[a-f]/.test(hash) && /\d/.test(hash) ? '<hash>' : hash)),
  },
  'container-host': {
    name: 'container-host',
    forgives:
      "the container's host name in a shell prompt (`root@3f9c2a1b7d4e:/app#`): Docker names a container's host after its id, and Harbor's recordings write it `CONTAINER_ID`",
    environment: true,
    apply: (t) => t.replace(/\b([a-z_][\w-]*)@(?:[0-9a-f]{12}|CONTAINER_ID):/g, '$1@<host>:'),
  },
  'harbor-screen': {
    name: 'harbor-screen',
    forgives:
      "what Harbor's own recordings normalise away in a terminal's output (its test suite rewrites them so): an idle prompt before blank lines, bash's job-control warnings, the blank lines after `New Terminal Output:`, and runs of blank lines",
    environment: true,
    apply: (t) =>
      t
        .replace(/\b[\w.-]+@[^\s:@]+:[^\s]*[#$]\n\n+/g, '\n\n')
        .replace(/bash: cannot set terminal process group \(-?\d+\): Inappropriate ioctl for device\n/g, '')
        .replace(/bash: no job control in this shell\n/g, '')
        .replace(/New Terminal Output:\n+/g, 'New Terminal Output:\n\n')
        .replace(/\n{3,}/g, '\n\n'),
  },
};

/** What a default comparison forgives: every normaliser of the tools' own noise; environment ones only when chosen. */
export const DEFAULT_NORMALISERS: readonly NormaliserName[] = NORMALISER_NAMES.filter((n) => !NORMALISERS[n].environment);

export interface Comparison {
  matched: boolean;
  /** A line diff of the normalised texts (`-` recorded, `+` replayed), empty when matched. */
  diff: string;
}

/** @internal */
export function normalise(text: string, names: readonly NormaliserName[]): string {
  return names.reduce((t, name) => NORMALISERS[name].apply(t), text);
}

/**
 * The normalisers of `names` that changed the recorded or the replayed text, in the order they
 * ran: what a comparison forgave in this step, as opposed to what it was ready to forgive.
 */
export function normalisersThatChanged(recorded: string, replayed: string, names: readonly NormaliserName[]): NormaliserName[] {
  const changed: NormaliserName[] = [];
  let [a, b] = [recorded, replayed];
  for (const name of names) {
    const [na, nb] = [NORMALISERS[name].apply(a), NORMALISERS[name].apply(b)];
    if (na !== a || nb !== b) changed.push(name);
    [a, b] = [na, nb];
  }
  return changed;
}

export function compareObservations(recorded: string, replayed: string, names: readonly NormaliserName[] = DEFAULT_NORMALISERS): Comparison {
  const a = normalise(recorded, names);
  const b = normalise(replayed, names);
  if (a === b) return { matched: true, diff: '' };
  return { matched: false, diff: lineDiff(a.split('\n'), b.split('\n')) };
}

/**
 * A unified-style line diff (`-` recorded, `+` replayed, two lines of context) from a longest
 * common subsequence. The common head and tail are cut first, so only the changed middle is
 * compared line by line.
 * @internal
 */
export function lineDiff(a: readonly string[], b: readonly string[], context = 2): string {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops = lcsOps(midA, midB);
  const lines: string[] = [`@@ -${head + 1},${midA.length} +${head + 1},${midB.length} @@`];
  for (const l of a.slice(Math.max(0, head - context), head)) lines.push(` ${l}`);
  lines.push(...ops);
  for (const l of a.slice(a.length - tail, a.length - tail + context)) lines.push(` ${l}`);
  return lines.join('\n');
}

function lcsOps(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push(` ${a[i++]}`);
      j++;
    } else if (j >= m || (i < n && table[i + 1]![j]! >= table[i]![j + 1]!)) ops.push(`-${a[i++]}`);
    else ops.push(`+${b[j++]}`);
  }
  return ops;
}
