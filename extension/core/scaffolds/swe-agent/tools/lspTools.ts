import { z } from 'zod';
import {
  displayPath,
  documentSymbols,
  findDefinitions,
  findReferences,
  formatLocations,
  formatOutline,
  formatSymbolHits,
  hoverAt,
  hoverText,
  locateSymbol,
  readLineTexts,
  workspaceSymbols,
  type SourceLocation,
  type TextPosition,
} from '../../../aci/lspNavigation';
import { pyrightFor, type PyrightServer } from '../../../aci/lspServer';
import { pathAsGiven } from '../../../aci/sandboxFiles';
import { lookupFile } from './toolFiles';
import { standardTools } from './standardTools';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { checkedFile } from './windowedTools';

/** The `lsp` bundle: Pyright's go-to-definition, references, hover and symbols as agent tools. */
const LSP_BUNDLE = 'lsp';

/** Result caps, sized so one answer stays a few hundred tokens to a few thousand at most. */
const MAX_DEFINITIONS = 10;
const MAX_REFERENCES = 50;
const MAX_OUTLINE_ENTRIES = 200;
const MAX_WORKSPACE_SYMBOLS = 30;
const MAX_HOVER_CHARS = 2000;

const ok = (observation: string): ToolResult => ({ observation, exitCode: 0 });
const fail = (observation: string): ToolResult => ({ observation, exitCode: 1 });

const symbolAt = z.object({
  path: z.string().describe('the Python file, absolute or relative to the current directory'),
  line: z.number().int().describe('the 1-based line on which the name is written'),
  symbol: z.string().describe('the name as written on that line, e.g. `Journal` or `self.balance`'),
});

function server(ctx: ToolContext): Promise<PyrightServer> {
  return pyrightFor(ctx.sandbox, ctx.signal ? { signal: ctx.signal } : {});
}

/** A Python file's current text, or the error the agent should read. */
async function pythonFile(ctx: ToolContext, given: string): Promise<{ path: string; text: string } | ToolResult> {
  const file = checkedFile(await lookupFile(ctx, given), given);
  if ('observation' in file) return file;
  if (!/\.pyi?$/.test(file.path)) return fail(`Error: ${pathAsGiven(given)} is not a Python file (.py or .pyi).`);
  return file;
}

interface SymbolPosition {
  at: TextPosition;
  where: string;
  name: string;
}

async function positionOf(ctx: ToolContext, args: z.infer<typeof symbolAt>): Promise<SymbolPosition | ToolResult> {
  const file = await pythonFile(ctx, args.path);
  if ('observation' in file) return file;
  const found = locateSymbol(file.text, args.line, args.symbol);
  if ('error' in found) return fail(`Error: ${found.error} (${pathAsGiven(args.path)}).`);
  const name = args.symbol.trim().replace(/\(\)$/, '');
  const where = `${displayPath(file.path, ctx.sandbox.repoPath)}:${found.line + 1}`;
  return { at: { path: file.path, text: file.text, ...found }, where, name };
}

async function locationList(ctx: ToolContext, locations: readonly SourceLocation[], limit: number): Promise<string> {
  const texts = await readLineTexts(ctx.sandbox, locations.slice(0, limit), ctx.signal);
  return formatLocations(locations, texts, ctx.sandbox.repoPath, limit);
}

/** A tool on `<path> <line> <symbol>`: the position is found, then `answer` words the result. */
function symbolTool(name: string, description: string, answer: (ctx: ToolContext, server: PyrightServer, pos: SymbolPosition) => Promise<string>) {
  return defineTool({
    name,
    bundle: LSP_BUNDLE,
    usesPyright: true,
    description,
    signature: `${name} <path> <line> <symbol>`,
    parameters: symbolAt,
    async run(ctx, args) {
      const pos = await positionOf(ctx, args);
      if ('observation' in pos) return pos;
      return ok(await answer(ctx, await server(ctx), pos));
    },
  });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const gotoDefinition = symbolTool(
  'goto_definition',
  'shows where the name written on <line> of <path> is defined, as path:line with the code there',
  async (ctx, pyright, pos) => {
    const found = await findDefinitions(pyright, pos.at, ctx.signal);
    if (found.length === 0) return `No definition found for '${pos.name}' at ${pos.where}.`;
    return `Definition of '${pos.name}' (${pos.where}):\n${await locationList(ctx, found, MAX_DEFINITIONS)}`;
  },
);

const findReferencesTool = symbolTool(
  'find_references',
  'lists every use of the name written on <line> of <path> across the repository, its definition included',
  async (ctx, pyright, pos) => {
    const found = await findReferences(pyright, pos.at, ctx.signal);
    if (found.length === 0) return `No references found for '${pos.name}' at ${pos.where}.`;
    const files = new Set(found.map((loc) => loc.path)).size;
    const header = `${plural(found.length, 'reference')} to '${pos.name}' (${pos.where}) in ${plural(files, 'file')}:`;
    return `${header}\n${await locationList(ctx, found, MAX_REFERENCES)}`;
  },
);

const hover = symbolTool('hover', 'shows the signature, type and docstring of the name written on <line> of <path>', async (ctx, pyright, pos) => {
  const contents = await hoverAt(pyright, pos.at, ctx.signal);
  const text = contents === null ? '' : hoverText(contents);
  if (text === '') return `No type information for '${pos.name}' at ${pos.where}.`;
  const clipped = text.length > MAX_HOVER_CHARS ? `${text.slice(0, MAX_HOVER_CHARS)}\n... (${text.length - MAX_HOVER_CHARS} more characters not shown)` : text;
  return `${pos.where} '${pos.name}':\n${clipped}`;
});

const documentSymbolsTool = defineTool({
  name: 'document_symbols',
  bundle: LSP_BUNDLE,
  usesPyright: true,
  description: 'outlines a Python file: its classes, functions, methods and attributes with their line numbers',
  signature: 'document_symbols <path>',
  parameters: z.object({ path: z.string().describe('the Python file, absolute or relative to the current directory') }),
  async run(ctx, { path }) {
    const file = await pythonFile(ctx, path);
    if ('observation' in file) return file;
    const entries = await documentSymbols(await server(ctx), file, ctx.signal);
    const shown = displayPath(file.path, ctx.sandbox.repoPath);
    if (entries.length === 0) return ok(`No symbols in ${shown}.`);
    return ok(`${shown}: ${entries.length} symbols\n${formatOutline(entries, MAX_OUTLINE_ENTRIES)}`);
  },
});

const workspaceSymbolsTool = defineTool({
  name: 'workspace_symbols',
  bundle: LSP_BUNDLE,
  usesPyright: true,
  description: 'finds classes, functions and variables whose name contains <query> anywhere in the repository',
  signature: 'workspace_symbols <query>',
  parameters: z.object({ query: z.string().describe('a name or part of a name, e.g. `Journal` or `parse_`') }),
  async run(ctx, { query }) {
    const wanted = query.trim();
    if (wanted === '') return fail('Error: <query> must not be empty.');
    const hits = await workspaceSymbols(await server(ctx), wanted, ctx.signal);
    if (hits.length === 0) return ok(`No symbol matching '${wanted}' in the workspace.`);
    const header = `${plural(hits.length, 'symbol')} matching '${wanted}':`;
    return ok(`${header}\n${formatSymbolHits(hits, ctx.sandbox.repoPath, MAX_WORKSPACE_SYMBOLS)}`);
  },
});

const lspTools = [gotoDefinition, findReferencesTool, hover, documentSymbolsTool, workspaceSymbolsTool];

standardTools.register(...lspTools);
