import { parsePytestOutput } from './pytestOutput';
import type { TestStatusMap } from './testStatus';
import { parseUnittestOutput } from './unittestOutput';

export type TestOutputFormat = 'pytest' | 'unittest' | 'auto';

/** `auto` reads both styles: their line shapes do not overlap (`::` ids vs ` ... ` outcomes). */
export function parseTestOutput(text: string, format: TestOutputFormat = 'auto'): TestStatusMap {
  if (format === 'pytest') return parsePytestOutput(text);
  if (format === 'unittest') return parseUnittestOutput(text);
  return new Map([...parseUnittestOutput(text), ...parsePytestOutput(text)]);
}

const START_TEST_OUTPUT = '>>>>> Start Test Output';
const END_TEST_OUTPUT = '>>>>> End Test Output';
/** Markers the SWE-bench harness writes when the run itself broke: the run says nothing about the model. */
const INFRA_MARKERS = ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out'] as const;

/** Whether `text` is a SWE-bench / SWE-smith harness log: it has the start marker or one of the harness's failure markers. */
export function isSweBenchLog(text: string): boolean {
  return text.includes(START_TEST_OUTPUT) || INFRA_MARKERS.some((m) => text.includes(m));
}

export type SweBenchLog = { kind: 'tests'; statuses: TestStatusMap; text: string } | { kind: 'infra-failure'; reason: string };

/**
 * Reads a SWE-bench / SWE-smith evaluation log as the harness does: any infra marker voids the
 * run; otherwise the map comes from the text between the first start marker and the end marker.
 */
export function parseSweBenchLog(text: string, format: TestOutputFormat = 'auto'): SweBenchLog {
  const marker = INFRA_MARKERS.find((m) => text.includes(m));
  if (marker) return { kind: 'infra-failure', reason: marker.slice(6) };
  const start = text.indexOf(START_TEST_OUTPUT);
  const end = start < 0 ? -1 : text.indexOf(END_TEST_OUTPUT, start);
  if (start < 0 || end < 0) {
    return { kind: 'infra-failure', reason: `no test output between '${START_TEST_OUTPUT}' and '${END_TEST_OUTPUT}'` };
  }
  const inner = text.slice(start + START_TEST_OUTPUT.length, end);
  return { kind: 'tests', statuses: parseTestOutput(inner, format), text: inner };
}
