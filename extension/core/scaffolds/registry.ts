/**
 * Which scaffold a recording was made with, and the `NAME@VERSION` override: the program's
 * composition root (`extension/families.ts`) installs the families here, detection asks each in
 * turn, and an unknown version says what it falls back to.
 */
import { defined } from '../defined';
import type { Step, Trajectory } from '../trajectory/model';
import { registerFormat } from '../trajectory/formatRegistry';
import '../trajectory/formats';
import { registerReplyTools, registerSubmits, registerToolKinds } from '../trajectory/actionKind';
import { registerTextCallFormat } from '../trajectory/textCalls';
import { toolsCalled, type FamilyImage, type Normaliser, type Scaffold, type ScaffoldChoice, type ScaffoldFamily, type ScaffoldName } from './scaffold';

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
 * trajectory formats, reply formats read from text and tool kinds; `fallback` (one of them) is the default family. Called once
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
    for (const format of f.textCalls ?? []) registerTextCallFormat(format);
    if (f.submits) registerSubmits(f.submits);
    for (const format of f.formats ?? []) if (f.replyTools) registerReplyTools(format.name, f.replyTools);
  }
  installedFamilies = families;
  defaultFamily = fallback;
}

/** The images the installed families' tools need beyond the base image, with the family's name as a person reads it. */
export function familyImages(): Array<{ title: string; image: FamilyImage }> {
  return installed().flatMap((f) => (f.image ? [{ title: f.title ?? f.name, image: f.image }] : []));
}

/** The normalisers the installed families bring (`ScaffoldFamily.normalisers`), each with its family's name as a person reads it. */
export function familyNormalisers(): Array<{ family: ScaffoldName; title: string; normaliser: Normaliser }> {
  return installed().flatMap((f) => (f.normalisers ?? []).map((normaliser) => ({ family: f.name, title: f.title ?? f.name, normaliser })));
}

/** The image the family of `recording` needs beyond the base image, if any. */
export function recordingImage(recording: Trajectory): { title: string; image: FamilyImage } | undefined {
  const f = family(detectScaffold(recording).name);
  return f.image && { title: f.title ?? f.name, image: f.image };
}

/** The first of a family's own recording formats that can be written (a continuation is saved in it); undefined when none can. */
export function ownWritableFormat(name: ScaffoldName): string | undefined {
  return family(name).formats?.find((f) => f.exporter !== undefined)?.name;
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
  if (version) return knownVersion(f, { version, reason: `meta.scaffold is '${declared}'` });
  // A name without a version (written when the version was not known): the family's own reading, else every version stays open.
  const found = f.detect(recording);
  if (found) return knownVersion(f, { ...found, reason: `meta.scaffold is '${declared}', without a version; ${found.reason}` });
  const latest = f.versions.at(-1)!;
  return {
    name: f.name,
    version: latest,
    reason: `meta.scaffold is '${declared}', without a version`,
    ...(f.versions.length > 1 ? { undecided: [latest, ...f.versions.slice(0, -1).reverse()] } : {}),
  };
}

/**
 * The scaffold a recording shows, with the evidence. A recording no family claims is labelled
 * unknown, with the tools it calls; what a replay of it runs is the default family's latest tools.
 */
export function detectScaffold(recording: Trajectory): ScaffoldChoice {
  const declared = declaredScaffold(recording);
  if (declared) return declared;
  // A file in a family's own format is that family's to read; the others recognise their runs in the generic formats
  // (a chat export calling R2E-Gym's tools), never in another family's.
  const owner = installed().find((f) => (f.formats ?? []).some((format) => format.name === recording.format));
  for (const f of owner ? [owner] : installed()) {
    const found = f.detect(recording);
    if (found) return knownVersion(f, found);
  }
  const { family: f, title } = fallbackFamily();
  const version = f.versions.at(-1)!;
  const tools = [...toolsCalled(recording)].sort();
  return {
    name: f.name,
    version,
    reason: `no family's evidence claims this ${recording.format} recording${recording.meta.scaffold ? ` (it names '${recording.meta.scaffold}', which no family is)` : ''}: a replay runs ${title}'s tools (${version})`,
    unknown: { tools },
  };
}

