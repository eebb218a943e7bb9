/**
 * mini-swe-agent's templates rendered by our engine (nunjucks with Jinja2's differences bridged,
 * core/scaffolds/jinja.ts) and by Jinja2 itself as mini-swe-agent calls it: every template of
 * every config at v1.17.5 and v2.4.6 (../shared/oracles/mini-swe-agent), on outputs around the
 * 10000-character limit, with multi-byte text, empty output, exceptions and format errors.
 */
import '../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { renderJinja } from '../../extension/core/scaffolds/jinja';
import { MINI_DEFAULTS } from '../../extension/core/scaffolds/mini-swe-agent/defaults';
import { needsShared } from '../helpers/sharedFolder';

const run = promisify(execFile);
const oracles = needsShared('oracles');
const ROOT = oracles.path('mini-swe-agent');
const DRIVER = path.join(__dirname, 'miniJinjaDriver.py');

async function python(args: string[], input?: unknown): Promise<unknown> {
  const child = run('python3', [DRIVER, ...args], { maxBuffer: 256 * 1024 * 1024 });
  if (input !== undefined) child.child.stdin!.end(JSON.stringify(input));
  return JSON.parse((await child).stdout);
}

const outputs = [
  '',
  'hello world\n',
  'no final newline',
  'trailing spaces   \n\n\n',
  'tabs\tand\r\ncarriage returns\r\n',
  'ünïcödé ✓ 日本語 🎉\n'.repeat(3),
  'x'.repeat(9999),
  'x'.repeat(10000),
  `${'a'.repeat(5000)}${'🎉'.repeat(10)}${'b'.repeat(5000)}`,
  `${'é'.repeat(7000)}\n${'z'.repeat(7000)}`,
  '{{ not a template }} {% raw %}\n',
];

/** The run's limits and progress, which programbench.yaml's observation template reads. */
function limits(i: number): Record<string, number> {
  return { step_limit: i % 2 === 0 ? 0 : 25, n_model_calls: i * 2, wall_time_limit_seconds: i % 2 === 0 ? 0 : 3600, elapsed_seconds: i * 400 };
}

function cases(): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  for (const [i, output] of outputs.entries()) {
    list.push({
      output: { output, returncode: i % 3 === 0 ? 0 : i, exception_info: i === 4 ? 'TimeoutExpired: took too long' : '' },
      action: { action: 'sleep 100' },
      actions: ['ls'],
      error: 'no action found',
      task: 'fix it',
      system: 'Linux',
      release: '6.1',
      version: '#1',
      machine: 'x86_64',
      ...limits(i),
    });
  }
  // Format errors: no action, two actions, and a reply cut off by the token limit (2.x).
  for (const [actions, finish] of [
    [[], undefined],
    [['ls', 'pwd'], undefined],
    [[], 'length'],
    [['ls'], 'stop'],
  ] as const) {
    list.push({
      actions,
      error: 'Expected exactly one action',
      output: { output: '', returncode: 0, exception_info: '' },
      action: { action: '' },
      task: 't',
      system: 'Darwin',
      release: '',
      version: '',
      machine: '',
      ...limits(1),
      ...(finish ? { finish_reason: finish } : {}),
    });
  }
  return list;
}

// Each test says why it is not run (counted on the summary when ../shared/oracles is absent); hooks do nothing then.
const skip = oracles.skip;

describe('mini-swe-agent templates: our renderer against Jinja2', () => {
  test('every template of every config renders as Jinja2 renders it', { skip }, async () => {
    const templates = (await python(['templates', ROOT])) as Record<string, Record<string, string>>;
    const all = Object.entries(templates).flatMap(([file, keys]) => Object.entries(keys).map(([key, template]) => ({ where: `${file} ${key}`, template })));
    // Our own defaults for recordings without a config are checked the same way.
    for (const [version, d] of Object.entries(MINI_DEFAULTS)) {
      all.push(
        { where: `our ${version} observation default`, template: d.observationTemplate },
        { where: `our ${version} format error default`, template: d.formatErrorTemplate },
        { where: `our ${version} timeout default`, template: d.timeoutTemplate },
      );
    }
    assert.ok(all.length >= 20, `only ${all.length} templates found`);
    // A timeout template is given the partial output as text, the others the output record.
    const pairs = all.flatMap((t) =>
      cases().map((vars) => ({ ...t, vars: /timeout/.test(t.where) ? { ...vars, output: (vars.output as { output: string }).output } : vars })),
    );
    const expected = (await python(
      ['render'],
      pairs.map((p) => ({ template: p.template, vars: p.vars })),
    )) as (string | { error: string })[];
    const differ: string[] = [];
    for (const [i, p] of pairs.entries()) {
      let ours: string | { error: string };
      try {
        ours = renderJinja(p.template, p.vars);
      } catch {
        ours = { error: 'refused' };
      }
      const theirs = expected[i]!;
      const same = typeof theirs === 'string' ? ours === theirs : typeof ours !== 'string';
      if (!same)
        differ.push(
          `${p.where} with ${JSON.stringify(p.vars).slice(0, 120)}\n--- Jinja2\n${JSON.stringify(theirs).slice(0, 600)}\n--- ours\n${JSON.stringify(ours).slice(0, 600)}`,
        );
    }
    assert.deepEqual(differ, [], `${differ.length} of ${pairs.length} renderings differ:\n\n${differ.slice(0, 10).join('\n\n')}`);
  });

  test('our defaults are the templates of default.yaml at v1.17.5 and v2.4.6', { skip }, async () => {
    const templates = (await python(['templates', ROOT])) as Record<string, Record<string, string>>;
    assert.equal(MINI_DEFAULTS['1.x'].observationTemplate, templates['v1.17.5/src/minisweagent/config/default.yaml']!['agent.action_observation_template']);
    assert.equal(MINI_DEFAULTS['1.x'].formatErrorTemplate, templates['v1.17.5/src/minisweagent/config/default.yaml']!['agent.format_error_template']);
    assert.equal(MINI_DEFAULTS['2.x'].observationTemplate, templates['v2.4.6/src/minisweagent/config/default.yaml']!['model.observation_template']);
    assert.equal(MINI_DEFAULTS['2.x'].formatErrorTemplate, templates['v2.4.6/src/minisweagent/config/default.yaml']!['model.format_error_template']);
  });
});
