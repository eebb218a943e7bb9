/**
 * Whether a replayed observation is the one the recording holds. Exact text differs for reasons
 * that say nothing about the agent's world (a pty's `\r\n`, a test run's duration, a temporary
 * directory's random name), so each difference that is forgiven is forgiven by a named
 * normaliser that says what it forgives; everything else is a divergence. The generic normalisers
 * are here; a family brings its own (`ScaffoldFamily.normalisers`), and a comparison applies
 * whichever it is given, in order.
 */
import { lineDiff } from './lineDiff';
import { familyNormalisers } from '../scaffolds/registry';
import type { Normaliser } from '../scaffolds/scaffold';

/** The generic normalisers, in the order a comparison applies them. */
const GENERIC: readonly Normaliser[] = [
  {
    name: 'line-endings',
    forgives: "`\\r\\n` (a pseudo-terminal's line end in SWE-agent 1.x recordings) against `\\n`, and stray `\\r`",
    apply: (t) => t.replace(/\r+\n/g, '\n').replace(/\r/g, ''),
  },
  {
    name: 'ansi',
    forgives: 'terminal colour and cursor escape sequences',
    apply: (t) => t.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, ''),
  },
  {
    name: 'trailing-whitespace',
    forgives: 'spaces and tabs at the end of lines, and blank lines at the end of the output',
    apply: (t) => t.replace(/[ \t]+$/gm, '').replace(/\n+$/, ''),
  },
  {
    name: 'timings',
    forgives: 'durations (`0.12s`, `in 1.05 seconds`, `12ms`) and clock times or dates (`12:03:44`, `2024-05-01`)',
    apply: (t) =>
      t
        .replace(/\b\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?/g, '<date>')
        .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, '<time>')
        .replace(/\b\d+(\.\d+)?\s?(ms|s|sec|secs|seconds|second|min|minutes)\b/g, '<duration>'),
  },
  {
    name: 'temp-paths',
    forgives: 'randomly named temporary paths (`/tmp/tmpa1b2c3`, `/tmp/pytest-of-root/pytest-7`)',
    apply: (t) => t.replace(/\/tmp\/pytest-of-[\w-]+\/pytest-\d+/g, '<tmp>').replace(/\/tmp\/(tmp|swe-workbench-)[\w.-]+/g, '<tmp>'),
  },
  {
    name: 'pids',
    forgives: "process ids (`pid 4242`, `PID: 4242`, a job's `[1] 4242`)",
    apply: (t) => t.replace(/\b(pid|PID|process)([:= ]+)\d+/g, '$1$2<pid>').replace(/^\[(\d+)\] \d+$/gm, '[$1] <pid>'),
  },
  {
    name: 'git-hashes',
    forgives:
      "abbreviated git hashes (`index 27ddd68..18b6bed`, `a1b2c3d fix`): git picks their length (7 to 12 digits) from the repository's size, so another copy of the repository can print them longer",
    environment: true,
    apply: (t) => t.replace(/\b[0-9a-f]{7,12}\b(?=\.\.|\s|$)/gm, (hash) => (/[a-f]/.test(hash) && /\d/.test(hash) ? '<hash>' : hash)),
  },
];

/** What a default comparison forgives: every generic normaliser of the tools' own noise; environment ones only when chosen. */
export const DEFAULT_NORMALISERS: readonly Normaliser[] = GENERIC.filter((n) => !n.environment);

/** Every normaliser a person may name (`replay --forgive`): the generic ones, then each installed family's own. */
export function knownNormalisers(): Normaliser[] {
  return [...GENERIC, ...familyNormalisers().map((f) => f.normaliser)];
}

/** The normalisers `names` names, in that order; an Error naming the unknown ones and the known ones. */
export function normalisersNamed(names: readonly string[]): Normaliser[] {
  const known = knownNormalisers();
  const unknown = names.filter((n) => !known.some((k) => k.name === n));
  if (unknown.length > 0) throw new Error(`unknown normaliser(s) ${unknown.join(', ')}; choose from ${known.map((k) => k.name).join(', ')}`);
  return names.map((n) => known.find((k) => k.name === n)!);
}

export interface Comparison {
  matched: boolean;
  /** A line diff of the normalised texts (`-` recorded, `+` replayed), empty when matched. */
  diff: string;
}

function normalise(text: string, normalisers: readonly Normaliser[]): string {
  return normalisers.reduce((t, n) => n.apply(t), text);
}

/**
 * The `normalisers` that changed the recorded or the replayed text, in the order they ran: what a
 * comparison forgave in this step, as opposed to what it was ready to forgive.
 */
export function normalisersThatChanged(recorded: string, replayed: string, normalisers: readonly Normaliser[]): Normaliser[] {
  const changed: Normaliser[] = [];
  let [a, b] = [recorded, replayed];
  for (const n of normalisers) {
    const [na, nb] = [n.apply(a), n.apply(b)];
    if (na !== a || nb !== b) changed.push(n);
    [a, b] = [na, nb];
  }
  return changed;
}

export function compareObservations(recorded: string, replayed: string, normalisers: readonly Normaliser[] = DEFAULT_NORMALISERS): Comparison {
  const a = normalise(recorded, normalisers);
  const b = normalise(replayed, normalisers);
  if (a === b) return { matched: true, diff: '' };
  return { matched: false, diff: lineDiff(a.split('\n'), b.split('\n')) };
}
