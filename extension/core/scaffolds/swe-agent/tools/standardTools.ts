import { bashTools } from './bashTool';
import type { ParseResult } from '../../../parsing/commandSyntax';
import { lintedEditTools } from './lintedEditTool';
import { searchTools } from './searchTools';
import { strReplaceEditorTools } from './strReplaceEditor';
import { reviewedSubmitTools, submitTools } from './submitTools';
import type { OpenAiToolSpec, ToolSet } from '../../../aci/toolRegistry';
import { ToolRegistry } from './sweAgentToolSet';
import { windowedReplaceTools, windowedRewriteTools } from './windowedReplaceTools';
import { windowedTools } from './windowedTools';

/**
 * The registry of every SWE-agent tool bundle the workbench ships. Another family (e.g. the Pyright
 * navigation tools) adds itself from its own module with `standardTools.register(...)`, after
 * which its bundle can be selected like SWE-agent's.
 */
export const standardTools = new ToolRegistry().register(
  ...bashTools,
  ...windowedTools,
  ...searchTools,
  ...lintedEditTools,
  ...windowedReplaceTools,
  ...windowedRewriteTools,
  ...strReplaceEditorTools,
  ...submitTools,
  ...reviewedSubmitTools,
);

/** SWE-agent 1.x's default for thought-action agents plus its default editor. */
export const DEFAULT_BUNDLES: readonly string[] = ['windowed', 'windowed_edit_linting', 'search', 'edit_anthropic', 'submit'];

export function toolSetFor(bundles: readonly string[] = DEFAULT_BUNDLES): ToolSet {
  return standardTools.toolSet(bundles);
}
