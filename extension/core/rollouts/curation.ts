import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InputError, throwIfAborted } from '../errors';
import type { Step, Trajectory } from '../trajectory/model';
import { ownSteps } from '../trajectory/copiedContext';
import { messageRole } from '../trajectory/stepLabels';
import type { ScoredRun } from './recipeRun';
import type { Rollout } from './record';
import { groupRollouts } from './rolloutGroups';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';

/**
 * Curation: the selected rollouts written as supervised fine-tuning data, one JSON line per
 * trajectory in OpenAI chat format. Assistant turns are trained and environment observations
 * masked, as SWE-Master trains: every assistant message carries OpenAI's `weight: 1`, and the
 * line's `loss_mask` gives the same per message (1 trained, 0 masked) for trainers that read it.
 */

/** The ready-made filters of the papers, by the names a person types. */
export type Preset =
  /** SWE-Master's difficulty filter: only groups where some rollouts pass and some fail. */
  | { kind: 'mixed' }
  | { kind: 'resolved' }
  | { kind: 'max-turns'; n: number }
  /** On the token count the run recorded; a rollout without one is left out, and counted. */
  | { kind: 'max-tokens'; n: number }
  /** Leaves out the rollouts that read git history (SWE-Master's "git hacking" audit). */
  | { kind: 'no-git-history' };

export const PRESET_HELP = 'mixed (groups with passes and failures only), resolved, max-turns=N, max-tokens=N, no-git-history';

export function parsePresets(text: string): Preset[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((word): Preset => {
      const [name, value] = word.split('=', 2) as [string, string | undefined];
      if ((name === 'mixed' || name === 'resolved' || name === 'no-git-history') && value === undefined) return { kind: name };
      if (name === 'max-turns' || name === 'max-tokens') {
        const n = Number(value);
        if (value === undefined || !Number.isInteger(n) || n < 0)
          throw new InputError(undefined, 'keep', `${name} takes a whole number, as ${name}=30; got '${word}'`);
        return { kind: name, n };
      }
      throw new InputError(undefined, 'keep', `unknown filter '${word}'; one of ${PRESET_HELP}`);
    });
}

/**
 * Commands that read the repository's history, which SWE-Master found agents use to copy the
 * upstream fix ("git hacking"): git log, git show, git reflog, and a diff against an earlier commit.
 */
const GIT_HISTORY =
  /\bgit\s+(?:-C\s+\S+\s+|--no-pager\s+)*(?:log|show|reflog|whatchanged)\b|\bgit\s+(?:-C\s+\S+\s+|--no-pager\s+)*diff\b[^\n;|&]*\b(?:HEAD|@)[~^]/;

interface GitHistoryRead {
  step: number;
  command: string;
}

/** The steps whose action (or any of its tool calls) reads git history. */
function gitHistoryReads(t: Pick<Trajectory, 'steps'>): GitHistoryRead[] {
  const found: GitHistoryRead[] = [];
  for (const step of t.steps) {
    for (const raw of [step.action.raw, ...(step.calls ?? []).map((c) => c.action.raw)]) {
      const m = GIT_HISTORY.exec(raw);
      if (m) {
        const line = raw.split('\n').find((l) => GIT_HISTORY.test(l)) ?? m[0];
        found.push({ step: step.index, command: line.trim().slice(0, 200) });
        break;
      }
    }
  }
  return found;
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** OpenAI fine-tuning: 1 trains this assistant message, 0 skips it. */
  weight?: 0 | 1;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

function assistantOf(step: Step): ChatMessage {
  const calls = step.calls?.length ? step.calls.map((c) => c.action) : step.action.toolCallId ? [step.action] : [];
  if (calls.length > 0 && calls.every((a) => a.toolCallId && a.tool)) {
    return {
      role: 'assistant',
      content: step.thought,
      weight: 1,
      tool_calls: calls.map((a) => ({ id: a.toolCallId!, type: 'function', function: { name: a.tool!, arguments: JSON.stringify(a.args) } })),
    };
  }
  const text = [step.thought, step.action.raw].filter((p) => p.trim() !== '').join('\n\n');
  return { role: 'assistant', content: text, weight: 1 };
}

function observationsOf(step: Step, assistant: ChatMessage): ChatMessage[] {
  if (assistant.tool_calls) {
    const results = step.calls?.length ? step.calls : [{ action: step.action, observation: step.observation }];
    return results.map((r) => ({ role: 'tool', tool_call_id: r.action.toolCallId!, content: r.observation }));
  }
  return [{ role: 'user', content: step.observation }];
}

/** A trajectory as OpenAI chat messages: the system prompt and task, then each step's assistant turn and observation. */
function chatMessages(t: Trajectory): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (t.meta.systemPrompt) messages.push({ role: 'system', content: t.meta.systemPrompt });
  const task = t.meta.instructions ?? t.task.problemStatement;
  if (task) messages.push({ role: 'user', content: task });
  // ATIF: a step copied in for context must not be trained on (and, joined with the run it came from, is there already).
  for (const step of ownSteps(t.steps)) {
    // A system or user turn kept in its place (a summarisation handoff, a router's user turn) is
    // the conversation the model read, not a reply of its own: it keeps its role and is not trained on.
    const role = messageRole(step);
    if (role) {
      const text = [step.thought, step.observation].filter((p) => p.trim() !== '').join('\n\n');
      if (text !== '') messages.push({ role, content: text });
      continue;
    }
    const assistant = assistantOf(step);
    messages.push(assistant);
    if (step.observation !== '' || assistant.tool_calls) messages.push(...observationsOf(step, assistant));
  }
  return messages;
}

interface ExportProgress {
  done: number;
  total: number;
  written: number;
}

