import { LINT_REJECTION_INTRO } from './flake8Guard';
import { bundleName } from './bundles';

/**
 * The SWE-agent versions whose tools print differently, each measured against SWE-agent's own
 * tools in `test/conformance` except `1.0.0`, read from recordings: `0.2` (the paper's release:
 * 0.7's shell functions with an earlier lint guard and its wording), `0.7` (shell functions in
 * `config/commands`, the repository at `/<owner>__<repo>`), `1.0.0` and `1.0.1` (bundles
 * `defaults`, `edit_linting`, `edit_replace`, ...), `1.1.0` (bundles renamed `windowed`,
 * `windowed_edit_*`) and `3ea751c0` (2025, the latest measured).
 */
export const SWE_AGENT_VERSIONS = ['0.2', '0.7', '1.0.0', '1.0.1', '1.1.0', '3ea751c0'] as const;
export type SweAgentVersion = (typeof SWE_AGENT_VERSIONS)[number];

// The host's settings carry the version for SWE-agent's tools without the host knowing it.
declare module '../../../aci/toolDefinition' {
  interface AciConfig {
    /** The SWE-agent version whose tools' output to reproduce (`sweAgentVersionOf`); default: the latest. */
    sweAgentVersion?: SweAgentVersion;
  }
}

/** The version tools default to when nothing says otherwise: the latest measured. */
const LATEST_SWE_AGENT_VERSION: SweAgentVersion = '3ea751c0';

/** How one version's tools print where versions differ. */
export interface SweAgentDialect {
  /**
   * The window's first line stops at `n_lines - window - windowEndSlack`: up to 1.1.0 one line
   * more (the window at the end of a file keeps a `(1 more lines below)`), 0 later.
   */
  windowEndSlack: 0 | 1;
  /** `create` writes a newline (1.0: `(1 lines total)` and `1:`) or an empty file (1.1 and later: `(0 lines total)`). */
  createWritesNewline: boolean;
  /** `insert <text> <line>` inserts at 0-based index `line - insertLineShift` (1.0.1, 1.1.0: the text becomes line `line`). */
  insertLineShift: 0 | 1;
  /**
   * `windowed_edit_replace`'s wording: `two-line` guidance and no blank line after the lint
   * errors (early 1.0 recordings), or the numbered review points (1.0.1 and later).
   */
  replaceWording: 'two-line' | 'numbered';
  /** The runtime strips trailing whitespace from observations (1.x); 0.7 kept its commands' final newline. */
  trimsObservations: boolean;
  /** 0.7's viewer: a window centred on `CURRENT_LINE`, shell functions' messages (`windowed07.ts`). */
  centredWindow: boolean;
  /**
   * The tools read a file as Python's `Path.read_text()` does (universal newlines: `\r\n` and a
   * lone `\r` read as `\n`) and write back what they read with `write_text()`, so a view shows no
   * `\r` and an edit leaves `\n` line ends throughout (1.x's Python tools); 0.7's shell functions
   * kept the bytes (`toolFiles.toolText` applies it).
   */
  readsTextMode: boolean;
  /** The sentence a refused edit starts with (0.1-0.2: "...retry your edit commmand." sic). */
  lintRejectionIntro: string;
  /**
   * The lint guard excuses errors the file had before the edit (0.7 and later); 0.1-0.2 refused
   * an edit while flake8 reported anything in the file, and listed every finding.
   */
  lintExcusesEarlierErrors: boolean;
  /** `open`'s usage shows the path quoted (`open "<file>"`, 0.7 and later) or bare (0.2). */
  quotedOpenUsage: boolean;
}

/** The paper release's (0.1-0.2), misspelling included. */
export const LINT_INTRO_0_2 = 'Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.';

const LATER_LINT = { lintRejectionIntro: LINT_REJECTION_INTRO, lintExcusesEarlierErrors: true, quotedOpenUsage: true } as const;

