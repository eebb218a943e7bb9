import { TEST_STATUSES, type TestStatus, type TestStatusMap } from './testStatus';

/*
 * pytest's per-test lines, read by a tokenizer of string searches rather than regular
 * expressions: each line is scanned a bounded number of times, so a hostile line (a megabyte of
 * `a:: PASSED (`) costs what reading it costs, never a backtracking search.
 *
 *   verbose (-v):      ID STATUS [(reason)] [ [ NN%]]      ID has `::` and starts with a non-space
 *   summary (-rA):     [[gwN] [ NN%] ]STATUS ID[ - message]
 */

const STATUS_SET: ReadonlySet<string> = new Set(TEST_STATUSES);

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || c === 0x0d || c === 0xa0;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `[ 10%]` from `open` (the `[`) to the end of the line: spaces, digits, `%]`. */
function isPercentTail(line: string, open: number): boolean {
  let i = open + 1;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  const digits = i;
  while (i < line.length && isDigit(line.charCodeAt(i))) i++;
  return i > digits && line.slice(i) === '%]';
}

/** The line without a trailing `<space>[ NN%]`. */
function withoutPercent(line: string): string {
  if (!line.endsWith('%]')) return line;
  const open = line.lastIndexOf('[');
  if (open <= 0 || !isSpace(line.charCodeAt(open - 1)) || !isPercentTail(line, open)) return line;
  return line.slice(0, open).trimEnd();
}

/** `ID STATUS`, `ID STATUS (reason)`: the first ` STATUS` after the `::` that ends the line or opens a reason running to its end. */
function matchVerbose(line: string): { id: string; status: TestStatus } | undefined {
  if (line.length === 0 || isSpace(line.charCodeAt(0))) return undefined;
  const body = withoutPercent(line);
  const colons = body.indexOf('::');
  if (colons < 0) return undefined;
  let best: { at: number; status: TestStatus } | undefined;
  for (const status of TEST_STATUSES) {
    const word = ` ${status}`;
    for (let at = body.indexOf(word, colons + 3); at !== -1; at = body.indexOf(word, at + 1)) {
      if (best && at >= best.at) break;
      const after = at + word.length;
      const rest = body.length - after;
      if (rest === 0 || (rest >= 3 && body.charCodeAt(after) === 0x20 && body.charCodeAt(after + 1) === 0x28 && body.endsWith(')'))) {
        best = { at, status };
        break;
      }
    }
  }
  return best ? { id: body.slice(0, best.at), status: best.status } : undefined;
}

/** The test id at the start of a summary line's remainder: `path::name`, `path::name[params]`, up to ` - `, a space or the end. */
function summaryId(rest: string): string | undefined {
  let spaceAt = 0;
  while (spaceAt < rest.length && !isSpace(rest.charCodeAt(spaceAt))) spaceAt++;
  // Each `::` in the first word is tried in turn; every attempt starts past where the last one stopped.
  let from = 1;
  let closeFrom = 0;
  let close = -1;
  while (true) {
    const colons = rest.indexOf('::', from);
    if (colons < 0 || colons >= spaceAt) return undefined;
    let j = colons + 2;
    while (j < rest.length && !isSpace(rest.charCodeAt(j)) && rest.charCodeAt(j) !== 0x5b) j++;
    if (j > colons + 2) {
      if (j === rest.length || isSpace(rest.charCodeAt(j))) return rest.slice(0, j);
      // `[`: the shortest bracketed part that ends the line or is followed by a space.
      if (close < j) {
        closeFrom = Math.max(closeFrom, j);
        close = -1;
        for (let k = rest.indexOf(']', closeFrom); k !== -1; k = rest.indexOf(']', k + 1)) {
          if (k + 1 === rest.length || rest.charCodeAt(k + 1) === 0x20) {
            close = k;
            break;
          }
        }
        if (close < 0) closeFrom = rest.length;
      }
      if (close >= j) return rest.slice(0, close + 1);
    }
    from = Math.max(colons + 1, j);
  }
}

function matchSummary(line: string): { id: string; status: TestStatus } | undefined {
  let i = 0;
  // xdist's `[gw0] [ 10%] ` prefix.
  if (line.startsWith('[gw')) {
    let j = 3;
    while (j < line.length && isDigit(line.charCodeAt(j))) j++;
    if (j === 3 || !line.startsWith('] [', j)) return undefined;
    const close = line.indexOf('%] ', j + 3);
    if (close < 0 || !isPercentTail(line.slice(0, close + 2), j + 2)) return undefined;
    i = close + 3;
  }
  const space = line.indexOf(' ', i);
  if (space < 0 || space + 1 >= line.length) return undefined;
  const status = line.slice(i, space);
  if (!STATUS_SET.has(status)) return undefined;
  const id = summaryId(line.slice(space + 1));
  return id ? { id, status: status as TestStatus } : undefined;
}

/**
 * Reads pytest's per-test lines, verbose (`-v`) and short summary (`-rA`) alike. A later line
 * about the same test wins, as in SWE-bench's parser (a teardown ERROR after a PASSED call).
 * `SKIPPED [1] file.py:12: reason` summary lines name no test and are left out.
 */
export function parsePytestOutput(text: string): TestStatusMap {
  const map: TestStatusMap = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const hit = matchSummary(line) ?? matchVerbose(line);
    if (hit) map.set(hit.id, hit.status);
  }
  return map;
}

/**
 * pytest's closing line, `===== 3 failed, 10 passed in 1.20s =====` (or `no tests ran`): a run
 * that got to its end. Found by string searches, as above.
 */
export function isPytestSummaryLine(raw: string): boolean {
  const line = raw.trim();
  if (!line.startsWith('=') || !line.endsWith('=')) return false;
  let from = 0;
  let to = line.length;
  while (from < to && line.charCodeAt(from) === 0x3d) from++;
  while (to > from && line.charCodeAt(to - 1) === 0x3d) to--;
  const inner = line.slice(from, to).trim();
  const at = inner.lastIndexOf(' in ');
  if (at < 0 && !inner.startsWith('no tests ran')) return false;
  const tail = at < 0 ? '' : inner.slice(at + 4);
  const counted = /\b(passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|no tests ran)\b/.test(inner.slice(0, at < 0 ? undefined : at));
  return counted && (at < 0 || /^[\d.]+s\b/.test(tail));
}
