/**
 * What pydantic 2 (lax mode, as the SDK validates a tool call's arguments) makes of a number a
 * model sent as something else, so that V1's tools accept and refuse the same calls: `"3"`,
 * `" 3 "`, `"3.00"`, `"1_000"` and `true` are ints, `"3.5"`, `"3."`, `"0x10"` and `"[1, 5]"` are not
 * (a list sent as a string stays a string, which pydantic refuses). A value it cannot read is
 * returned unchanged for the schema to refuse.
 */

/** pydantic's `int` from a str: ASCII digits, `_` between digits, a `.0…` tail; whitespace stripped. */
const INT_TEXT = /^([+-]?\d+(?:_\d+)*)(?:\.0+)?$/;
/** pydantic's `float` from a str: a decimal with `_` between digits and an exponent, or inf/nan. */
const FLOAT_TEXT = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?$/;

export function laxInt(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return value;
  const digits = INT_TEXT.exec(value.trim())?.[1];
  return digits === undefined ? value : Number(digits.replace(/_/g, ''));
}

export function laxFloat(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^[+-]?(?:inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(text)) return NaN;
  return FLOAT_TEXT.test(text) ? Number(text.replace(/_/g, '')) : value;
}
