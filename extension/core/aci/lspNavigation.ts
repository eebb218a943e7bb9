import { z } from 'zod';
import type { Sandbox } from '../runtime/sandbox';
import { fileUri, uriPath, type PyrightServer } from './lspServer';
import { shellQuote } from '../parsing/shellWords';

/**
 * Code navigation over Pyright, in the terms an agent uses: a file, a 1-based line and a name
 * on that line (agents rarely know columns), and answers as short `path:line` lists.
 */

/** A place in a file; `line` and `character` are 0-based as in LSP (UTF-16 columns). */
export interface SourceLocation {
  path: string;
  line: number;
  character: number;
}

/** A file's current text and a position in it. */
export interface TextPosition extends SourceLocation {
  text: string;
}

export interface OutlineEntry {
  name: string;
  kind: string;
  /** 0-based. */
  line: number;
  depth: number;
  detail?: string;
}

export interface SymbolHit {
  name: string;
  kind: string;
  container?: string;
  location: SourceLocation;
}

const position = z.object({ line: z.number().int().min(0), character: z.number().int().min(0) });
const range = z.object({ start: position, end: position });
const location = z.object({ uri: z.string(), range }).transform((l): SourceLocation => ({ path: uriPath(l.uri), ...l.range.start }));
const locationLink = z
  .object({ targetUri: z.string(), targetSelectionRange: range })
  .transform((l): SourceLocation => ({ path: uriPath(l.targetUri), ...l.targetSelectionRange.start }));
const markedString = z.union([z.string(), z.object({ language: z.string(), value: z.string() })]);
const hoverContents = z.union([markedString, z.object({ kind: z.string(), value: z.string() }), z.array(markedString)]);

interface DocumentSymbol {
  name: string;
  kind: number;
  detail?: string | undefined;
  selectionRange: z.infer<typeof range>;
  children?: DocumentSymbol[] | undefined;
}
const documentSymbol: z.ZodType<DocumentSymbol> = z.lazy(() =>
  z
    .object({ name: z.string(), kind: z.number().int(), detail: z.string().optional(), selectionRange: range, children: z.array(documentSymbol).optional() })
    .loose(),
);
const symbolInformation = z
  .object({
    name: z.string(),
    kind: z.number().int(),
    containerName: z.string().optional(),
    location: z.object({ uri: z.string(), range: range.optional() }).loose(),
  })
  .loose();

const definitionReply = z.union([z.null(), location, z.array(z.union([location, locationLink]))]);
const referencesReply = z.union([z.null(), z.array(location)]);
const hoverReply = z.union([z.null(), z.object({ contents: hoverContents }).loose()]);
const documentSymbolReply = z.union([z.null(), z.array(documentSymbol)]);
const workspaceSymbolReply = z.union([z.null(), z.array(symbolInformation)]);

const SYMBOL_KINDS = [
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enum member',
  'struct',
  'event',
  'operator',
  'type parameter',
];

function kindName(kind: number): string {
  return SYMBOL_KINDS[kind - 1] ?? 'symbol';
}

function textDocumentPosition(at: SourceLocation): Record<string, unknown> {
  return { textDocument: { uri: fileUri(at.path) }, position: { line: at.line, character: at.character } };
}

export async function findDefinitions(server: PyrightServer, at: TextPosition, signal?: AbortSignal): Promise<SourceLocation[]> {
  await server.syncDocument(at.path, at.text, signal);
  const reply = await server.request('textDocument/definition', textDocumentPosition(at), definitionReply, signal);
  if (reply === null) return [];
  return Array.isArray(reply) ? reply : [reply];
}

/** Every use of the symbol at `at`, its declaration included, in file then line order. */
export async function findReferences(server: PyrightServer, at: TextPosition, signal?: AbortSignal): Promise<SourceLocation[]> {
  await server.syncDocument(at.path, at.text, signal);
  await server.workspaceReady(signal);
  const params = { ...textDocumentPosition(at), context: { includeDeclaration: true } };
  const reply = await server.request('textDocument/references', params, referencesReply, signal);
  return (reply ?? []).sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.character - b.character);
}

