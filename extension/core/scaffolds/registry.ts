/**
 * Which scaffold a recording was made with, and the `NAME@VERSION` override: the program's
 * composition root (`extension/families.ts`) installs the families here, detection asks each in
 * turn, and an unknown version says what it falls back to.
 */
import type { Trajectory } from '../trajectory/model';
import { registerFormat } from '../trajectory/formatRegistry';
import '../trajectory/formats';
import { registerToolKinds } from '../trajectory/actionKind';
import type { Scaffold, ScaffoldChoice, ScaffoldFamily, ScaffoldName } from './scaffold';

let installedFamilies: readonly ScaffoldFamily[] = [];

/** The family a recording no family claims is read as, and a live run without one runs (`extension/families.ts` declares it). */
export interface DefaultFamily {
  readonly family: ScaffoldFamily;
  /** Its name as the person reads it (`SWE-agent`). */
  readonly title: string;
}

let defaultFamily: DefaultFamily | undefined;

/**
 * Installs the program's families, in the order detection asks them, and registers their
 * trajectory formats and tool kinds; `fallback` (one of them) is the default family. Called once
 * where the program starts; installing the same list again does nothing.
 */
export function installFamilies(families: readonly ScaffoldFamily[], fallback: DefaultFamily): void {
  if (installedFamilies.length > 0) {
    if (families.length === installedFamilies.length && families.every((f, i) => f === installedFamilies[i]) && fallback.family === defaultFamily?.family)
      return;
    throw new Error('the scaffold families are already installed, as another list');
  }
  if (!families.includes(fallback.family)) throw new Error(`the default family ${fallback.family.name} is not among the installed ones`);
  for (const f of families) {
    for (const format of f.formats ?? []) registerFormat(format);
    if (f.toolKinds) registerToolKinds(f.toolKinds);
  }
  installedFamilies = families;
  defaultFamily = fallback;
}

/** The installed families; an Error saying so when the program started without them. */
function installed(): readonly ScaffoldFamily[] {
  if (installedFamilies.length === 0)
    throw new Error('no scaffold family is installed: the program starts with installScaffoldFamilies() (extension/families.ts)');
  return installedFamilies;
}

function fallbackFamily(): DefaultFamily {
  installed();
  return defaultFamily!;
}

function family(name: ScaffoldName): ScaffoldFamily {
  const found = installed().find((f) => f.name === name);
  if (!found)
    throw new Error(
      `no scaffold family '${name}' is installed (installed: ${installed()
        .map((f) => f.name)
        .join(', ')})`,
    );
  return found;
}

/** `name@version` of every known scaffold version, for usage texts. */
export function knownScaffolds(): string[] {
  return installed().flatMap((f) => f.versions.map((v) => `${f.name}@${v}`));
}

/** `found.version` of family `f` as one of its known versions, else its latest with a note. */
function knownVersion(f: ScaffoldFamily, found: { version: string; reason: string; undecided?: readonly string[] }): ScaffoldChoice {
  const known = f.versions.includes(found.version) ? found.version : f.matchVersion(found.version);
  if (known) return { name: f.name, version: known, reason: found.reason, ...(found.undecided ? { undecided: found.undecided } : {}) };
  const latest = f.versions[f.versions.length - 1]!;
  return {
    name: f.name,
    version: latest,
    reason: found.reason,
    fallback: `${f.name} version ${found.version} is not one we know (known: ${f.versions.join(', ')}); using ${latest}`,
  };
}

/**
 * The scaffold the file names (`meta.scaffold`, which every exporter writes where its format
 * allows): read before any guess, since a file's format does not tell its family (a fork of an
 * R2E-Gym run saved as `.traj` is in SWE-agent's format). A name no family has is left to the guess.
 */
function declaredScaffold(recording: Trajectory): ScaffoldChoice | undefined {
  const declared = recording.meta.scaffold;
  if (!declared) return undefined;
  const at = declared.indexOf('@');
  const [name, version] = at === -1 ? [declared, ''] : [declared.slice(0, at), declared.slice(at + 1)];
  const f = installed().find((x) => x.name === name);
  if (!f) return undefined;
  return knownVersion(f, { version: version || f.versions[f.versions.length - 1]!, reason: `meta.scaffold is '${declared}'` });
}

/** The scaffold a recording shows, with the evidence. A recording no family claims is the default family's, at its latest version. */
export function detectScaffold(recording: Trajectory): ScaffoldChoice {
  const declared = declaredScaffold(recording);
  if (declared) return declared;
  for (const f of installed()) {
    const found = f.detect(recording);
    if (found) return knownVersion(f, found);
  }
  const { family: f, title } = fallbackFamily();
  const version = f.versions.at(-1)!;
  return {
    name: f.name,
    version,
    reason: `a ${recording.format} trajectory that names no other scaffold: ${title}'s tools, the latest measured (${version})`,
  };
}

/** Reads `--scaffold NAME[@VERSION]`; an unknown name is an error, an unknown version falls back with a note. */
export function parseScaffoldSpec(spec: string): ScaffoldChoice {
  const [name, version, ...rest] = spec.trim().split('@');
  if (!name || rest.length > 0 || !installed().some((f) => f.name === name)) {
    throw new Error(`--scaffold: unknown scaffold '${spec}'; choose NAME or NAME@VERSION from ${knownScaffolds().join(', ')}`);
  }
  const f = family(name);
  const latest = f.versions[f.versions.length - 1]!;
  if (!version) return { name: f.name, version: latest, reason: `--scaffold ${spec}` };
  const known = f.versions.includes(version) ? version : f.matchVersion(version);
  if (known) return { name: f.name, version: known, reason: `--scaffold ${spec}` };
  return {
    name: f.name,
    version: latest,
    reason: `--scaffold ${spec}`,
    fallback: `${f.name} version ${version} is not one we know (known: ${f.versions.join(', ')}); using ${latest}`,
  };
}

/** A live run with no recording and no --scaffold runs the default family's latest tools. */
function liveDefault(): ScaffoldChoice {
  const { family: f, title } = fallbackFamily();
  const version = f.versions.at(-1)!;
  return { name: f.name, version, reason: `no recording and no --scaffold: ${title} ${version}` };
}

/** The scaffold to run: the override when given, else the recording's, else the default family's for a live run. */
export function chooseScaffold(options: { spec?: string; recording?: Trajectory; bundles?: readonly string[] }): {
  scaffold: Scaffold;
  choice: ScaffoldChoice;
} {
  const choice = options.spec ? parseScaffoldSpec(options.spec) : options.recording ? detectScaffold(options.recording) : liveDefault();
  const scaffold = family(choice.name).create(choice.version, options.recording, options.bundles);
  return { scaffold, choice };
}

/** `NAME@VERSION`, as `meta.scaffold` and `--scaffold` write it. */
export function scaffoldName(choice: { name: ScaffoldName; version: string }): string {
  return `${choice.name}@${choice.version}`;
}

/** One line for the person: what runs and why (and any fallback, or the versions nothing read told apart). */
export function describeChoice(choice: ScaffoldChoice): string {
  const undecided = choice.undecided && choice.undecided.length > 1 ? `; no step read tells ${choice.undecided.join(', ')} apart: using ${choice.version}` : '';
  return `scaffold ${choice.name}@${choice.version} (${choice.reason}${undecided})${choice.fallback ? `; ${choice.fallback}` : ''}`;
}
