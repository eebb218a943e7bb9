/**
 * `swe-workbench image`: the offline base image the sandboxes and tests run in, and the
 * removal of sandbox containers left behind by processes that are gone.
 */
import { DEFAULT_BASE_IMAGE, ensureBaseImage } from '../core/runtime/baseImage';
import { familyImages } from '../core/scaffolds/registry';
import { cleanupLeftovers } from '../core/runtime/dockerSandbox';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';

const usage = () => `usage: swe-workbench image build [--tag TAG] [--force]
       swe-workbench image cleanup [--all]

build    Builds the offline base image (Debian bookworm minbase with python3, pytest, git,
         flake8, ripgrep, patch, procps) with debootstrap from this machine's Debian mirror,
         then imports it into the Docker engine. Skipped when TAG exists, unless --force.
         Default TAG: ${DEFAULT_BASE_IMAGE}. Needs root; installs debootstrap with apt-get if missing.
${familyImages()
  .map(({ title, image }) => `         Then, from it, the ${title} image ${image.tag} (${image.adds}), built without network.`)
  .join('\n')}
cleanup  Removes sandbox containers whose owning process has ended (--all: every sandbox container).`;

async function build(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(argv, { tag: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, false);
  if (values.help) {
    ctx.stdout.write(usage() + '\n');
    return 0;
  }
  const result = await ensureBaseImage({
    tag: values.tag ?? DEFAULT_BASE_IMAGE,
    force: values.force ?? false,
    signal: ctx.signal,
    onProgress: (line) => ctx.stderr.write(line + '\n'),
  });
  const said = (r: typeof result) =>
    r.built ? `built ${r.tag} ${r.imageId}\n` : `${r.tag} already exists (${r.imageId}); nothing to do (--force rebuilds it)\n`;
  ctx.stdout.write(said(result));
  for (const { image } of familyImages()) {
    const built = await image.ensure({
      base: result.tag,
      force: values.force ?? false,
      signal: ctx.signal,
      onProgress: (line) => ctx.stderr.write(line + '\n'),
    });
    ctx.stdout.write(said(built));
  }
  return 0;
}

async function cleanup(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs(argv, { all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, false);
  if (values.help) {
    ctx.stdout.write(usage() + '\n');
    return 0;
  }
  const removed = await cleanupLeftovers({ all: values.all ?? false });
  ctx.stdout.write(`removed ${removed.length} sandbox container${removed.length === 1 ? '' : 's'}${removed.map((id) => `\n  ${id.slice(0, 12)}`).join('')}\n`);
  return 0;
}

export const command: Command = {
  async run(argv, ctx) {
    const [sub, ...rest] = argv;
    if (sub === 'build') return build(rest, ctx);
    if (sub === 'cleanup') return cleanup(rest, ctx);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      ctx.stdout.write(usage() + '\n');
      return sub === undefined ? 2 : 0;
    }
    throw new CliError(`unknown image subcommand '${sub}'\n\n${usage()}`);
  },
};
