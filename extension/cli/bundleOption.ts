import { toolSetFor } from '../core/scaffolds/swe-agent/tools/standardTools';
import type { ToolSet } from '../core/aci/toolRegistry';
import { CliError } from './command';
import { errorText } from '../core/errors';

/** The bundles of a `--bundles a,b` option; undefined when it was not given or names none. */
export function bundleList(value: string | undefined): string[] | undefined {
  const bundles = value
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return bundles && bundles.length > 0 ? bundles : undefined;
}

/** The tool set of these bundles (default: the standard ones); an unknown bundle is a usage error that says where the list came from. */
export function toolSetOption(bundles: readonly string[] | undefined, from = '--bundles'): ToolSet {
  try {
    return toolSetFor(bundles);
  } catch (err) {
    throw new CliError(`${from}: ${errorText(err)}`);
  }
}
