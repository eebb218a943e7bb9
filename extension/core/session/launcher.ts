/**
 * Plans and starts a session: a replay of a recording, a live run against a policy, or a fork
 * that replays a recording up to a step and continues live. `swe-workbench run`, `swe-workbench
 * replay` and the VS Code session controller all come through `launch`, so a session started
 * either way runs the same tools with the same settings and records the same meta.
 *
 * Planning is pure (`sessionPlan.ts`); a recording that leaves its scaffold's version undecided
 * has it settled by running the telling step under each (`versionProbe.ts`); starting takes the
 * plan, a source for the actions after the recording (a connected policy or a person,
 * `sessionSources.ts`) and the container's limits (`sessionStart.ts`, a fork's snapshot in
 * `sessionContainer.ts`).
 */
import { defined } from '../defined';
import type { AciConfig } from '../aci/toolDefinition';
import type { AciSession } from '../aci/aciSession';
import type { ScaffoldChoice } from '../scaffolds/scaffold';
import { startContainerSession } from './containerSession';
import type { StartOptions } from './sessionContainer';
import { planSession, scaffoldFor, type LaunchRequest, type SessionPlan } from './sessionPlan';
import type { LiveSource } from './sessionSources';
import { startSession, type StartedSession } from './sessionStart';
import { settleVersion } from './versionProbe';

export type { ForkStart } from './forkNote';
export type { LaunchRequest } from './sessionPlan';
export type { LiveSource } from './sessionSources';
export type { StartedSession } from './sessionStart';

/** What `startToolSession` starts: a scaffold's tools in a container, with no recording and no agent. */
export interface ToolSessionRequest extends Pick<LaunchRequest, 'image' | 'repoDir' | 'baseCommit' | 'scaffold' | 'bundles'> {
  repoPath: string;
  /** Tool settings over the scaffold's (e.g. `crlf`). */
  config?: Partial<AciConfig>;
  /** The container's label (`swe-workbench.role`), so leftovers say where they came from. */
  role: string;
  signal?: AbortSignal;
}

/**
 * A scaffold's tools in a container of their own, called one at a time (`swe-workbench aci`): the
 * scaffold is chosen and the container started as a session's are (its terminal, shell startup,
 * preparation, Pyright for the lsp bundle), so the tools print as they do in a replay or a run.
 */
export async function startToolSession(request: ToolSessionRequest): Promise<{ aci: AciSession; choice: ScaffoldChoice }> {
  const { scaffold, choice } = scaffoldFor(request, undefined);
  const aci = await startContainerSession({
    image: request.image,
    repoDir: request.repoDir,
    repoPath: request.repoPath,
    role: request.role,
    scaffold,
    ...defined({ config: request.config, baseCommit: request.baseCommit, signal: request.signal }),
  });
  return { aci, choice };
}

/** How `launch` starts a request: the container's options, and who gives the live actions. */
export interface LaunchOptions extends Omit<StartOptions, 'live'> {
  /**
   * Live and fork: who gives the actions after the recording's, or how to get them once the request
   * is planned (a policy connected only after the request proved sound).
   */
  live?: LiveSource | (() => Promise<LiveSource | undefined>);
  /** Told the plan with its settled version before the session's container starts (to tell the person the scaffold). */
  onSettled?(plan: SessionPlan): void;
}

/**
 * Plans a request, settles the version its recording leaves undecided and starts the session: the
 * one way the CLI's `run` and `replay` and the VS Code session controller start one. The session's
 * `plan` is the settled one (`plan.scaffoldChoice` names the version and why). `planSession` alone
 * plans without starting anything (a dry run).
 */
export async function launch(request: LaunchRequest, options: LaunchOptions): Promise<StartedSession> {
  const { live: given, onSettled, ...start } = options;
  const planned = planSession(request);
  const live = typeof given === 'function' ? await given() : given;
  // Versions the recording's observations leave undecided are told apart by running the step that differs under each.
  const plan = await settleVersion(request, planned, start);
  onSettled?.(plan);
  return startSession(plan, { ...start, ...defined({ live }) });
}
