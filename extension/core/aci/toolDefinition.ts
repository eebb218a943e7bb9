import { z } from 'zod';
import type { ToolSyntax } from '../parsing/commandSyntax';
import type { Sandbox } from '../runtime/sandbox';

/** What a tool prints and its exit code, as the agent sees them. */
export interface ToolResult {
  observation: string;
  exitCode: number;
  /** Set by `submit`: the patch the agent handed in, which ends the episode. */
  submission?: string;
}

/** What the tools remember between calls, kept by the session (`AciSession`). */
export interface AciState {
  workingDir: string;
  /**
   * Each family's own tool state under the family's name (SWE-agent's viewer: its open file and
   * window; OpenHands' editor: its undo history), which the family types and reads; the host keeps it and copies it whole, as JSON
   * values, for a fork (`AciSession.toolState`), without knowing its shape.
   */
  families: Record<string, unknown>;
}

export interface AciConfig {
  /** Per-command timeout of the `bash` tool. */
  commandTimeoutMs: number;
  /** Characters of `bash` output shown before the rest is elided. */
  maxObservationChars: number;
  /** The task's base commit; `submit` diffs against it when set. */
  baseCommit?: string;
  /** End observation lines with `\r\n`, as recordings made under a pseudo-terminal show them (SWE-agent 1.x). */
  crlf?: boolean;
  // A family's own settings (SWE-agent's window) are declared in its folder, merged into this interface.
}

export const DEFAULT_ACI_CONFIG: AciConfig = {
  commandTimeoutMs: 30_000,
  maxObservationChars: 100_000,
};

export interface ToolContext {
  readonly sandbox: Sandbox;
  readonly state: AciState;
  readonly config: AciConfig;
  readonly signal?: AbortSignal;
}

/**
 * One agent tool, described once: its name, the group its family ships it in, the text the
 * model reads, the command syntax (`signature`), and a zod schema of its arguments. Command
 * parsing, OpenAI function specs and function-call validation are all derived from this.
 */
export interface ToolDefinition extends ToolSyntax {
  name: string;
  /** The group of tools its family ships it in, as the family names it (SWE-agent's bundles: `windowed`, `edit_anthropic`). */
  bundle: string;
  description: string;
  /**
   * How the tool is typed as a command line. The first line is the command pattern: words are `<arg>`, `"<arg>"`,
   * `[<optional>]`, `[--flag <arg>]` or literal patterns like `<start_line>:<end_line>`. A
   * multi-line signature ends with the terminator line of a block argument (see `block`).
   */
  signature: string;
  parameters: z.ZodObject;
  /** A body on the lines after the command, up to a line holding only `terminator`. */
  block?: { argument: string; terminator: string };
  /** The tool only reads files (a viewer, a search): the repository is as it was before the call (a fork's snapshot needs no tar). */
  readOnly?: true;
  /** The tool asks Pyright's language server (`lspServer.ts`): its container mounts Pyright. */
  usesPyright?: true;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult>;
}

/** Declares a tool whose `run` receives its arguments typed by its schema (validated by the caller). */
export function defineTool<S extends z.ZodObject>(tool: {
  name: string;
  bundle: string;
  description: string;
  signature: string;
  parameters: S;
  block?: { argument: string; terminator: string };
  readOnly?: true;
  usesPyright?: true;
  run(ctx: ToolContext, args: z.infer<S>): Promise<ToolResult>;
}): ToolDefinition {
  return { ...tool, run: (ctx, args) => tool.run(ctx, args as z.infer<S>) };
}
