import { TrajectorySchema, type Step, type Trajectory } from '../../extension/core/trajectory/model';

/**
 * The action of step `i` of a generated session on the sample repository: the windowed viewer,
 * the Anthropic editor (which keeps an undo history), searches, files written and deleted from
 * the shell, directories entered and left, and `git add`, in a cycle of 12.
 */
export function generatedCommand(i: number): string {
  switch (i % 12) {
    case 0:
      return `open "ledger/money.py" ${10 + (i % 40)}`;
    case 1:
      return `goto ${5 + (i % 30)}`;
    case 2:
      return `echo "note ${i}" >> notes.txt`;
    case 3:
      return `str_replace_editor create /repo/gen_f${i}.py --file_text 'VALUE = ${i}\n'`;
    case 4:
      return `str_replace_editor str_replace /repo/gen_f${i - 1}.py --old_str 'VALUE = ${i - 1}' --new_str 'VALUE = ${i * 10}'`;
    case 5:
      return 'search_file def';
    case 6:
      return `mkdir -p work/d${i} && cd work/d${i}`;
    case 7:
      return `printf 'x%.0s' $(seq 1 ${i % 50}) > here.txt && ls`;
    case 8:
      return 'cd /repo';
    case 9:
      return i % 24 === 9 ? 'git add -A' : `rm -f gen_f${i - 6}.py`;
    case 10:
      return 'scroll_down';
    default:
      return 'git status --short | head -5';
  }
}

/** A recording of `n` generated steps (observations left empty: a replay of it diverges, harmlessly). */
export function generatedRecording(n: number, commands: (i: number) => string = generatedCommand): Trajectory {
  const steps: Step[] = Array.from({ length: n }, (_, index) => ({
    index,
    thought: `step ${index}`,
    action: { raw: commands(index), tool: null, args: {} },
    observation: '',
  }));
  return TrajectorySchema.parse({ format: 'canonical', task: { repoPath: '/repo' }, steps, outcome: {}, meta: { id: `generated-${n}` } });
}
