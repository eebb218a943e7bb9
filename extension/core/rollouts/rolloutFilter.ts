import { InputError } from '../errors';
import type { Rollout } from './record';
import { fieldNamed, type Field } from './rolloutFields';

/**
 * The filter language, e.g. `failure=max-steps and steps>50`, `tag=stuck-loop or not resolved=true`,
 * `instance~django and (cost>=0.5 or tokens>100000)`, `test~"test_getitem[DataFrame]"`.
 *
 *   expr       := term ('or' term)*
 *   term       := factor ('and' factor)*
 *   factor     := 'not' factor | '(' expr ')' | FIELD OP VALUE
 *   OP         := '=' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '~' (contains) | '!~'
 *   VALUE      := number | word | "quoted" | 'quoted' ; `none` matches a missing value
 *
 * A value may be written as the table shows it: `resolved=no` (yes, no; true, false), `—` for
 * none (and `unknown` for a number), `cost<$0.50`, `tokens>52,000`, `duration<30s`.
 *
 * Words are case-insensitive (keywords, fields, and string comparisons). Numeric fields take
 * the order operators; a missing value fails every comparison but `!=` and `=none`. A list
 * field (`tag`, `test`) matches when any element does.
 */
export type RolloutPredicate = (r: Rollout) => boolean;

type Token = { kind: 'word' | 'string' | 'op' | 'lparen' | 'rparen'; text: string; column: number };

const OPERATORS = ['==', '!=', '<=', '>=', '!~', '=', '<', '>', '~'] as const;
type Operator = (typeof OPERATORS)[number];

export function parseFilter(source: string): RolloutPredicate {
  const parser = new Parser(source, tokenize(source));
  const predicate = parser.expr();
  parser.expectEnd();
  return predicate;
}

function fail(column: number, problem: string): never {
  throw new InputError('filter', `column ${column}`, problem);
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    const column = i + 1;
    if (/\s/.test(ch)) i++;
    else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'lparen' : 'rparen', text: ch, column });
      i++;
    } else if (ch === '"' || ch === "'") {
      let text = '';
      let j = i + 1;
      for (; j < source.length && source[j] !== ch; j++) text += source[j] === '\\' && j + 1 < source.length ? source[++j] : source[j];
      if (j >= source.length) fail(column, `unterminated ${ch}quoted${ch} value`);
      tokens.push({ kind: 'string', text, column });
      i = j + 1;
    } else {
      const op = OPERATORS.find((o) => source.startsWith(o, i));
      if (op) {
        tokens.push({ kind: 'op', text: op, column });
        i += op.length;
        continue;
      }
      const word = /^[^\s()"'=!<>~]+/.exec(source.slice(i));
      if (!word) fail(column, `unexpected '${ch}'`);
      tokens.push({ kind: 'word', text: word[0], column });
      i += word[0].length;
    }
  }
  return tokens;
}

/** Parentheses and `not`s nested deeper than this are refused: the parser recurses once a level. */
const MAX_FILTER_NESTING = 100;

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  expr(): RolloutPredicate {
    const terms = [this.term()];
    while (this.keyword('or')) terms.push(this.term());
    return terms.length === 1 ? terms[0]! : (r) => terms.some((t) => t(r));
  }

  expectEnd(): void {
    const t = this.tokens[this.pos];
    if (t) fail(t.column, t.kind === 'rparen' ? "')' without a matching '('" : `expected 'and', 'or' or the end, got '${t.text}'`);
  }

  private term(): RolloutPredicate {
    const factors = [this.factor()];
    while (this.keyword('and')) factors.push(this.factor());
    return factors.length === 1 ? factors[0]! : (r) => factors.every((f) => f(r));
  }

  private factor(): RolloutPredicate {
    const start = this.tokens[this.pos];
    if (start && (start.kind === 'lparen' || (start.kind === 'word' && start.text.toLowerCase() === 'not'))) {
      if (this.depth >= MAX_FILTER_NESTING) fail(start.column, `nested deeper than ${MAX_FILTER_NESTING} levels of parentheses and 'not'`);
      this.depth++;
      try {
        return this.nestedFactor();
      } finally {
        this.depth--;
      }
    }
    return this.nestedFactor();
  }

  private nestedFactor(): RolloutPredicate {
    if (this.keyword('not')) {
      const inner = this.factor();
      return (r) => !inner(r);
    }
    const t = this.next('a comparison such as steps>50');
    if (t.kind === 'lparen') {
      const inner = this.expr();
      const close = this.tokens[this.pos];
      if (close?.kind !== 'rparen') fail(close?.column ?? this.source.length + 1, `expected ')' to close the '(' at column ${t.column}`);
      this.pos++;
      return inner;
    }
    if (t.kind !== 'word') fail(t.column, `expected a field name, got '${t.text}'`);
    const field = fieldNamed(t.text, `column ${t.column}`);
    const op = this.next(`an operator after '${t.text}'`);
    if (op.kind !== 'op') fail(op.column, `expected an operator (${OPERATORS.join(' ')}) after '${t.text}', got '${op.text}'`);
    const value = this.next(`a value after '${t.text}${op.text}'`);
    if (value.kind !== 'word' && value.kind !== 'string') fail(value.column, `expected a value after '${op.text}', got '${value.text}'`);
    return comparison(t.text, field, op.text as Operator, value);
  }

  private keyword(word: string): boolean {
    const t = this.tokens[this.pos];
    if (t?.kind === 'word' && t.text.toLowerCase() === word) {
      this.pos++;
      return true;
    }
    return false;
  }

  private next(expected: string): Token {
    const t = this.tokens[this.pos++];
    if (!t) fail(this.source.length + 1, `expected ${expected}, got the end of the filter`);
    return t;
  }
}