/** What Pyright's hover says of the name at `at` (signature, type, docstring, as markdown), or null when it says nothing. */
export async function hoverAt(server: PyrightServer, at: TextPosition, signal?: AbortSignal): Promise<HoverContents | null> {
  await server.syncDocument(at.path, at.text, signal);
  const reply = await server.request('textDocument/hover', textDocumentPosition(at), hoverReply, signal);
  return reply === null ? null : reply.contents;
}

type HoverContents = z.infer<typeof hoverContents>;

/** A hover as plain text: code fences, separators and `&nbsp;` gone; empty when it holds no text. */
export function hoverText(contents: HoverContents): string {
  const parts = Array.isArray(contents) ? contents : [contents];
  return parts
    .map((part) => (typeof part === 'string' ? part : part.value))
    .join('\n\n')
    .replace(/^```\w*\n?|^```$/gm, '')
    .replace(/^---$/gm, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Classes, functions, methods and module or class attributes; locals inside functions are left out. */
export async function documentSymbols(server: PyrightServer, file: { path: string; text: string }, signal?: AbortSignal): Promise<OutlineEntry[]> {
  await server.syncDocument(file.path, file.text, signal);
  const reply = await server.request('textDocument/documentSymbol', { textDocument: { uri: fileUri(file.path) } }, documentSymbolReply, signal);
  return flattenOutline(reply ?? [], 0);
}

const CALLABLE_KINDS = new Set([6, 9, 12]);

function flattenOutline(symbols: readonly DocumentSymbol[], depth: number): OutlineEntry[] {
  const sorted = [...symbols].sort((a, b) => a.selectionRange.start.line - b.selectionRange.start.line);
  return sorted.flatMap((symbol) => {
    const entry: OutlineEntry = { name: symbol.name, kind: kindName(symbol.kind), line: symbol.selectionRange.start.line, depth };
    if (symbol.detail) entry.detail = symbol.detail;
    const children = CALLABLE_KINDS.has(symbol.kind) ? [] : flattenOutline(symbol.children ?? [], depth + 1);
    return [entry, ...children];
  });
}

/** Definitions an agent is usually after come before variables and parameters of the same name. */
const DECLARATION_KINDS = ['class', 'function', 'method', 'constructor', 'property', 'constant'];

/** Symbols of the workspace whose names match `query`: exact names first, then classes and functions. */
export async function workspaceSymbols(server: PyrightServer, query: string, signal?: AbortSignal): Promise<SymbolHit[]> {
  await server.notifyChangedFiles(signal);
  await server.workspaceReady(signal);
  const reply = await server.request('workspace/symbol', { query }, workspaceSymbolReply, signal);
  const rank = (name: string) =>
    name === query ? 0 : name.toLowerCase() === query.toLowerCase() ? 1 : name.toLowerCase().includes(query.toLowerCase()) ? 2 : 3;
  const kindRank = (kind: string) => {
    const i = DECLARATION_KINDS.indexOf(kind);
    return i < 0 ? DECLARATION_KINDS.length : i;
  };
  return (reply ?? [])
    .map((s) => {
      const start = s.location.range?.start ?? { line: 0, character: 0 };
      const hit: SymbolHit = {
        name: s.name,
        kind: kindName(s.kind),
        location: { path: uriPath(s.location.uri), line: start.line, character: start.character },
      };
      if (s.containerName) hit.container = s.containerName;
      return hit;
    })
    .sort(
      (a, b) =>
        rank(a.name) - rank(b.name) ||
        kindRank(a.kind) - kindRank(b.kind) ||
        a.location.path.localeCompare(b.location.path) ||
        a.location.line - b.location.line,
    );
}

const IDENTIFIER_CHAR = '[A-Za-z0-9_]';

/** How far from the given line a name is still looked for: agents often miss by a line or two. */
const NEARBY_LINES = 3;

/**
 * The 0-based position of `symbol` written on 1-based `line` of `text`, or on a nearby line. A
 * dotted name (`Money.allocate`) points at its last part.
 */
export function locateSymbol(text: string, line: number, symbol: string): { line: number; character: number } | { error: string } {
  const name = symbol.trim().replace(/\(\)$/, '');
  const lines = text.split('\n');
  if (!Number.isInteger(line) || line < 1 || line > lines.length) {
    return { error: `line ${line} is outside the file, which has ${lines.length} lines` };
  }
  if (!/^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$/u.test(name)) {
    return { error: `'${symbol}' is not a Python name` };
  }
  const pattern = new RegExp(`(?<!${IDENTIFIER_CHAR})${name.replace(/\./g, '\\.')}(?!${IDENTIFIER_CHAR})`, 'u');
  const tried = [0, ...Array.from({ length: NEARBY_LINES }, (_, i) => [-(i + 1), i + 1]).flat()];
  for (const offset of tried) {
    const index = line - 1 + offset;
    const match = pattern.exec(lines[index] ?? '');
    if (match === null) continue;
    const lastPart = match[0].lastIndexOf('.') + 1;
    return { line: index, character: match.index + lastPart };
  }
  return { error: `'${name}' does not appear on line ${line}: ${JSON.stringify((lines[line - 1] ?? '').trim())}` };
}

/** A path as the agent should read it: relative to the repository when inside it. */
export function displayPath(file: string, repoPath: string): string {
  const root = repoPath.replace(/\/+$/, '');
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

/** Source lines by absolute path and 0-based line number. */
export type LineTexts = Map<string, Map<number, string>>;

/** Reads the given lines of each file in one shell round trip (a subshell: the agent's cwd is untouched). */
export async function readLineTexts(sandbox: Sandbox, locations: readonly SourceLocation[], signal?: AbortSignal): Promise<LineTexts> {
  const wanted = new Map<string, Set<number>>();
  for (const loc of locations) wanted.set(loc.path, (wanted.get(loc.path) ?? new Set()).add(loc.line + 1));
  const texts: LineTexts = new Map();
  if (wanted.size === 0) return texts;
  const script = [...wanted]
    .map(
      ([file, lines]) =>
        `printf '@@%s\\n' ${shellQuote(file)}; awk -v want=${[...lines].join(',')} 'BEGIN{n=split(want,a,",");for(i=1;i<=n;i++)w[a[i]]=1} (FNR in w){print FNR "\\t" $0}' < ${shellQuote(file)} 2>/dev/null`,
    )
    .join('\n');
  const result = await sandbox.exec(`(\n${script}\n)`, { maxOutputBytes: 16 * 1024 * 1024, ...(signal ? { signal } : {}) });
  let current: Map<number, string> | undefined;
  for (const raw of result.output.replace(/\r\n/g, '\n').split('\n')) {
    if (raw.startsWith('@@')) {
      current = new Map();
      texts.set(raw.slice(2), current);
      continue;
    }
    const tab = raw.indexOf('\t');
    if (current && tab > 0) current.set(Number(raw.slice(0, tab)) - 1, raw.slice(tab + 1));
  }
  return texts;
}

const MAX_LINE_CHARS = 160;

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_LINE_CHARS ? `${trimmed.slice(0, MAX_LINE_CHARS - 3)}...` : trimmed;
}

/** `path:line: code` per location, at most `limit`, then how many were left out. */
export function formatLocations(locations: readonly SourceLocation[], texts: LineTexts, repoPath: string, limit: number): string {
  const shown = locations.slice(0, limit).map((loc) => {
    const code = texts.get(loc.path)?.get(loc.line);
    const where = `${displayPath(loc.path, repoPath)}:${loc.line + 1}`;
    return code === undefined ? where : `${where}: ${clip(code)}`;
  });
  return [...shown, ...leftOut(locations.length - shown.length)].join('\n');
}

export function formatOutline(entries: readonly OutlineEntry[], limit: number): string {
  const shown = entries.slice(0, limit).map((e) => `${'  '.repeat(e.depth)}${e.line + 1}: ${e.kind} ${e.name}`);
  return [...shown, ...leftOut(entries.length - shown.length)].join('\n');
}

export function formatSymbolHits(hits: readonly SymbolHit[], repoPath: string, limit: number): string {
  const shown = hits.slice(0, limit).map((h) => {
    const name = h.container ? `${h.container}.${h.name}` : h.name;
    return `${displayPath(h.location.path, repoPath)}:${h.location.line + 1}: ${h.kind} ${name}`;
  });
  return [...shown, ...leftOut(hits.length - shown.length)].join('\n');
}

function leftOut(count: number): string[] {
  return count > 0 ? [`... and ${count} more not shown`] : [];
}
