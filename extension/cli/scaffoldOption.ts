/**
 * `--scaffold` and `--reply-format`, read the same way by every command that starts tools
 * (`run`, `replay`, `aci`): read once, before anything else is, so a bad one is a usage error
 * (exit 2), and what they name goes on to the launcher as read.
 */
import { errorText } from '../core/errors';
import { isReplyFormat, knownReplyFormats, parseScaffoldSpec } from '../core/scaffolds/registry';
import type { ScaffoldChoice } from '../core/scaffolds/scaffold';
import { CliError } from './command';

/**
 * `--scaffold NAME[@VERSION]`: the scaffold it names (an unmeasured version falls back, told with the choice);
 * with `replyFormats`, one of a family's reply formats instead (`run --scaffold FORMAT`, the spelling before
 * `--reply-format`). An unknown name is a usage error.
 */
export function scaffoldOption(spec: string | undefined, options: { replyFormats?: boolean } = {}): { scaffold?: ScaffoldChoice; replyFormat?: string } {
  if (spec === undefined) return {};
  if (options.replyFormats && isReplyFormat(spec)) return { replyFormat: spec };
  try {
    return { scaffold: parseScaffoldSpec(spec) };
  } catch (err) {
    throw new CliError(errorText(err));
  }
}

/** `--reply-format`: one of a family's reply formats; anything else is a usage error. */
export function replyFormatOption(format: string | undefined): string | undefined {
  if (format === undefined || isReplyFormat(format)) return format;
  throw new CliError(`--reply-format: unknown reply format '${format}'; choose one of ${knownReplyFormats().join(', ')}`);
}
