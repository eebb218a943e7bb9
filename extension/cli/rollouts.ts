import { InputError } from '../core/errors';
import type { IndexError, Rollout } from '../core/rollouts/record';
import { filterRollouts, parseFilter } from '../core/rollouts/rolloutFilter';
import { ROLLOUT_FIELDS, sortRollouts } from '../core/rollouts/rolloutFields';
import { groupRollouts, type RolloutGroup } from '../core/rollouts/rolloutGroups';
import { indexRollouts, nothingRead } from '../core/rollouts/rolloutIndex';
import { searchRollouts, type SearchHit } from '../core/rollouts/rolloutSearch';
import { CliError, parseCommandArgs, type Command } from './command';

const HELP = `usage: swe-workbench rollouts DIR [--json] [--filter EXPR] [--group] [--sort FIELD] [--search TEXT] [--k N,N] [--cache DIR]

Indexes every trajectory under DIR (all formats, JSON and JSONL), joins preds.json /
all_preds.jsonl and SWE-bench / SWE-smith report.json by instance id, and classifies failures.

  --json          per-rollout records and per-group statistics as JSON
  --filter EXPR   e.g. 'failure=max-steps and steps>50', 'tag=stuck-loop or resolved=none'
                  (operators = != < <= > >= ~ !~, and/or/not, parentheses, "quoted values")
  --group         per-instance statistics: solve rate, pass@k, mixed groups
  --sort FIELD    sort by a field; --sort=-FIELD or FIELD:desc for descending
  --search TEXT   only rollouts whose thoughts, actions or observations contain TEXT
  --k N,N         the k of the pass@k columns with --group (default 1,5,10)
  --cache DIR     keep an index cache in DIR; an unchanged folder is then not read again

fields: ${Object.entries(ROLLOUT_FIELDS)
  .map(([name, f]) => `${name} (${f.help})`)
  .join(', ')}
`;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      json: { type: 'boolean' },
      filter: { type: 'string' },
      group: { type: 'boolean' },
      sort: { type: 'string' },
      search: { type: 'string' },
      k: { type: 'string' },
      cache: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1) throw new CliError(`expected one folder, got ${positionals.length}\n\n${HELP}`);
    const ks = parseKs(values.k ?? '1,5,10');
    // The filter is a usage error before any file is read or any cache written.
    const predicate = values.filter === undefined ? undefined : await asCliError(async () => parseFilter(values.filter!));
    // A missing or unreadable folder is an input error (exit 1), as in inspect.
    const index = await indexRollouts(positionals[0]!, { signal: ctx.signal, ...(values.cache ? { cacheDir: values.cache } : {}) });
    let rollouts = predicate ? filterRollouts(index.rollouts, predicate) : index.rollouts;
    let hits: SearchHit[] | undefined;
    if (values.search !== undefined) {
      hits = await searchRollouts(index.root, rollouts, values.search, { signal: ctx.signal });
      const matched = new Set(hits.map((h) => h.rollout));
      rollouts = rollouts.filter((r) => matched.has(r.id));
    }
    if (values.sort) rollouts = await asCliError(async () => sortRollouts(rollouts, values.sort!));
    const groups = groupRollouts(rollouts);
    if (values.json) {
      ctx.stdout.write(JSON.stringify({ root: index.root, rollouts: rollouts.map(jsonRecord), groups, ...(hits ? { hits } : {}), errors: index.errors, stats: index.stats }, null, 2) + '\n');
    } else {
      ctx.stdout.write(values.group ? groupTable(groups, ks) : rolloutTable(rollouts));
      if (hits) ctx.stdout.write(hits.map((h) => `${h.rollout}  step ${h.step} ${h.field}: ${h.excerpt}`).join('\n') + (hits.length ? '\n' : ''));
      ctx.stdout.write(summary(rollouts, groups) + '\n');
      if (index.errors.length > 0) ctx.stderr.write(`${index.errors.length} unreadable input(s):\n${index.errors.map((e) => `  ${formatError(e)}`).join('\n')}\n`);
    }
    const unusable = nothingRead(index);
    if (unusable) ctx.stderr.write(`swe-workbench: ${unusable}\n`);
    return unusable ? 1 : 0;
  },
};

async function asCliError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof InputError) throw new CliError(err.message);
    throw err;
  }
}

function parseKs(text: string): number[] {
  const ks = text.split(',').map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) throw new CliError(`--k expects positive integers separated by commas, got '${text}'`);
  return ks;
}

function jsonRecord(r: Rollout) {
  const { evaluation, prediction, ...rest } = r;
  return { ...rest, evaluationFile: evaluation?.file ?? null, predictionFile: prediction?.file ?? null };
}

export function formatError(e: IndexError): string {
  return [e.file + (e.line !== undefined ? `:${e.line}` : ''), e.where, e.message].filter(Boolean).join(': ');
}

type Cell = string | number | undefined | null;

/** Columns padded to their widest cell; numbers right-aligned. */
function table(header: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map((c) => (c === undefined || c === null ? '-' : String(c))));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || row[i] === undefined || row[i] === null));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...text.map(line)].join('\n') + '\n';
}

function fixed(n: number | undefined, digits: number): Cell {
  return n === undefined ? undefined : Number(n.toFixed(digits));
}

function rolloutTable(rollouts: Rollout[]): string {
  return table(
    ['ID', 'INSTANCE', 'ATTEMPT', 'FORMAT', 'STEPS', 'EXIT', 'RESOLVED', 'REWARD', 'FAILURE', 'TOKENS', 'COST', 'SECONDS'],
    rollouts.map((r) => [r.id, r.instance, r.attempt, r.format, r.steps, r.exitStatus, r.resolved === null ? undefined : String(r.resolved), fixed(r.reward, 3), r.failure, r.tokens, fixed(r.cost, 4), fixed(r.duration, 1)]),
  );
}

function groupTable(groups: RolloutGroup[], ks: number[]): string {
  return table(
    ['INSTANCE', 'ROLLOUTS', 'EVALUATED', 'RESOLVED', 'SOLVE', ...ks.map((k) => `PASS@${k}`), 'MIXED', 'FAILURES'],
    groups.map((g) => [
      g.instance,
      g.rollouts,
      g.evaluated,
      g.resolved,
      g.solveRate === null ? undefined : fixed(g.solveRate, 3),
      ...ks.map((k) => fixed(g.passAtK[k - 1], 3)),
      g.mixed ? 'yes' : 'no',
      Object.entries(g.failures)
        .map(([f, n]) => `${f}:${n}`)
        .join(' '),
    ]),
  );
}

function summary(rollouts: Rollout[], groups: RolloutGroup[]): string {
  const evaluated = rollouts.filter((r) => r.resolved !== null).length;
  const resolved = rollouts.filter((r) => r.resolved === true).length;
  const mixed = groups.filter((g) => g.mixed).length;
  return `${rollouts.length} rollouts, ${groups.length} instances, ${resolved}/${evaluated} evaluated resolved, ${mixed} mixed groups`;
}
