import { InputError } from '../errors';

/**
 * The one rule for a format that names its version (ATIF's `schema_version`, mini-swe-agent's
 * `trajectory_format`): a version this reader knows is read as it is; a newer minor version of a
 * major it knows is read as the newest it knows, with one warning that names the fields it does
 * not understand (a minor version only adds fields); a new major version is refused, since it may
 * change what the fields it keeps mean.
 */

export interface FormatVersion {
  major: number;
  minor: number;
}

export interface KnownVersions {
  /** The format's name as its files spell it, for messages (`ATIF`). */
  readonly label: string;
  readonly major: number;
  /** The newest minor version of `major` this reader knows. */
  readonly latestMinor: number;
  /** A version as the format writes it (`ATIF-v1.7`). */
  spell(v: FormatVersion): string;
}

/** Why a version is refused (another major version), or undefined when it is read. */
export function refusedVersion(known: KnownVersions, got: FormatVersion): string | undefined {
  const latest = known.spell({ major: known.major, minor: known.latestMinor });
  if (got.major === known.major) return undefined;
  return `${known.spell(got)} is a ${got.major > known.major ? 'newer' : 'different'} major version of ${known.label}: this reader knows ${known.spell({ major: known.major, minor: 0 })} to ${latest}, and a new major version may change what its fields mean, so it is not read (a newer minor version, ${known.spell({ major: known.major, minor: known.latestMinor + 1 })} say, would be)`;
}

/** Whether the version is one this reader knows or a newer minor one it reads with a warning; a new major is an InputError at `where`. */
export function versionStanding(known: KnownVersions, got: FormatVersion, file: string, where: string): 'known' | 'newer' {
  const refused = refusedVersion(known, got);
  if (refused !== undefined) throw new InputError(file, where, refused);
  return got.minor > known.latestMinor ? 'newer' : 'known';
}

/**
 * The one warning a newer minor version opens with: which version it was read as, and the fields
 * it does not understand (paths with `[*]` for any index), or, for a format open to any field
 * (`unknownFields` undefined), that those are left unread.
 */
export function newerVersionWarning(known: KnownVersions, got: FormatVersion, unknownFields: readonly string[] | undefined, keptBy: string): string {
  const latest = known.spell({ major: known.major, minor: known.latestMinor });
  const fields =
    unknownFields === undefined
      ? 'a field it does not know is left unread'
      : unknownFields.length === 0
        ? 'every field in it is one this reader knows'
        : `${unknownFields.length === 1 ? 'one field' : `${unknownFields.length} fields`} not understood (${unknownFields.join(', ')}), kept as they are ${keptBy}`;
  return `${known.spell(got)} is newer than ${latest}, the newest ${known.label} version this reader knows: read as ${latest}; ${fields}`;
}

/** The version in `text` by `pattern` (major, then an optional minor: 0 when absent), or undefined when it does not match. */
export function parseVersion(pattern: RegExp, text: string): FormatVersion | undefined {
  const m = pattern.exec(text);
  return m ? { major: Number(m[1]), minor: m[2] === undefined ? 0 : Number(m[2]) } : undefined;
}

/** A JSON path with each array index as `[*]`, so one field of every step is named once. */
export function fieldPattern(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? '[*]' : out === '' ? p : `.${p}`;
  return out;
}