const DIALECTS: Record<SweAgentVersion, SweAgentDialect> = {
  // 0.2 and 0.7 had no replace-style edit; their fields only matter for the tools they had.
  '0.2': {
    windowEndSlack: 1,
    createWritesNewline: true,
    insertLineShift: 1,
    replaceWording: 'two-line',
    trimsObservations: false,
    centredWindow: true,
    readsTextMode: false,
    lintRejectionIntro: LINT_INTRO_0_2,
    lintExcusesEarlierErrors: false,
    quotedOpenUsage: false,
  },
  '0.7': {
    windowEndSlack: 1,
    createWritesNewline: true,
    insertLineShift: 1,
    replaceWording: 'two-line',
    trimsObservations: false,
    centredWindow: true,
    readsTextMode: false,
    ...LATER_LINT,
  },
  '1.0.0': {
    windowEndSlack: 1,
    createWritesNewline: true,
    insertLineShift: 1,
    replaceWording: 'two-line',
    trimsObservations: true,
    centredWindow: false,
    readsTextMode: true,
    ...LATER_LINT,
  },
  '1.0.1': {
    windowEndSlack: 1,
    createWritesNewline: true,
    insertLineShift: 1,
    replaceWording: 'numbered',
    trimsObservations: true,
    centredWindow: false,
    readsTextMode: true,
    ...LATER_LINT,
  },
  '1.1.0': {
    windowEndSlack: 1,
    createWritesNewline: false,
    insertLineShift: 1,
    replaceWording: 'numbered',
    trimsObservations: true,
    centredWindow: false,
    readsTextMode: true,
    ...LATER_LINT,
  },
  '3ea751c0': {
    windowEndSlack: 0,
    createWritesNewline: false,
    insertLineShift: 0,
    replaceWording: 'numbered',
    trimsObservations: true,
    centredWindow: false,
    readsTextMode: true,
    ...LATER_LINT,
  },
};

export function sweAgentDialect(version: SweAgentVersion | undefined): SweAgentDialect {
  return DIALECTS[version ?? LATEST_SWE_AGENT_VERSION];
}

export interface SweAgentVersionVerdict {
  version: SweAgentVersion;
  /** Why, in words shown to the user. */
  reason: string;
  /**
   * Every version the labels leave possible, `version` (the one the labels point to) among them:
   * the recording's own observations decide between them (`scaffolds/swe-agent/versionEvidence.ts`).
   */
  candidates: readonly SweAgentVersion[];
  /** Set when the recording (or the user) named a version we do not know: what we fall back to and why. */
  fallback?: string;
}

/** Bundles that exist only under their 1.1 names. */
const BUNDLES_1_1 = new Set(['windowed', 'windowed_edit_linting', 'windowed_edit_replace', 'windowed_edit_rewrite', 'multilingual_setup']);
/** The 1.x names of 0.7's command files, as 0.7 demonstrations converted to 1.x's format list them. */
const BUNDLES_0_7 = new Set(['defaults', 'edit_linting', 'search', 'submit']);
/** Bundles that exist only under their 1.0 names (renamed in 1.1). */
const BUNDLES_1_0 = new Set(['defaults', 'edit_linting', 'edit_replace', 'edit_rewrite']);

/**
 * A version as written (`1.0.1`, `v1.1.0`, `0.7.0`, `3ea751c0...`), mapped to the measured
 * version whose tools it runs; other spellings fall back to the nearest measured one, and say so.
 */
export function parseSweAgentVersion(text: string): { version: SweAgentVersion; fallback?: string } {
  const written = text.trim();
  if (/^[0-9a-f]{7,40}$/i.test(written) && '3ea751c087f32b16e039a2233dd6eefecef325d5'.startsWith(written.toLowerCase())) return { version: '3ea751c0' };
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(written);
  const known = `known: ${SWE_AGENT_VERSIONS.join(', ')}`;
  if (!m)
    return {
      version: LATEST_SWE_AGENT_VERSION,
      fallback: `unknown SWE-agent version '${written}': using ${LATEST_SWE_AGENT_VERSION}, the latest measured (${known})`,
    };
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3])];
  const nearest = (version: SweAgentVersion) => ({ version, fallback: `SWE-agent ${written} was not measured: using ${version}, the nearest (${known})` });
  // 0.1 words the lint rejection as 0.2 does; 0.3 took 0.7's wording.
  if (major === 0) return minor === 7 ? { version: '0.7' } : minor === 2 ? { version: '0.2' } : nearest(minor < 2 ? '0.2' : '0.7');
  if (major === 1 && minor === 0) return patch === 0 ? { version: '1.0.0' } : patch === 1 ? { version: '1.0.1' } : nearest('1.0.1');
  if (major === 1 && minor === 1) return patch === 0 ? { version: '1.1.0' } : nearest('1.1.0');
  return nearest(LATEST_SWE_AGENT_VERSION);
}

/**
 * Which SWE-agent version made a recording, and why we think so: the version the file states
 * (`info.swe_agent_version`), else its tool bundles' names, else its line ends (0.7 ran
 * commands without a terminal; every 1.x recording shows a pseudo-terminal's `\r\n`).
 * `override` (`--scaffold swe-agent@VERSION`) wins.
 */
