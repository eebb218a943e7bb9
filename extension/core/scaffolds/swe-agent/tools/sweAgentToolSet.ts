import type { AciConfig, AciState, ToolDefinition, ToolResult } from '../../../aci/toolDefinition';
import { ToolSet } from '../../../aci/toolRegistry';
import { BUNDLE_ALIASES, STATE_ONLY_BUNDLES, bundleName } from './bundles';
import { sweAgentDialect } from './sweAgentVersion';
import { sweAgentState } from './toolState';

/**
 * Every SWE-agent tool the workbench can host, by bundle (the `lsp` bundle among them). Each
 * bundle registers from its own module (`registry.register(...myTools)`); a tool set picks the
 * bundles a recording used.
 */
export class ToolRegistry {
  private readonly tools: ToolDefinition[] = [];

  register(...tools: ToolDefinition[]): this {
    for (const tool of tools) {
      if (this.tools.some((t) => t.name === tool.name && t.bundle === tool.bundle)) {
        throw new Error(`tool '${tool.name}' of bundle '${tool.bundle}' is already registered`);
      }
      this.tools.push(tool);
    }
    return this;
  }

  bundles(): string[] {
    return [...new Set(this.tools.map((t) => t.bundle))];
  }

  /**
   * The tools of the given bundles, later bundles winning on a shared name (as in SWE-agent,
   * where `windowed_edit_replace`'s `edit` replaces the linting one). `bash` is always present.
   */
  toolSet(bundles: readonly string[]): ToolSet {
    const names = bundles.flatMap((b) => BUNDLE_ALIASES[bundleName(b)] ?? [bundleName(b)]);
    const known = new Set(this.bundles());
    const unknown = names.filter((b) => !known.has(b) && !STATE_ONLY_BUNDLES.has(b));
    if (unknown.length > 0) {
      throw new Error(`unknown tool bundle(s): ${unknown.join(', ')} (known: ${[...known, ...Object.keys(BUNDLE_ALIASES)].sort().join(', ')})`);
    }
    const selected = new Map<string, ToolDefinition>();
    for (const bundle of ['bash', ...names]) {
      for (const tool of this.tools.filter((t) => t.bundle === bundle)) selected.set(tool.name, tool);
    }
    return new SweAgentToolSet(names, selected);
  }
}

/** SWE-agent's tools, presented as its runtime hands their output to the model. */
export class SweAgentToolSet extends ToolSet {
  /**
   * SWE-agent 1.x's runtime hands observations over without trailing whitespace (every recorded
   * step shows it), with a pty's line ends when asked. 0.7 kept the output as printed: its
   * commands end with a newline, a shell command's output is untouched. Submissions are left to
   * their tool. A pty turns every `\n` into `\r\n`, one the file's own `\r\n` included (a
   * `grep` of a CRLF file shows `\r\r\n`), so the tools' text, which has the pty's line ends
   * taken out, gets it back the same way.
   */
  override present(result: ToolResult, tool: string, config: AciConfig): string {
    if (result.submission !== undefined) return result.observation;
    const observation = result.observation;
    const text = sweAgentDialect(config.sweAgentVersion).trimsObservations
      ? observation.trimEnd()
      : tool === 'bash' || observation === ''
        ? observation
        : `${observation}\n`;
    return config.crlf ? text.replace(/\n/g, '\r\n') : text;
  }

  override openFile(state: AciState): string | null {
    return sweAgentState(state).openFile;
  }

  override get recordsDiff(): boolean {
    return this.bundles.includes('diff_state');
  }
}
