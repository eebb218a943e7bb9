/**
 * Terminus-2's two reply formats, read as Harbor's `TerminusJSONPlainParser` and
 * `TerminusXMLPlainParser` read them: the commands (keystrokes and a duration), whether the task
 * is marked complete, the analysis and plan, an error that makes the reply a step with no command,
 * and the warnings the next prompt repeats to the model, each worded as Harbor words it (the
 * auto-corrections included).
 */
import { pyRepr, pyStr, pyStrip } from '../../parsing/pythonText';
import { pyJsonLoads, pyTruthy, type PyJson } from './pyJson';

interface TerminusCommand {
  keystrokes: string;
  duration: number;
}

export interface TerminusParse {
  commands: TerminusCommand[];
  isTaskComplete: boolean;
  /** Why the reply could not be read ('' when it could). */
  error: string;
  /** The warnings as one text (`- a\n- b`), '' when none. */
  warning: string;
  analysis: string;
  plan: string;
}

export type TerminusReplyFormat = 'json' | 'xml';

function joined(warnings: readonly string[]): string {
  return warnings.length > 0 ? `- ${warnings.join('\n- ')}` : '';
}

function result(commands: TerminusCommand[], isTaskComplete: boolean, error: string, warnings: readonly string[], analysis = '', plan = ''): TerminusParse {
  return { commands, isTaskComplete, error, warning: joined(warnings), analysis, plan };
}

function withAutoFixes(
  response: string,
  parse: (text: string) => TerminusParse,
  fixes: [string, (text: string, error: string) => string | undefined][],
): TerminusParse {
  const first = parse(response);
  if (!first.error) return first;
  for (const [name, fix] of fixes) {
    const corrected = fix(response, first.error);
    if (corrected === undefined) continue;
    const again = parse(corrected);
    if (again.error !== '') continue;
    const auto = `AUTO-CORRECTED: ${name} - please fix this in future responses`;
    return { ...again, warning: again.warning ? `- ${auto}\n${again.warning}` : `- ${auto}` };
  }
  return first;
}

function pyLen(text: string): number {
  return Array.from(text).length;
}

// ---- JSON ----

/** The first balanced `{...}` of the reply (quotes and backslashes honoured), with warnings about text around it. */
function extractJson(response: string): { json: string; warnings: string[] } {
  let start = -1;
  let end = -1;
  let depth = 0;
  let inString = false;
  let escape = false;
  for (let i = 0; i < response.length; i++) {
    const c = response[i]!;
    if (escape) {
      escape = false;
      continue;
    }
    if (c === '\\') {
      escape = true;
      continue;
    }
    if (c === '"') {
      inString = !inString;
      continue;
    }
    if (inString) continue;
    if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0 && start !== -1) {
        end = i + 1;
        break;
      }
    }
  }
  if (start === -1 || end === -1) return { json: '', warnings: ['No valid JSON object found'] };
  const warnings: string[] = [];
  if (pyStrip(response.slice(0, start))) warnings.push('Extra text detected before JSON object');
  if (pyStrip(response.slice(end))) warnings.push('Extra text detected after JSON object');
  return { json: response.slice(start, end), warnings };
}

function isNumber(value: PyJson | undefined): boolean {
  // Python's bool is an int: `isinstance(True, (int, float))` holds.
  return typeof value === 'number' || typeof value === 'boolean';
}

function checkFieldOrder(json: string, warnings: string[]): void {
  const expected = ['analysis', 'plan', 'commands'];
  const positions = new Map<string, number>();
  for (const field of expected) {
    const m = new RegExp(`"(${field})"\\s*:`).exec(json);
    if (m) positions.set(field, m.index);
  }
  if (positions.size < 2) return;
  const present = expected.filter((f) => positions.has(f));
  const actual = [...present].sort((a, b) => positions.get(a)! - positions.get(b)!);
  if (actual.join() !== present.join()) warnings.push(`Fields appear in wrong order. Found: ${actual.join(' → ')}, expected: ${present.join(' → ')}`);
}

