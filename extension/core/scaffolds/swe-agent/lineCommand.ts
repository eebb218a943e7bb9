import { toolSetFor } from './tools/standardTools';
import type { ToolSet } from '../../aci/toolRegistry';
import { splitShellWords } from '../../parsing/shellWords';
import type { ParsedAction } from '../../trajectory/actionText';

/** Tool sets by bundle list: a run's trajectories share a few lists, and each unhosted bundle costs a thrown error. */
const toolSets = new Map<string, ToolSet>();

function toolSetOf(bundles: readonly string[] | undefined): ToolSet {
  const key = bundles === undefined ? '' : JSON.stringify(bundles);
  let tools = toolSets.get(key);
  if (!tools) toolSets.set(key, (tools = hostedToolSet(bundles)));
  return tools;
}

/** The registry's tools for a recording's bundles, leaving out bundles the registry does not host. */
function hostedToolSet(bundles: readonly string[] | undefined): ToolSet {
  if (!bundles) return toolSetFor();
  const hosted = bundles.filter((b) => {
    try {
      toolSetFor([b]);
      return true;
    } catch {
      return false;
    }
  });
  return toolSetFor(hosted.length > 0 ? hosted : undefined);
}

/**
 * Reads SWE-agent plain command lines (`open "x.py" 120`, `edit 5:7` ... `end_of_edit`) with the
 * signatures of the ACI tools the recording used. A line the tools reject keeps its shell words
 * (`argv`) and says why, so the step stays readable.
 */
export function lineCommandParser(bundles?: readonly string[]): (raw: string) => ParsedAction {
  let tools: ToolSet | undefined;
  return (raw) => {
    tools ??= toolSetOf(bundles);
    const parsed = tools.parseCommand(raw);
    if (!('error' in parsed)) return { action: { raw, tool: parsed.tool, args: parsed.args } };
    const split = splitShellWords(raw.split('\n', 1)[0] ?? '');
    const argv = 'error' in split ? [raw.trim()] : split.words;
    return { action: { raw, tool: argv[0] ?? null, args: { argv } }, formatError: parsed.error };
  };
}
