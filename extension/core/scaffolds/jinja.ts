/**
 * Jinja2 templates (mini-swe-agent's observation and format-error templates) rendered with
 * nunjucks, adjusted where the two engines differ on what those templates use: Jinja drops the
 * template's one final newline, counts `length` in code points, and slices strings with
 * `s[:5000]`, which nunjucks does not parse (rewritten to a `_slice` call before compiling).
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
env.addGlobal('_slice', (value: unknown, start: number | null, end: number | null) => Array.from(String(value)).slice(start ?? undefined, end ?? undefined).join(''));

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
