import { checkBundles } from '../core/scaffolds/registry';
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

/** Checks the bundles against the families' tool bundles; an unknown bundle is a usage error that says where the list came from. */
export function checkBundleOption(bundles: readonly string[], from = '--bundles'): void {
  try {
    checkBundles(bundles);
  } catch (err) {
    throw new CliError(`${from}: ${errorText(err)}`);
  }
}
