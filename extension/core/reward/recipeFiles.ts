/**
 * Recipe files (JSON or YAML) read through the input layer, and the catalogue a view offers. Kept
 * apart from recipes.ts, which is pure, so the presenters can use recipes without Node.
 */
import { extname } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { InputError } from '../errors';
import { readInputText, type ReadOptions } from '../input/readInput';
import { BUILT_IN_INPUT, BUILT_IN_RECIPES, RECIPE_NAMES, RecipeSchema, builtInRecipe, type Recipe } from './recipes';
import { parseJsonText, parseWithSchema } from './schemaInput';

/**
 * One recipe, a list, or `{ recipes: [...] }`; a recipe may `extends` a built-in one and change
 * only what it names (its name, version and source stay its own to give).
 */
function parseRecipes(value: unknown, file: string | undefined): Recipe[] {
  const list: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null && 'recipes' in value && Array.isArray((value as { recipes: unknown }).recipes)
      ? (value as { recipes: unknown[] }).recipes
      : [value];
  const prefix = Array.isArray(value) ? [] : list[0] === value ? [] : ['recipes'];
  if (list.length === 0) throw new InputError(file, '$', 'no recipe in the file');
  return list.map((item, i) => {
    const at = Array.isArray(value) || prefix.length > 0 ? [...prefix, i] : [];
    let raw = item;
    if (typeof item === 'object' && item !== null && 'extends' in item) {
      const { extends: base, ...own } = item as { extends: unknown };
      const parent = typeof base === 'string' ? BUILT_IN_INPUT.find((r) => r.name === base) : undefined;
      if (!parent)
        throw new InputError(
          file,
          `$${at.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}.extends`,
          `extends names a built-in recipe: one of ${RECIPE_NAMES.join(', ')}`,
        );
      raw = { ...parent, ...own };
    }
    return parseWithSchema(RecipeSchema, raw, file, at);
  });
}

/** A recipe file (JSON or YAML) read through the input layer: size limit, pipe timeout, located errors. */
async function readRecipeFile(file: string, options: ReadOptions = {}): Promise<Recipe[]> {
  const { text } = await readInputText(file, options);
  if (text.trim() === '') throw new InputError(file, undefined, text === '' ? 'empty file' : 'empty file: only whitespace');
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') {
    try {
      return parseRecipes(parseYaml(text), file);
    } catch (err) {
      if (err instanceof YAMLParseError) {
        const at = err.linePos?.[0];
        throw new InputError(
          file,
          at ? `line ${at.line}, column ${at.col}` : undefined,
          `not valid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
        );
      }
      throw err;
    }
  }
  return parseRecipes(parseJsonText(text, file), file);
}

/**
 * A built-in recipe by name, or a recipe file (JSON or YAML); `FILE#NAME` picks one of several.
 * An unknown name says which names exist.
 */
export async function resolveRecipe(spec: string, options: ReadOptions = {}): Promise<Recipe> {
  const builtIn = builtInRecipe(spec);
  if (builtIn) return builtIn;
  const [file, name] = spec.includes('#') ? [spec.slice(0, spec.lastIndexOf('#')), spec.slice(spec.lastIndexOf('#') + 1)] : [spec, undefined];
  if (!/\.(json|ya?ml)$/i.test(file))
    throw new InputError(undefined, 'recipe', `unknown recipe '${spec}': one of ${RECIPE_NAMES.join(', ')}, or a .json / .yaml recipe file`);
  const recipes = await readRecipeFile(file, options);
  if (name !== undefined) {
    const found = recipes.find((r) => r.name === name);
    if (!found) throw new InputError(file, undefined, `no recipe named '${name}'; the file holds ${recipes.map((r) => r.name).join(', ')}`);
    return found;
  }
  if (recipes.length > 1)
    throw new InputError(file, undefined, `holds ${recipes.length} recipes (${recipes.map((r) => r.name).join(', ')}): pick one with ${file}#NAME`);
  return recipes[0]!;
}

/**
 * The recipes a view offers: the built-in ones, then the user's file's. A file that cannot be
 * read, or that reuses a built-in name, leaves the built-in ones and says why.
 */
export async function loadRecipeCatalog(file: string | undefined): Promise<{ recipes: Recipe[]; problem: string | null }> {
  if (!file) return { recipes: [...BUILT_IN_RECIPES], problem: null };
  try {
    const own = await readRecipeFile(file);
    const clash = own.find((r) => builtInRecipe(r.name));
    if (clash)
      return {
        recipes: [...BUILT_IN_RECIPES],
        problem: `${file}: recipe '${clash.name}' has the name of a built-in recipe; give it another name (extends: ${clash.name} keeps its rules)`,
      };
    return { recipes: [...BUILT_IN_RECIPES, ...own], problem: null };
  } catch (err) {
    if (err instanceof InputError) return { recipes: [...BUILT_IN_RECIPES], problem: err.message };
    throw err;
  }
}