/** `step` with only what the installed families' detection reads of its observation, for a reader that keeps every step (`inspect`). */
export function detectionEvidence(step: Step): Step {
  const head = Math.max(0, ...installed().map((f) => f.observationHead ?? 0));
  return step.observation.length > head ? { ...step, observation: step.observation.slice(0, head) } : step;
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

/** The installed family one of whose reply formats `text` is (`thought_action`: SWE-agent's), if any. */
function familyOfReplyFormat(text: string | undefined): ScaffoldFamily | undefined {
  return text === undefined ? undefined : installed().find((f) => f.replyFormats?.includes(text));
}

/** Every installed family's reply formats a person may name (`--reply-format`). */
export function knownReplyFormats(): string[] {
  return installed().flatMap((f) => [...(f.replyFormats ?? [])]);
}

/** The default family's name, for usage texts (`extension/families.ts` declares it). */
export function defaultScaffold(): ScaffoldName {
  return fallbackFamily().family.name;
}

/** Whether `text` is a reply format some installed family is driven in (`run --scaffold FORMAT`, the spelling before `--reply-format`). */
export function isReplyFormat(text: string | undefined): boolean {
  return familyOfReplyFormat(text) !== undefined;
}

/**
 * The scaffold to run: the one asked for (`parseScaffoldSpec`) when given, else the recording's, else the default family's for a live run.
 * A reply format (`--reply-format`) belongs to one family: with no override, a recording of another family is run
 * with that family's tools at its latest version; an override naming another family is an error.
 */
export function chooseScaffold(options: { asked?: ScaffoldChoice; recording?: Trajectory; bundles?: readonly string[]; replyFormat?: string }): {
  scaffold: Scaffold;
  choice: ScaffoldChoice;
} {
  const { replyFormat } = options;
  const choice = options.asked ?? (options.recording ? detectScaffold(options.recording) : liveDefault());
  const created = (c: ScaffoldChoice) => family(c.name).create(c.version, options.recording, defined({ bundles: options.bundles, replyFormat }));
  if (replyFormat === undefined) return { scaffold: created(choice), choice };
  const owner = familyOfReplyFormat(replyFormat);
  if (!owner) {
    throw new Error(`--reply-format: unknown reply format '${replyFormat}'; choose one of ${knownReplyFormats().join(', ')}`);
  }
  const title = owner.title ?? owner.name;
  if (options.asked !== undefined) {
    if (choice.name !== owner.name)
      throw new Error(`--reply-format: ${replyFormat} is a reply format of ${title}'s tools; scaffold ${choice.name} reads its own`);
    const asked = { ...choice, reason: `${choice.reason}, reply format ${replyFormat}` };
    return { scaffold: created(asked), choice: asked };
  }
  // A live run, or a recording of another family: the reply format's family at its latest version.
  const version = options.recording && choice.name === owner.name ? choice.version : owner.versions.at(-1)!;
  const own: ScaffoldChoice = { name: owner.name, version, reason: `${replyFormat}: ${title}'s tools with that reply format` };
  return { scaffold: created(own), choice: own };
}

/** Checks the tool bundles a person named (`--bundles`) against the families that have bundles; an Error naming the unknown one. */
export function checkBundles(bundles: readonly string[]): void {
  const checkers = installed().flatMap((f) => (f.checkBundles ? [f.checkBundles] : []));
  const problems: unknown[] = [];
  for (const check of checkers) {
    try {
      check(bundles);
      return;
    } catch (error) {
      problems.push(error);
    }
  }
  if (problems.length > 0) throw problems[0];
}

/** `NAME@VERSION`, as `meta.scaffold` and `--scaffold` write it. */
export function scaffoldName(choice: { name: ScaffoldName; version: string }): string {
  return `${choice.name}@${choice.version}`;
}

/**
 * The scaffold an export may write as the recording's (`meta.scaffold`): `NAME@VERSION` when the
 * evidence decides both, `NAME` when it leaves versions open (or names one we do not know), nothing
 * when the scaffold is unknown: never a version, or a name, the file does not bear out.
 */
export function evidencedScaffoldName(choice: ScaffoldChoice): string | undefined {
  if (choice.unknown) return undefined;
  if (choice.fallback !== undefined || (choice.undecided && choice.undecided.length > 1)) return choice.name;
  return scaffoldName(choice);
}

/** The scaffold in a few words, as a header shows it (`describeChoice` says why). */
export function scaffoldLabel(choice: ScaffoldChoice): string {
  if (choice.unknown) return choice.unknown.tools.length > 0 ? `unknown (tools: ${choice.unknown.tools.join(', ')})` : 'unknown';
  if (choice.undecided && choice.undecided.length > 1) return `${choice.name} ${choice.undecided.join(' or ')} (undecided until a step prints differently)`;
  return scaffoldName(choice);
}

/** One line for the person: what runs and why (and any fallback, or the versions nothing read told apart, which a replay tells apart where a step prints differently). */
export function describeChoice(choice: ScaffoldChoice): string {
  if (choice.unknown) {
    const tools = choice.unknown.tools.length > 0 ? `tools: ${choice.unknown.tools.join(', ')}` : 'no tool calls';
    return `scaffold unknown (${tools}; ${choice.reason})${choice.fallback ? `; ${choice.fallback}` : ''}`;
  }
  const undecided =
    choice.undecided && choice.undecided.length > 1
      ? `; no step read tells ${choice.undecided.join(', ')} apart: a replay tells them apart at the first step they print differently (${choice.version} until then)`
      : '';
  return `scaffold ${choice.name}@${choice.version} (${choice.reason}${undecided})${choice.fallback ? `; ${choice.fallback}` : ''}`;
}
