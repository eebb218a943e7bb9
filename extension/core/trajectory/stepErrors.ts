import { runsCommand } from './actionKind';
import type { Step } from './model';

/**
 * Whether a step failed, and why, from everything a recording can hold: the exit code, the
 * importer's flags, a format error, and the output itself. SWE-agent 1.x records no exit codes,
 * so a Python traceback, a `command not found` or a failing test run is read from the text.
 * Pure: the stepper, the CLI and the rollouts read the same answer.
 */
type StepErrorKind = 'format-error' | 'exit-code' | 'flag' | 'traceback' | 'command-not-found' | 'test-failure';

export interface StepError {
  kind: StepErrorKind;
  /** What was found, for a person: `exit code 2`, `NoSuchModuleError: Can't load plugin…`. */
  detail: string;
  /** 1-based line of the observation it was found on, for output-based findings. */
  line?: number;
}

/** Flags (set by importers and sessions) that mean the step failed. */
const ERROR_FLAGS: ReadonlySet<string> = new Set(['lint-rejected', 'timeout', 'error', 'format-error', 'cancelled']);

const TRACEBACK = /^\s*Traceback \(most recent call last\):\s*$/;
/** The exception line that ends a traceback: `pkg.module.SomeError: message` at column 0. */
const EXCEPTION_LINE = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)|[A-Za-z_][\w.]*\.[A-Z]\w*)(?::\s?(.*))?$/;
/** bash and sh: `bash: foo: command not found`, `sh: 1: foo: not found`. */
const NOT_FOUND = /(?:^|:\s)([^\s:]+): (?:command not found|not found)\s*$/;
/** pytest's summary (`=== 2 failed, 3 passed in 0.1s ===`, `FAILED tests/x.py::t - …`) and unittest's `FAILED (failures=1)`. */
const PYTEST_SUMMARY = /^=+ .*?\b(\d+) (failed|errors?)\b.* =+$/;
const PYTEST_FAILED_LINE = /^(FAILED|ERROR) \S+::\S+/;
const UNITTEST_FAILED = /^FAILED \((?:failures|errors)=\d+/;

/** Errors read from a program's output alone; an empty list when it shows none. */
function outputErrors(output: string): StepError[] {
  const lines = output.split(/\r?\n/);
  const found: StepError[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (TRACEBACK.test(line)) {
      // The exception is the first line after the traceback's indented frames that starts at column 0.
      let end = i + 1;
      while (end < lines.length && (lines[end]!.startsWith(' ') || lines[end]!.trim() === '')) end++;
      const exception = lines[end] !== undefined && EXCEPTION_LINE.test(lines[end]!.trim()) ? lines[end]!.trim() : 'a Python traceback';
      found.push({ kind: 'traceback', detail: exception, line: i + 1 });
      i = end;
      continue;
    }
    const notFound = NOT_FOUND.exec(line);
    if (notFound) {
      found.push({ kind: 'command-not-found', detail: `${notFound[1]}: command not found`, line: i + 1 });
      continue;
    }
    const summary = PYTEST_SUMMARY.exec(line.trim());
    if (summary || PYTEST_FAILED_LINE.test(line) || UNITTEST_FAILED.test(line))
      found.push({ kind: 'test-failure', detail: line.trim().replace(/^=+\s*|\s*=+$/g, ''), line: i + 1 });
  }
  return found;
}

/** What a step's errors read from: a Step, or the few fields of one. */
export type StepErrorInput = Pick<Step, 'formatError' | 'exitCode' | 'flags' | 'observation'> & { action: Pick<Step['action'], 'tool' | 'args'> };

/**
 * Every reason a step counts as failed. Output is read only for actions that run a program:
 * a file viewed or edited may well contain the word `Traceback` without anything failing.
 */
export function stepErrors(step: StepErrorInput): StepError[] {
  const found: StepError[] = [];
  if (step.formatError !== undefined) found.push({ kind: 'format-error', detail: step.formatError });
  if (step.exitCode !== undefined && step.exitCode !== 0) found.push({ kind: 'exit-code', detail: `exit code ${step.exitCode}` });
  for (const flag of step.flags ?? []) if (ERROR_FLAGS.has(flag)) found.push({ kind: 'flag', detail: flag });
  if (runsCommand(step.action)) found.push(...outputErrors(step.observation));
  return found;
}

export function stepHasError(step: StepErrorInput): boolean {
  return stepErrors(step).length > 0;
}

/** A short mark for one error, as the CLI's step table prints it: `exit 2`, `traceback`, `lint-rejected`. */
function errorMark(error: StepError): string {
  switch (error.kind) {
    case 'exit-code':
      return error.detail.replace('exit code', 'exit');
    case 'flag':
      return error.detail;
    default:
      return error.kind;
  }
}

/** The distinct marks of a step's errors, in the order found. */
export function stepErrorMarks(step: StepErrorInput): string[] {
  return [...new Set(stepErrors(step).map(errorMark))];
}
