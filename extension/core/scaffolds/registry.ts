/**
 * Which scaffold a recording was made with, and the `NAME@VERSION` override: every family
 * registers here, detection asks each in turn, and an unknown version says what it falls back to.
 */
import type { Trajectory } from '../trajectory/model';
import { miniSweAgentFamily } from './mini-swe-agent';
import { openHandsFamily } from './openhands';
import { r2eGymFamily } from './r2e-gym';
import { SCAFFOLD_NAMES, type Scaffold, type ScaffoldChoice, type ScaffoldFamily, type ScaffoldName } from './scaffold';
import { sweAgentFamily } from './swe-agent';
import { terminus2Family } from './terminus-2';

const SCAFFOLD_FAMILIES: readonly ScaffoldFamily[] = [sweAgentFamily, miniSweAgentFamily, r2eGymFamily, openHandsFamily, terminus2Family];

function family(name: ScaffoldName): ScaffoldFamily {
  return SCAFFOLD_FAMILIES.find((f) => f.name === name)!;
}

/** `name@version` of every known scaffold version, for usage texts. */
export function knownScaffolds(): string[] {
  return SCAFFOLD_FAMILIES.flatMap((f) => f.versions.map((v) => `${f.name}@${v}`));
}

/** The scaffold a recording shows, with the evidence. A recording no family claims is SWE-agent's (the canonical format's default). */
export function detectScaffold(recording: Trajectory): ScaffoldChoice {
  for (const f of SCAFFOLD_FAMILIES) {
    const found = f.detect(recording);
    if (!found) continue;
    const known = f.versions.includes(found.version) ? found.version : f.matchVersion(found.version);
    if (known) return { name: f.name, version: known, reason: found.reason };
    const latest = f.versions[f.versions.length - 1]!;
    return {
      name: f.name,
      version: latest,
      reason: found.reason,
      fallback: `${f.name} version ${found.version} is not one we know (known: ${f.versions.join(', ')}); using ${latest}`,
    };
  }
  return { name: 'swe-agent', version: '1.1', reason: `a ${recording.format} trajectory that names no other scaffold: SWE-agent's tools` };
}

/** Reads `--scaffold NAME[@VERSION]`; an unknown name is an error, an unknown version falls back with a note. */
export function parseScaffoldSpec(spec: string): ScaffoldChoice {
  const [name, version, ...rest] = spec.trim().split('@');
  if (!name || rest.length > 0 || !(SCAFFOLD_NAMES as readonly string[]).includes(name)) {
    throw new Error(`--scaffold: unknown scaffold '${spec}'; choose NAME or NAME@VERSION from ${knownScaffolds().join(', ')}`);
  }
  const f = family(name as ScaffoldName);
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

/** A live run with no recording and no --scaffold runs SWE-agent's latest measured tools. */
function liveDefault(): ScaffoldChoice {
  const version = family('swe-agent').versions.at(-1)!;
  return { name: 'swe-agent', version, reason: `no recording and no --scaffold: SWE-agent ${version}` };
}

/** The scaffold to run: the override when given, else the recording's, else SWE-agent's defaults for a live run. */
export function chooseScaffold(options: { spec?: string; recording?: Trajectory; bundles?: readonly string[] }): {
  scaffold: Scaffold;
  choice: ScaffoldChoice;
} {
  const choice = options.spec ? parseScaffoldSpec(options.spec) : options.recording ? detectScaffold(options.recording) : liveDefault();
  const scaffold = family(choice.name).create(choice.version, options.recording, options.bundles);
  return { scaffold, choice };
}

/** One line for the person: what runs and why (and any fallback). */
export function describeChoice(choice: ScaffoldChoice): string {
  return `scaffold ${choice.name}@${choice.version} (${choice.reason})${choice.fallback ? `; ${choice.fallback}` : ''}`;
}
