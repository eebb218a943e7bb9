/**
 * `--scaffold` and `--reply-format`, read the same way by every command that starts tools
 * (`run`, `replay`, `aci`): checked before anything is read, so a bad one is a usage error (exit 2).
 */
import { errorText } from '../core/errors';
import { isReplyFormat, knownReplyFormats, parseScaffoldSpec } from '../core/scaffolds/registry';
import { CliError } from './command';

/**
 * `--scaffold NAME[@VERSION]`; with `replyFormats`, one of a family's reply formats too (`run --scaffold FORMAT`,
 * the spelling before `--reply-format`). An unknown name is a usage error; an unmeasured version is told with the choice.
 */
export function scaffoldOption(spec: string | undefined, options: { replyFormats?: boolean } = {}): string | undefined {
  if (spec === undefined || (options.replyFormats && isReplyFormat(spec))) return spec;
  try {
    parseScaffoldSpec(spec);
  } catch (err) {
    throw new CliError(errorText(err));
  }
  return spec;
}

/** `--reply-format`: one of a family's reply formats; anything else is a usage error. */
export function replyFormatOption(format: string | undefined): string | undefined {
  if (format === undefined || isReplyFormat(format)) return format;
  throw new CliError(`--reply-format: unknown reply format '${format}'; choose one of ${knownReplyFormats().join(', ')}`);
}