export interface ExportOptions {
  presets?: Preset[];
  /** The run scored by a recipe: `mixed` then follows the recipe's groups (masked rollouts left out). */
  scored?: ScoredRun;
  /** Every rollout of the index, for the groups `mixed` is judged on (the selection may hold fewer). */
  all?: readonly Rollout[];
  signal?: AbortSignal;
  onProgress?: (p: ExportProgress) => void;
}

export interface ExportSummary {
  file: string;
  selected: number;
  written: number;
  /** Rollouts left out, per reason. */
  skipped: Record<string, number>;
  /** Rollouts that read git history (written or not), with the first such command. */
  gitHistory: { id: string; step: number; command: string }[];
  bytes: number;
}

/** The presets decided on the index alone, before any file is read: mixed, resolved, turns, tokens. */
function indexSelection(rollouts: readonly Rollout[], options: ExportOptions, skip: (reason: string) => void): Rollout[] {
  const presets = options.presets ?? [];
  const mixedGroups = presets.some((p) => p.kind === 'mixed')
    ? new Set(
        options.scored
          ? options.scored.groups.filter((g) => g.mixed).map((g) => g.instance)
          : groupRollouts(options.all ?? rollouts)
              .filter((g) => g.mixed)
              .map((g) => g.instance),
      )
    : undefined;
  const masked = options.scored ? new Map(options.scored.rollouts.filter((s) => s.score.outcome !== 'scored').map((s) => [s.id, s.score])) : undefined;
  return rollouts.filter((r) => {
    for (const p of presets) {
      if (p.kind === 'mixed' && !mixedGroups!.has(r.instance)) return (skip('not in a mixed group'), false);
      if (p.kind === 'resolved' && r.resolved !== true) return (skip('not resolved'), false);
      if (p.kind === 'max-turns' && r.steps > p.n) return (skip(`more than ${p.n} turns`), false);
      if (p.kind === 'max-tokens' && r.tokens === undefined) return (skip('no token count recorded'), false);
      if (p.kind === 'max-tokens' && r.tokens! > p.n) return (skip(`more than ${p.n} tokens`), false);
    }
    // A rollout the recipe masks or cannot score gives no signal to imitate either.
    // Counted by the recipe's own reason, worded as the table and `rollouts list --recipe` word it.
    const score = masked?.get(r.id);
    if (score) return (skip(score.outcome === 'masked' ? `masked: ${score.mask!.reason}` : `not scored: ${score.unscored}`), false);
    return true;
  });
}

/**
 * Writes the rollouts as JSONL chat data to `file`, streaming: one trajectory is read, converted
 * and written at a time, with backpressure. The lines go to a temporary file beside `file`,
 * renamed over it only when every line is written; a cancel or an error removes it, so `file` is
 * either the whole export or untouched.
 */
export async function exportSft(root: string, rollouts: readonly Rollout[], file: string, options: ExportOptions = {}): Promise<ExportSummary> {
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => void (skipped[reason] = (skipped[reason] ?? 0) + 1);
  const chosen = indexSelection(rollouts, options, skip);
  const scores = options.scored && new Map(options.scored.rollouts.map((s) => [s.id, s.score]));
  // What the recipe made of a written rollout (the masked ones are left out above): its reward beside the recorded one.
  const recipeOf =
    options.scored &&
    ((id: string) => ({ name: options.scored!.recipe.name, version: options.scored!.recipe.version, reward: scores!.get(id)?.value ?? null }));
  const dropGitReaders = (options.presets ?? []).some((p) => p.kind === 'no-git-history');
  const summary: ExportSummary = { file, selected: rollouts.length, written: 0, skipped, gitHistory: [], bytes: 0 };
  await mkdir(dirname(file), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new InputError(file, undefined, `cannot create its folder: ${err.message}`);
  });
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  const out = createWriteStream(temp, { flags: 'wx' });
  let failed: unknown;
  out.on('error', (err) => (failed ??= err));
  await once(out, 'open').catch((err: NodeJS.ErrnoException) => {
    throw new InputError(file, undefined, `cannot write beside it: ${err.message}`);
  });
  let done = 0;
  try {
    await forEachRolloutText(
      root,
      chosen,
      async (text, rollout) => {
        throwIfAborted(options.signal);
        if (failed) throw failed;
        const t = importRolloutTrajectory(JSON.parse(text), rollout.path, rollout.line);
        const reads = gitHistoryReads(t);
        if (reads.length > 0) summary.gitHistory.push({ id: rollout.id, ...reads[0]! });
        options.onProgress?.({ done: ++done, total: chosen.length, written: summary.written });
        if (dropGitReaders && reads.length > 0) return skip('read git history');
        const messages = chatMessages(t);
        const line =
          JSON.stringify({
            id: rollout.id,
            instance: rollout.instance,
            messages,
            loss_mask: messages.map((m) => (m.role === 'assistant' ? 1 : 0)),
            metadata: {
              format: rollout.format,
              attempt: rollout.attempt,
              steps: rollout.steps,
              resolved: rollout.resolved,
              reward: rollout.reward ?? null,
              ...(recipeOf ? { recipe: recipeOf(rollout.id) } : {}),
              tokens: rollout.tokens ?? null,
              failure: rollout.failure,
              git_history: reads,
            },
          }) + '\n';
        summary.bytes += Buffer.byteLength(line);
        summary.written++;
        if (!out.write(line)) await Promise.race([once(out, 'drain'), once(out, 'error')]);
      },
      { ...(options.signal ? { signal: options.signal } : {}), onUnreadable: () => skip('unreadable trajectory') },
    );
    if (failed) throw failed;
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (failed) throw failed;
    await rename(temp, file);
  } catch (err) {
    out.destroy();
    await rm(temp, { force: true });
    throw err;
  }
  return summary;
}
