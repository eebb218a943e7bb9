// The package's default UMD build loads its parts with require() calls esbuild cannot follow.
import { parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import { InputError } from '../errors';

/** 1-based line and column of a UTF-16 offset in `text`. */
function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * JSON.parse with V8's error turned into a located InputError. `firstLine` shifts the reported
 * line when `text` is one line of a JSONL file.
 */
export function parseJsonText(text: string, file: string, firstLine = 1): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw located(err as Error, text, file, firstLine);
  }
}

/**
 * V8 gives a position for some syntax errors only, so the error is located again with
 * jsonc-parser (strict: no comments, no trailing commas), which reports an offset for each.
 */
function located(err: Error, text: string, file: string, firstLine: number): InputError {
  const errors: ParseError[] = [];
  parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  const end = text.trimEnd().length;
  const offset = first?.offset ?? end;
  const truncated =
    first === undefined ||
    offset >= end ||
    (printParseErrorCode(first.error) === 'UnexpectedEndOfString' && /end of JSON|Unterminated string/.test(err.message));
  const { line, column } = lineColumnAt(text, truncated ? end : offset);
  const where = `line ${line + firstLine - 1}, column ${column}`;
  if (truncated) return new InputError(file, where, 'unexpected end of JSON: the file looks truncated');
  const at = text.charCodeAt(offset);
  if (at === 0xfeff) return new InputError(file, where, 'invalid JSON: a byte order mark (U+FEFF) where JSON was expected');
  if (at < 0x20 && at !== 0x09 && at !== 0x0a && at !== 0x0d) {
    const code = `U+${at.toString(16).toUpperCase().padStart(4, '0')}`;
    return new InputError(file, where, `invalid JSON: a control character (${code})${at === 0 ? ', so binary data rather than JSON text' : ''}`);
  }
  const reason = err.message.replace(/\s*(in JSON )?at position \d+.*$/, '').replace(/, (?:\.\.\.)?".*$/s, '');
  return new InputError(file, where, `invalid JSON: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`);
}

/** An RFC 6901 JSON pointer from its parts. */
export function jsonPointer(parts: ReadonlyArray<string | number>): string {
  return parts.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** The value a JSON pointer designates in `root`, or undefined when it leads nowhere. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (node !== null && typeof node === 'object') node = (node as Record<string, unknown>)[key];
    else return undefined;
  }
  return node;
}