export function sweAgentVersionOf(
  recording: {
    meta: {
      formatVersion?: string | undefined;
      toolBundles?: readonly string[] | undefined;
      pty?: boolean | undefined;
      stateTiming?: 'before-action' | 'after-action' | undefined;
    };
  },
  override?: string,
): SweAgentVersionVerdict {
  if (override !== undefined) {
    const parsed = parseSweAgentVersion(override);
    return { ...parsed, reason: `asked for SWE-agent ${override}`, candidates: [parsed.version] };
  }
  const { formatVersion, toolBundles, pty, stateTiming } = recording.meta;
  const bundles = (toolBundles ?? []).map(bundleName);
  const commandFiles = (toolBundles ?? []).some((b) => /(^|\/)config\/commands\//.test(b));
  if (commandFiles) return { version: '0.7', reason: 'its commands come from config/commands (SWE-agent 0.x)', candidates: sameEraFrom('0.2') };
  if (formatVersion && /^v?\d+\.\d+/.test(formatVersion)) {
    const parsed = parseSweAgentVersion(formatVersion);
    // A run from a main branch says the release it followed: later versions of the same tools stay possible.
    return { ...parsed, reason: `the file says swe_agent_version ${formatVersion}`, candidates: sameEraFrom(parsed.version) };
  }
  // 1.0 always ran under a pty: its bundle names without pty line ends are a converted 0.x run.
  if (pty === false && bundles.some((b) => b === 'defaults' || b === 'edit_linting') && bundles.every((b) => BUNDLES_0_7.has(b))) {
    return {
      version: '0.7',
      reason:
        "its observations have no pseudo-terminal line ends (\\r\\n), which every SWE-agent 1.x recording has: a 0.x run (or a 0.x demonstration in 1.x's file format)",
      candidates: sameEraFrom('0.2'),
    };
  }
  // 0.x's own files (no replay_config, so no bundles) show its structure: each step's state a JSON
  // string (1.x keeps an object) and observations without a pty's line ends.
  if (pty === false && stateTiming === 'before-action' && bundles.length === 0) {
    return {
      version: '0.7',
      reason:
        "its steps' state is a JSON string and its observations have no pseudo-terminal line ends (\\r\\n), as SWE-agent 0.x writes them (1.x keeps state as an object and runs under a pty)",
      candidates: sameEraFrom('0.2'),
    };
  }
  const newNames = bundles.filter((b) => BUNDLES_1_1.has(b));
  if (newNames.length > 0) {
    return {
      version: LATEST_SWE_AGENT_VERSION,
      reason: `bundle ${newNames[0]} exists only in SWE-agent 1.1 and later, and the file states no version`,
      fallback: `1.1.0 and later print differently (the window's end, insert's line): using ${LATEST_SWE_AGENT_VERSION}, the latest; --scaffold swe-agent@1.1.0 picks 1.1.0`,
      candidates: sameEraFrom('1.1.0'),
    };
  }
  const oldNames = bundles.filter((b) => BUNDLES_1_0.has(b));
  if (oldNames.length > 0) {
    // 1.0.1 writes info.swe_agent_version; recordings with 1.0's bundles and without it are earlier.
    return {
      version: '1.0.0',
      reason: `bundle ${oldNames[0]} was renamed after SWE-agent 1.0, and the file states no swe_agent_version (1.0.1 writes it)`,
      candidates: ['1.0.0'],
    };
  }
  return {
    version: LATEST_SWE_AGENT_VERSION,
    reason: bundles.length > 0 ? `its bundles (${bundles.join(', ')}) print the same in 1.0 and 1.1` : 'the recording names no tool bundles',
    fallback: `nothing tells the SWE-agent version: using ${LATEST_SWE_AGENT_VERSION}, the latest`,
    candidates: SWE_AGENT_VERSIONS.filter((v) => !sweAgentDialect(v).centredWindow),
  };
}

/** The versions whose tools share bundle names (0.x's command files, 1.0's bundles, 1.1's): a label says its era, not which of it. */
const ERAS: readonly (readonly SweAgentVersion[])[] = [
  ['0.2', '0.7'],
  ['1.0.0', '1.0.1'],
  ['1.1.0', '3ea751c0'],
];

/** `version` and the later versions of its era. */
function sameEraFrom(version: SweAgentVersion): SweAgentVersion[] {
  const era = ERAS.find((e) => e.includes(version))!;
  return era.slice(era.indexOf(version));
}
