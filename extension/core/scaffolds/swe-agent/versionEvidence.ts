/**
 * Which SWE-agent version printed a recording, from what its observations show. The labels
 * (`sweAgentVersionOf`: the stated version, bundle names, line ends) leave candidates; each step
 * whose output one candidate's tools would print and another's would not narrows them: the lint
 * rejection's wording, where `open`/`goto`/`scroll` put the window against the file's length,
 * how many lines `create` leaves. Read without running anything; what is still undecided after
 * it is settled by running the step that tells the candidates apart (`session/launcher.ts`).
 */
import { LINT_REJECTION_INTRO } from './tools/flake8Guard';
import { LINT_INTRO_0_2, sweAgentDialect, sweAgentVersionOf, type SweAgentVersion, type SweAgentVersionVerdict } from './tools/sweAgentVersion';
import { clampFirstLine, firstLineFor, scrolledFirstLine } from './tools/windowedFile';
import type { Step, Trajectory } from '../../trajectory/model';

export interface VersionEvidence {
  version: SweAgentVersion;
  /** Why, in words shown to the person: the labels, then each step that narrowed the candidates. */
  reason: string;
  /** The versions still possible (`version` first) when more than one is. */
  undecided?: readonly SweAgentVersion[];
}

/** What one step shows: the candidates that would have printed it, and in words why. */
interface Clue {
  consistent: readonly SweAgentVersion[];
  says: string;
}

/** A window of a file as a 1.x viewer prints it: its length and the 0-based first line shown. */
interface WindowView {
  path: string;
  nLines: number;
  firstLine: number;
}

const WINDOW_HEADER = /\[File: (.+?) \((\d+) lines total\)\]\r?\n(?:\((\d+) more lines above\)\r?\n)?(\d+):/;

function windowView(observation: string): WindowView | undefined {
  const m = WINDOW_HEADER.exec(observation);
  if (!m) return undefined;
  return { path: m[1]!, nLines: Number(m[2]), firstLine: Number(m[4]) - 1 };
}

function wholeNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** `step N (\`command\`)`, for the person: steps count from 1. */
function stepName(step: Step): string {
  const command = step.action.raw.trim().split('\n', 1)[0] ?? '';
  return `step ${step.index + 1} (\`${command.length > 60 ? `${command.slice(0, 57)}...` : command}\`)`;
}

function list(versions: readonly SweAgentVersion[]): string {
  return versions.join(', ');
}

/** `as 0.2 does`, `as 1.0.0, 1.0.1 do`. */
function asVersions(versions: readonly SweAgentVersion[], does: string, doPlural: string): string {
  return `as SWE-agent ${list(versions)} ${versions.length === 1 ? does : doPlural}`;
}

/** The refused edit's first sentence: 0.1-0.2's "...retry your edit commmand." or the later one. */
function lintWording(step: Step, candidates: readonly SweAgentVersion[]): Clue | undefined {
  const said = step.observation.includes(LINT_INTRO_0_2) ? LINT_INTRO_0_2 : step.observation.includes(LINT_REJECTION_INTRO) ? LINT_REJECTION_INTRO : undefined;
  if (!said) return undefined;
  const consistent = candidates.filter((v) => sweAgentDialect(v).lintRejectionIntro === said);
  const words = said === LINT_INTRO_0_2 ? '"...retry your edit commmand." (sic)' : '"...then retry editing the file."';
  return { consistent, says: `${stepName(step)} words its lint rejection ${words}, ${asVersions(consistent, 'does', 'do')}` };
}

/** `create`'s new file: one line (1.0 writes a newline) or none (1.1 and later). */
function createdLines(step: Step, candidates: readonly SweAgentVersion[]): Clue | undefined {
  if (step.action.tool !== 'create') return undefined;
  const view = /^\[File: .+? \(([01]) lines total\)\]/.exec(step.observation.trimStart());
  if (!view) return undefined;
  const newline = view[1] === '1';
  const consistent = candidates.filter((v) => sweAgentDialect(v).createWritesNewline === newline);
  return { consistent, says: `${stepName(step)} shows a new file of ${view[1]} lines, ${asVersions(consistent, 'creates it', 'create it')}` };
}