/** How the table shows a missing value: `—`, and `unknown` for a number the run did not record (a failure class may be `unknown`). */
const isNoneWord = (field: Field, text: string) => text === 'none' || text === '—' || (field.type === 'number' && text === 'unknown');
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, yes: true, false: false, no: false };

/** A number as the table writes it: `$0.42` (cost), `52,000` (tokens), `12.5 s` or `12.5s` (duration). */
function numberAsShown(text: string): number {
  const plain = text
    .trim()
    .replace(/^\$/, '')
    .replace(/,(?=\d{3}(?:\D|$))/g, '')
    .replace(/\s*s$/, '');
  return plain === '' ? NaN : Number(plain);
}

function comparison(name: string, field: Field, op: Operator, value: Token): RolloutPredicate {
  const isNone = value.kind === 'word' && isNoneWord(field, value.text.toLowerCase());
  if (isNone) {
    if (op !== '=' && op !== '==' && op !== '!=') fail(value.column, `'none' takes = or !=, not ${op}`);
    const want = op === '!=';
    return (r) => {
      const v = field.get(r);
      return (v !== undefined && v !== null) === want;
    };
  }
  switch (field.type) {
    case 'number':
      return numberComparison(name, field, op, value);
    case 'boolean':
      return booleanComparison(name, field, op, value);
    default:
      return textComparison(name, field, op, value);
  }
}

function numberComparison(name: string, field: Field, op: Operator, value: Token): RolloutPredicate {
  const n = numberAsShown(value.text);
  if (!Number.isFinite(n)) fail(value.column, `${name} is a number, got '${value.text}'`);
  if (op === '~' || op === '!~') fail(value.column, `${name} is a number: use = != < <= > >=`);
  const test: (v: number) => boolean = {
    '=': (v: number) => v === n,
    '==': (v: number) => v === n,
    '!=': (v: number) => v !== n,
    '<': (v: number) => v < n,
    '<=': (v: number) => v <= n,
    '>': (v: number) => v > n,
    '>=': (v: number) => v >= n,
  }[op];
  return (r) => {
    const v = field.get(r);
    return typeof v === 'number' ? test(v) : op === '!=';
  };
}

function booleanComparison(name: string, field: Field, op: Operator, value: Token): RolloutPredicate {
  const want = BOOLEAN_WORDS[value.text.toLowerCase()];
  if (want === undefined) fail(value.column, `${name} is yes, no or none (true and false too), got '${value.text}'`);
  if (op !== '=' && op !== '==' && op !== '!=') fail(value.column, `${name} takes = or !=, not ${op}`);
  return (r) => (field.get(r) === want) === (op !== '!=');
}

function textComparison(name: string, field: Field, op: Operator, value: Token): RolloutPredicate {
  if (op === '<' || op === '<=' || op === '>' || op === '>=') fail(value.column, `${name} is text: use = != ~ !~`);
  const want = value.text.toLowerCase();
  const exact = op === '=' || op === '==' || op === '!=';
  if (exact && field.values && !field.values.includes(want)) fail(value.column, `unknown ${name} '${value.text}'; one of ${field.values.join(', ')}`);
  const one = exact ? (v: string) => v.toLowerCase() === want : (v: string) => v.toLowerCase().includes(want);
  const negate = op === '!=' || op === '!~';
  return (r) => {
    const v = field.get(r);
    const list = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
    return list.some(one) !== negate;
  };
}