function parseJsonCommands(data: PyJson[], warnings: string[]): { commands: TerminusCommand[]; error: string } {
  const commands: TerminusCommand[] = [];
  for (let i = 0; i < data.length; i++) {
    const cmd = data[i];
    const n = i + 1;
    if (cmd === null || typeof cmd !== 'object' || Array.isArray(cmd)) return { commands: [], error: `Command ${n} must be an object` };
    if (!('keystrokes' in cmd)) return { commands: [], error: `Command ${n} missing required 'keystrokes' field` };
    const keystrokes = cmd.keystrokes;
    if (typeof keystrokes !== 'string') return { commands: [], error: `Command ${n} 'keystrokes' must be a string` };
    let duration = 1.0;
    if ('duration' in cmd) {
      if (isNumber(cmd.duration)) duration = Number(cmd.duration);
      else warnings.push(`Command ${n}: Invalid duration value, using default 1.0`);
    } else warnings.push(`Command ${n}: Missing duration field, using default 1.0`);
    const unknown = Object.keys(cmd).filter((k) => k !== 'keystrokes' && k !== 'duration');
    if (unknown.length > 0) warnings.push(`Command ${n}: Unknown fields: ${unknown.join(', ')}`);
    if (i < data.length - 1 && !keystrokes.endsWith('\n'))
      warnings.push(
        `Command ${n} should end with newline when followed by another command. Otherwise the two commands will be concatenated together on the same line.`,
      );
    commands.push({ keystrokes, duration });
  }
  return { commands, error: '' };
}

function tryParseJson(response: string): TerminusParse {
  const { json, warnings } = extractJson(response);
  if (!json) return result([], false, 'No valid JSON found in response', warnings);
  const loaded = pyJsonLoads(json);
  if ('error' in loaded) {
    const shown = pyLen(json) < 200 ? ` | Content: ${pyRepr(json)}` : ` | Content preview: ${pyRepr(Array.from(json).slice(0, 100).join(''))}...`;
    return result([], false, `Invalid JSON: ${loaded.error}${shown}`, warnings);
  }
  const data = loaded.value;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return result([], false, 'Response must be a JSON object', warnings);
  const missing = ['analysis', 'plan', 'commands'].filter((f) => !(f in data));
  if (missing.length > 0) return result([], false, `Missing required fields: ${missing.join(', ')}`, warnings);
  if (typeof data.analysis !== 'string') warnings.push("Field 'analysis' should be a string");
  if (typeof data.plan !== 'string') warnings.push("Field 'plan' should be a string");
  if (!Array.isArray(data.commands)) return result([], false, "Field 'commands' must be an array", warnings);
  checkFieldOrder(json, warnings);
  const taskComplete = data.task_complete;
  if (taskComplete !== undefined && taskComplete !== null && typeof taskComplete !== 'boolean' && typeof taskComplete !== 'string')
    warnings.push("Field 'task_complete' should be a boolean or string");
  const complete = typeof taskComplete === 'string' ? ['true', '1', 'yes'].includes(taskComplete.toLowerCase()) : pyTruthy(taskComplete);
  const analysis = pyStr(data.analysis!);
  const plan = pyStr(data.plan!);
  const parsed = parseJsonCommands(data.commands, warnings);
  if (parsed.error) {
    if (complete) {
      warnings.push(parsed.error);
      return result([], true, '', warnings, analysis, plan);
    }
    return result([], false, parsed.error, warnings, analysis, plan);
  }
  return result(parsed.commands, complete, '', warnings, analysis, plan);
}

function fixIncompleteJson(response: string, error: string): string | undefined {
  if (!['Invalid JSON', 'Expecting', 'Unterminated', 'No valid JSON found'].some((e) => error.includes(e))) return undefined;
  const missing = (response.match(/\{/g)?.length ?? 0) - (response.match(/\}/g)?.length ?? 0);
  return missing > 0 ? response + '}'.repeat(missing) : undefined;
}

function fixMixedContent(response: string): string | undefined {
  for (const m of response.matchAll(/\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}/g)) if ('value' in pyJsonLoads(m[0])) return m[0];
  return undefined;
}

