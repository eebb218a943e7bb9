/**
 * Jinja2 templates (mini-swe-agent's observation and format-error templates) rendered with
 * nunjucks, adjusted where the two engines differ on what those templates use: Jinja drops the
 * template's one final newline, counts `length` in code points, and slices strings with
 * `s[:5000]`, which nunjucks does not parse (rewritten to a `_slice` call before compiling), and
 * has a `tojson` filter (Python's `json.dumps`, HTML-escaped).
 * Undefined names are errors, as mini-swe-agent renders with `StrictUndefined`.
 */
import nunjucks from 'nunjucks';

const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
env.addFilter('length', (value: unknown) => {
  if (typeof value === 'string') return Array.from(value).length;
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === 'object') return Object.keys(value).length;
  return 0;
});
env.addGlobal('_slice', (value: unknown, start: number | null, end: number | null) =>
  Array.from(String(value))
    .slice(start ?? undefined, end ?? undefined)
    .join(''),
);

/** Jinja2's `tojson`: Python's `json.dumps` (ASCII only, sorted keys, `, ` and `: `) with `<>&'` escaped for HTML. */
env.addFilter('tojson', (value: unknown) => pyJsonDumps(value).replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${pyJsonDumps(k)}: ${pyJsonDumps(v)}`).join(', ')}}`;
}

const TAG = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;
const SLICE = /([A-Za-z_][\w.]*)\[\s*(-?\d*)\s*:\s*(-?\d*)\s*\]/g;

function toNunjucks(template: string): string {
  const body = template.endsWith('\n') ? template.slice(0, -1) : template;
  return body.replace(TAG, (tag) => tag.replace(SLICE, (_m, target: string, a: string, b: string) => `_slice(${target}, ${a || 'null'}, ${b || 'null'})`));
}

const compiled = new Map<string, nunjucks.Template>();

/** Renders a Jinja2 template; a template that cannot be read or names an unknown variable throws with nunjucks' line and column. */
export function renderJinja(template: string, vars: Record<string, unknown>): string {
  let t = compiled.get(template);
  if (!t) {
    t = new nunjucks.Template(toNunjucks(template), env, undefined, true);
    compiled.set(template, t);
  }
  return t.render(vars);
}
