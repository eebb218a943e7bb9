/**
 * Large SWE-agent 1.x trajectories for the load benchmark and the step-source tests, written
 * piece by piece so a 500 MB file is never one string.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Deterministic source-like text, so runs are comparable. */
export function codeLines(seed: number, bytes: number): string {
  const words = ['self', 'value', 'return', 'total_seconds', 'base_unit', 'int', 'round', 'field', 'serialize', 'precision', 'obj', 'attr', 'kwargs'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let x = (seed * 7919 + i * 104729) >>> 0;
    const parts: string[] = [];
    for (let w = 0; w < 6 + (i % 7); w++) {
      x = (x * 1103515245 + 12345) >>> 0;
      parts.push(words[x % words.length]!);
    }
    const line = `${String(i + 1).padStart(6)}\t        ${parts.join(' ')}(${x % 997}) "q\\${i % 10}"\r`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** `value` as indented JSON nested `depth` levels in. */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n' + '  '.repeat(depth));
}

/**
 * A SWE-agent 1.x trajectory of `steps` steps and about `megabytes` MB: each observation appears
 * in `trajectory[]` and again in `history[]`, as SWE-agent writes it, with `info` and
 * `replay_config` after them.
 */
export function writeTrajectory(file: string, steps: number, megabytes: number): void {
  const perObservation = Math.floor((megabytes * 1_000_000) / steps / 2);
  const fd = openSync(file, 'w');
  const write = (text: string) => writeSync(fd, text);
  try {
    write('{\n  "environment": "bench",\n  "trajectory": [');
    for (let i = 0; i < steps; i++) {
      const step = {
        action: `str_replace_editor view /testbed/src/module_${i}.py`,
        observation: codeLines(i, perObservation),
        response: `Look at module ${i}.`,
        thought: `Look at module ${i}.`,
        execution_time: 0.12,
        state: { open_file: null, working_dir: '/testbed' },
        query: [],
        extra_info: {},
      };
      write(`${i === 0 ? '' : ','}\n    ${indented(step, 2)}`);
    }
    write('\n  ],\n  "history": [');
    const preamble = [
      { role: 'system', content: 'SETTING: You are an autonomous programmer.', agent: 'main', message_type: 'system_prompt' },
      { role: 'user', content: 'Fix the TimeDelta precision bug.', agent: 'main', message_type: 'observation' },
    ];
    preamble.forEach((m, k) => write(`${k === 0 ? '' : ','}\n    ${indented(m, 2)}`));
    for (let i = 0; i < steps; i++) {
      const command = `str_replace_editor view /testbed/src/module_${i}.py`;
      const call = {
        id: `call_${i}`,
        type: 'function',
        function: { name: 'str_replace_editor', arguments: JSON.stringify({ command: 'view', path: `/testbed/src/module_${i}.py` }) },
      };
      const assistant = {
        role: 'assistant',
        content: `Look at module ${i}.`,
        thought: `Look at module ${i}.`,
        action: command,
        agent: 'main',
        message_type: 'action',
        tool_calls: [call],
      };
      const tool = { role: 'tool', content: codeLines(i, perObservation), agent: 'main', message_type: 'observation', tool_call_ids: [call.id] };
      write(`,\n    ${indented(assistant, 2)},\n    ${indented(tool, 2)}`);
    }
    const replayConfig = JSON.stringify({
      agent: {
        tools: {
          bundles: [{ path: 'tools/registry' }, { path: 'tools/edit_anthropic' }, { path: 'tools/submit' }],
          parse_function: { type: 'function_calling' },
        },
        model: { name: 'bench', temperature: 0 },
      },
    });
    const info = {
      exit_status: 'submitted',
      submission: 'diff --git a/x b/x\n',
      model_stats: { instance_cost: 1.5, tokens_sent: 1_000_000, tokens_received: 20_000, api_calls: steps },
    };
    write(`\n  ],\n  "info": ${indented(info, 1)},\n  "replay_config": ${JSON.stringify(replayConfig)}\n}\n`);
  } finally {
    closeSync(fd);
  }
}
