/**
 * Function calls written as text in the XML form of SWE-agent's `xml_function_calling` parser
 * and OpenHands' non-native tool calling:
 *   <function=NAME>
 *   <parameter=KEY>VALUE</parameter>
 *   </function>
 */

export interface XmlFunctionCall {
  name: string;
  parameters: Record<string, string>;
  /** Offsets of the call in the text, so the thought before it can be kept. */
  start: number;
  end: number;
}

const FUNCTION_RE = /<function=([^>\s]+)>([\s\S]*?)<\/function>/g;
const PARAMETER_RE = /<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/g;

export function extractXmlFunctionCalls(text: string): XmlFunctionCall[] {
  const calls: XmlFunctionCall[] = [];
  for (const fn of text.matchAll(FUNCTION_RE)) {
    const parameters: Record<string, string> = {};
    for (const p of (fn[2] ?? '').matchAll(PARAMETER_RE)) {
      // One newline on each side is layout; indentation inside is content (a new_str's spaces).
      parameters[p[1] as string] = (p[2] ?? '').replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    }
    calls.push({ name: fn[1] as string, parameters, start: fn.index, end: fn.index + fn[0].length });
  }
  return calls;
}
