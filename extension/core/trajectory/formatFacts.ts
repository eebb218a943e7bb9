/**
 * What the program knows of each installed trajectory format besides how to read it: its name,
 * whether its files always say what was submitted, and the exit statuses its runs end with.
 * Kept apart from the definitions (`formatRegistry.ts`, whose importers and indexed readers need
 * Node) because the model, the run facts and the failure taxonomy read these, and the presenters
 * that use them compile without Node types. The registry adds each format here as it registers it.
 */

/** What a run's exit status says about how it ended, as the rollouts' failure taxonomy classes it. */
export type ExitClass = 'infra' | 'evaluation' | 'context' | 'maxSteps' | 'budget' | 'commandTimeout' | 'format' | 'stuck' | 'finished';

export interface FormatFacts {
  readonly name: string;
  /**
   * Files of this format always say what was submitted, nothing included (SWE-agent's
   * `info.submission`, null when nothing): a missing submission is then an empty one. In the
   * others (rLLM, SkyRL, plain messages) it means nothing.
   */
  readonly recordsSubmission?: boolean;
  /**
   * The exit statuses this format's runs end with, lower-cased, by what they mean (each pattern
   * one alternative of the class's; core/rollouts/failureTaxonomy.ts joins every format's).
   */
  readonly exitStatuses?: Readonly<Partial<Record<ExitClass, RegExp>>>;
  /**
   * Files of this format export a run another file records (Harbor's traces, written for
   * training from a trial's trajectory): why such a file is no rollout of its own. The rollout
   * index reports it as that, where counting it would count the run twice.
   */
  readonly notARollout?: string;
}

const contributed: FormatFacts[] = [];
const generic: FormatFacts[] = [];

/** Called by the format registry for each format it registers (a family's own, or a generic one). */
export function addFormatFacts(facts: FormatFacts, kind: 'family' | 'generic'): void {
  const list = kind === 'family' ? contributed : generic;
  if (!list.some((f) => f.name === facts.name)) list.push(facts);
}

/** Every registered format's facts: the families' own first, then the generic ones (the registry's order). */
export function allFormatFacts(): readonly FormatFacts[] {
  return [...contributed, ...generic];
}

export function formatNames(): string[] {
  return allFormatFacts().map((f) => f.name);
}

export function factsOf(name: string): FormatFacts | undefined {
  return allFormatFacts().find((f) => f.name === name);
}