/**
 * Where a 1.x `open FILE LINE`, `goto LINE` or `scroll_*` put the window, against where each
 * candidate's arithmetic puts it for the file's length (1.1.0 and earlier stop the window a line
 * short of the file's end).
 */
function windowArithmetic(
  step: Step,
  candidates: readonly SweAgentVersion[],
  settings: { window: number; overlap: number },
  previous: WindowView | undefined,
): Clue | undefined {
  const view = windowView(step.observation);
  if (!view) return undefined;
  const { window, overlap } = settings;
  const { tool, args } = step.action;
  const line = wholeNumber(args.line_number);
  let predict: ((slack: 0 | 1) => number) | undefined;
  if (tool === 'goto' && line !== undefined) predict = (slack) => firstLineFor(line - 1, view.nLines, window, slack);
  else if (tool === 'open' && line !== undefined) {
    const shown = Math.min(Math.max(line, 1), view.nLines);
    predict = (slack) => firstLineFor(shown - 1, view.nLines, window, slack);
  } else if ((tool === 'scroll_down' || tool === 'scroll_up') && previous && previous.path === view.path && previous.nLines === view.nLines) {
    const direction = tool === 'scroll_down' ? 1 : -1;
    predict = (slack) => scrolledFirstLine(clampFirstLine(previous.firstLine, view.nLines, window, slack), direction, view.nLines, window, overlap, slack);
  }
  if (!predict) return undefined;
  const judged = candidates.filter((v) => !sweAgentDialect(v).centredWindow);
  const consistent = judged.filter((v) => predict(sweAgentDialect(v).windowEndSlack) === view.firstLine);
  const others = judged.filter((v) => !consistent.includes(v));
  if (consistent.length === 0 || others.length === 0) return undefined;
  const elsewhere = predict(sweAgentDialect(others[0]!).windowEndSlack) + 1;
  return {
    consistent: [...consistent, ...candidates.filter((v) => sweAgentDialect(v).centredWindow)],
    says: `${stepName(step)} shows the window from line ${view.firstLine + 1} of ${view.nLines}, ${asVersions(consistent, 'places it', 'place it')} (${list(others)}: from line ${elsewhere})`,
  };
}

/**
 * The version a SWE-agent recording shows: the labels' candidates narrowed by its steps, in
 * order; a step no remaining candidate would print is left out (not our tools' doing to judge).
 */
export function readVersionEvidence(recording: Trajectory, verdict: SweAgentVersionVerdict = sweAgentVersionOf(recording)): VersionEvidence {
  let remaining = [...verdict.candidates];
  const found: string[] = [];
  const env = recording.meta.toolEnvVariables;
  const settings = { window: wholeNumber(env?.WINDOW) ?? 100, overlap: wholeNumber(env?.OVERLAP) ?? 2 };
  let previous: WindowView | undefined;
  for (const step of recording.steps) {
    if (remaining.length < 2) break;
    for (const clue of [lintWording(step, remaining), createdLines(step, remaining), windowArithmetic(step, remaining, settings, previous)]) {
      if (!clue || clue.consistent.length === 0 || clue.consistent.length === remaining.length) continue;
      remaining = remaining.filter((v) => clue.consistent.includes(v));
      found.push(clue.says);
    }
    previous = windowView(step.observation) ?? previous;
  }
  const version = remaining.includes(verdict.version) ? verdict.version : remaining[remaining.length - 1]!;
  const reason = [verdict.reason, ...found].join('; ');
  if (remaining.length > 1) return { version, reason, undecided: [version, ...remaining.filter((v) => v !== version)] };
  // The labels' own note (a version not measured, the nearest used) holds while the evidence kept their version.
  return { version, reason: verdict.fallback && version === verdict.version ? `${reason}; ${verdict.fallback}` : reason };
}

/** What of an observation the evidence reads (its opening: a window's header, a rejection's first sentence). */
export const EVIDENCE_HEAD = 4096;

/**
 * Whether a tool of `bundle` can print differently in versions of one era: the viewer and the
 * edit tools (the window's end, create's newline, insert's line, lint wording and guard); search,
 * submit and bash print alike in all of them.
 */
export function printsByVersion(bundle: string): boolean {
  return /^(windowed|defaults$|edit_)/.test(bundle);
}
