/**
 * `swe-workbench convert FILE --to FORMAT --out OUT`: a trajectory of any format read, written in
 * another as the tool that reads it expects (SWE-agent's inspector, mini-swe-agent, R2E-Gym,
 * OpenHands, Harbor's ATIF, or canonical JSON). The file is written whole or not at all.
 */
import { exportFormats } from '../core/trajectory/exporters';
import { writeTrajectoryFile } from '../core/session/trajectoryRecorder';
import { loadTrajectory } from '../core/trajectory/load';
import { CliError, parseCommandArgs, type Command } from './command';
import { TRAJECTORY_INPUT_OPTIONS, trajectoryInputUsage, trajectoryInput } from './trajectoryInput';

const usage = () => `usage: swe-workbench convert FILE --to FORMAT --out OUT [--format NAME] [--line N | --record N]

Reads a trajectory in any supported format and writes it in another.
  --to FORMAT     ${exportFormats().join(', ')}
  --out OUT       the file to write (replaced atomically; nothing is written on an error)
${trajectoryInputUsage()}`;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...TRAJECTORY_INPUT_OPTIONS,
      to: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    const [file, ...extra] = positionals;
    if (!file || extra.length > 0) throw new CliError(`expected exactly one FILE\n\n${usage()}`);
    if (values.to === undefined || !exportFormats().includes(values.to)) {
      throw new CliError(`--to: expected one of ${exportFormats().join(', ')}, got ${values.to === undefined ? 'nothing' : `'${values.to}'`}`);
    }
    if (!values.out) throw new CliError(`--out is required\n\n${usage()}`);
    const input = trajectoryInput(values);
    const loaded = await loadTrajectory(file, { ...input, signal: ctx.signal });
    await writeTrajectoryFile(values.out, loaded.trajectory, values.to);
    ctx.stdout.write(`${values.out}: ${values.to}, ${loaded.trajectory.steps.length} steps (read as ${loaded.format} from ${file})\n`);
    return 0;
  },
};