function parseTerminusJson(response: string): TerminusParse {
  return withAutoFixes(response, tryParseJson, [
    ['Fixed incomplete JSON by adding missing closing brace', fixIncompleteJson],
    ['Extracted JSON from mixed content', (text) => fixMixedContent(text)],
  ]);
}

// ---- XML ----

/** Python's `float(text)` of an attribute value, or undefined where it raises ValueError. */
function pyFloatOf(text: string): number | undefined {
  const t = pyStrip(text).toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return NaN;
  const digits = String.raw`\d(?:_?\d)*`;
  if (!new RegExp(`^[+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:e[+-]?${digits})?$`).test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

const WORD = String.raw`[\p{L}\p{N}_]+`;

function checkExtraText(response: string, warnings: string[]): void {
  const start = response.indexOf('<response>');
  const end = response.indexOf('</response>');
  if (start === -1) return;
  if (pyStrip(response.slice(0, start))) warnings.push('Extra text detected before <response> tag');
  if (end !== -1 && pyStrip(response.slice(end + '</response>'.length))) {
    warnings.push('Extra text detected after </response> tag');
    const total = response.split('<response>').length - 1;
    if (total > 1) warnings.push(`IMPORTANT: Only issue one <response> block at a time. You issued ${total} and only the first was executed.`);
  }
}

function responseContent(response: string): string {
  const start = response.indexOf('<response>');
  if (start === -1) return '';
  const end = response.indexOf('</response>', start);
  return pyStrip(end === -1 ? response.slice(start + '<response>'.length) : response.slice(start + '<response>'.length, end));
}

const SECTIONS = ['analysis', 'plan', 'commands'] as const;

function topLevelTags(content: string): string[] {
  const tags: string[] = [];
  let depth = 0;
  let i = 0;
  while (i < content.length) {
    if (content[i] !== '<') {
      i++;
      continue;
    }
    const close = content.indexOf('>', i);
    if (close === -1) break;
    const inner = content.slice(i + 1, close);
    i = close + 1;
    if (inner.startsWith('!') || inner.startsWith('?')) continue;
    if (inner.startsWith('/')) {
      depth--;
      continue;
    }
    let name = inner.includes(' ') ? (pyStrip(inner).split(/\s+/)[0] ?? '') : inner;
    if (name.endsWith('/')) name = name.slice(0, -1);
    if (depth === 0) tags.push(name);
    if (!inner.endsWith('/')) depth++;
  }
  return tags;
}

function extractSections(content: string, warnings: string[]): Map<string, string> {
  const sections = new Map<string, string>();
  for (const name of [...SECTIONS, 'task_complete']) {
    const full = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(content);
    if (full) sections.set(name, pyStrip(full[1]!));
    else if (new RegExp(`<${name}\\s*/>`).test(content) || content.includes(`<${name}></${name}>`)) sections.set(name, '');
  }
  for (const name of SECTIONS) if (!sections.has(name)) warnings.push(`Missing <${name}> section`);
  const expected = new Set<string>([...SECTIONS, 'task_complete']);
  for (const tag of new Set(topLevelTags(content)))
    if (!expected.has(tag)) warnings.push(`Unknown tag found: <${tag}>, expected analysis/plan/commands/task_complete`);
  for (const name of [...SECTIONS, 'task_complete']) {
    const count = content.match(new RegExp(`<${name}(?:\\s|>|/>)`, 'g'))?.length ?? 0;
    if (count <= 1) continue;
    warnings.push(
      name === 'commands'
        ? `IMPORTANT: Only issue one <commands> block at a time. You issued ${count} and only the first was executed.`
        : `Multiple <${name}> sections found`,
    );
  }
  const positions = new Map<string, number>();
  for (const name of SECTIONS) {
    const m = new RegExp(`<${name}(?:\\s|>|/>)`).exec(content);
    if (m) positions.set(name, m.index);
  }
  if (positions.size >= 2) {
    const present = SECTIONS.filter((s) => positions.has(s));
    const actual = [...present].sort((a, b) => positions.get(a)! - positions.get(b)!);
    if (actual.join() !== present.join()) warnings.push(`Sections appear in wrong order. Found: ${actual.join(' → ')}, expected: ${present.join(' → ')}`);
  }
  return sections;
}

function checkAttributes(attributes: string, n: number, warnings: string[]): void {
  for (const m of attributes.matchAll(new RegExp(`(${WORD})\\s*=\\s*([^"'\\s>]+)`, 'gu')))
    warnings.push(`Command ${n}: Attribute '${m[1]}' value should be quoted: ${m[1]}="${m[2]}"`);
  for (const m of attributes.matchAll(new RegExp(`(${WORD})\\s*=\\s*'([^']*)'`, 'gu')))
    warnings.push(`Command ${n}: Use double quotes for attribute '${m[1]}': ${m[1]}="${m[2]}"`);
  for (const m of attributes.matchAll(new RegExp(`(${WORD})\\s*=`, 'gu')))
    if (m[1] !== 'duration') warnings.push(`Command ${n}: Unknown attribute '${m[1]}' - known attributes are: duration`);
}

const ENTITIES: [string, string][] = [
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&amp;', '&'],
  ['&quot;', '"'],
  ['&apos;', "'"],
];

function parseXmlCommands(xml: string, warnings: string[]): TerminusCommand[] {
  const matches = [...xml.matchAll(/<keystrokes([^>]*)>([\s\S]*?)<\/keystrokes>/g)];
  const commands = matches.map((m, i) => {
    const [attributes, keystrokes] = [m[1]!, m[2]!];
    const n = i + 1;
    checkAttributes(attributes, n, warnings);
    let duration = 1.0;
    const d = /duration\s*=\s*["']([^"']*)["']/.exec(attributes);
    if (d) {
      const value = pyFloatOf(d[1]!);
      if (value === undefined) warnings.push(`Command ${n}: Invalid duration value '${d[1]}', using default 1.0`);
      else duration = value;
    } else warnings.push(`Command ${n}: Missing duration attribute, using default 1.0`);
    if (i < matches.length - 1 && !keystrokes.endsWith('\n'))
      warnings.push(
        `Command ${n} should end with newline when followed by another command. Otherwise the two commands will be concatenated together on the same line.`,
      );
    return { keystrokes, duration };
  });
  for (const [entity, char] of ENTITIES)
    if (xml.includes(entity))
      warnings.push(
        `Warning: ${entity} is read verbatim and not converted to ${char}. NEVER USE ${entity}, unless you want these exact characters to appear directly in the output.`,
      );
  if (xml.includes('\\r\\n')) warnings.push('Warning: \\r\\n line endings are not necessary - use \\n instead for simpler output');
  return commands;
}

function tryParseXml(response: string): TerminusParse {
  const warnings: string[] = [];
  checkExtraText(response, warnings);
  const content = responseContent(response);
  if (!content) return result([], false, 'No <response> tag found', warnings);
  const complete = /<task_complete>\s*true\s*<\/task_complete>/i.test(content);
  const sections = extractSections(content, warnings);
  const analysis = sections.get('analysis') ?? '';
  const plan = sections.get('plan') ?? '';
  const commands = sections.get('commands') ?? '';
  if (!commands) {
    if (sections.has('commands')) {
      if (!complete)
        warnings.push(
          "Commands section is empty; not taking any action. If you want to wait a specific amount of time please use `sleep`, but if you're waiting for a command to finish then continue to wait.",
        );
      return result([], complete, '', warnings, analysis, plan);
    }
    if (complete) return result([], true, '', warnings, analysis, plan);
    return result([], false, 'Missing <commands> section', warnings, analysis, plan);
  }
  return result(parseXmlCommands(commands, warnings), complete, '', warnings, analysis, plan);
}

function parseTerminusXml(response: string): TerminusParse {
  return withAutoFixes(response, tryParseXml, [
    [
      'Missing </response> tag was automatically inserted',
      (text, error) => (error.includes('Missing </response> closing tag') ? `${text.trimEnd()}\n</response>` : undefined),
    ],
  ]);
}

export function parseTerminusReply(format: TerminusReplyFormat, response: string): TerminusParse {
  return format === 'json' ? parseTerminusJson(response) : parseTerminusXml(response);
}
