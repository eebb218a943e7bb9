/**
 * `swe-workbench convert FILE --to FORMAT --out OUT`: a trajectory of any format read, written in
 * another as the tool that reads it expects (SWE-agent's inspector, mini-swe-agent, R2E-Gym,
 * OpenHands, Harbor's ATIF, or canonical JSON). The file is written whole or not at all.
 */
import { exportFormats } from '../core/trajectory/exporters';
import { ATIF_LATEST } from '../core/trajectory/importers/atif';
import { writeTrajectoryFile } from '../core/session/trajectoryRecorder';
import { loadTrajectory } from '../core/trajectory/load';
import { CliError, parseCommandArgs, type Command } from './command';
import { TRAJECTORY_INPUT_OPTIONS, trajectoryInputUsage, trajectoryInput } from './trajectoryInput';

const usage = () => `usage: swe-workbench convert FILE --to FORMAT --out OUT [--atif-version V] [--format NAME] [--line N | --record N]

Reads a trajectory in any supported format and writes it in another.
  --to FORMAT     ${exportFormats().join(', ')}
  --out OUT       the file to write (replaced atomically; nothing is written on an error)
  --atif-version V  with --to atif: ATIF-v1.0 to ${ATIF_LATEST} (default ${ATIF_LATEST}); refused when
                  the trajectory holds what that version has no field for
${trajectoryInputUsage()}`;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...TRAJECTORY_INPUT_OPTIONS,
      to: { type: 'string' },
      out: { type: 'string' },
      'atif-version': { type: 'string' },
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
    const version = values['atif-version'];
    if (version !== undefined && values.to !== 'atif') throw new CliError(`--atif-version is for --to atif, not --to ${values.to}`);
    const input = trajectoryInput(values);
    const loaded = await loadTrajectory(file, { ...input, signal: ctx.signal });
    for (const warning of loaded.trajectory.meta.warnings ?? []) ctx.stderr.write(`${file}: warning: ${warning}\n`);
    await writeTrajectoryFile(values.out, loaded.trajectory, values.to, version === undefined ? {} : { version });
    ctx.stdout.write(`${values.out}: ${values.to}, ${loaded.trajectory.steps.length} steps (read as ${loaded.format} from ${file})\n`);
    return 0;
  },
};
