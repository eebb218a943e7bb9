// The layers of ARCHITECTURE.md, held by ESLint: each folder's `no-restricted-imports` lists what it
// must not import. `npm run lint` runs it; `test/unit/layers/layerRules.test.ts` proves a forbidden
// import fails. tsconfig.core.json, tsconfig.webview.json and tsconfig.vscode.json hold the same
// layers for globals (DOM, Node) and types.
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_')).flatMap((m) => [m, `node:${m}`]);

/** Core folders, lowest first: each may import the root files (errors, defined) and the folders listed. */
const CORE = {
  parsing: [],
  diff: [],
  input: [],
  output: [],
  runtime: [],
  aci: ['parsing', 'runtime'],
  trajectory: ['input', 'parsing'],
  policy: ['parsing', 'aci', 'trajectory'],
  scaffolds: ['diff', 'input', 'parsing', 'runtime', 'aci', 'trajectory', 'policy'],
  reward: ['diff', 'input', 'trajectory'],
  bugs: ['diff', 'input', 'reward', 'runtime'],
  rollouts: ['diff', 'input', 'reward', 'runtime', 'trajectory'],
  session: ['parsing', 'aci', 'runtime', 'trajectory', 'policy', 'scaffolds'],
  doctor: ['runtime', 'aci', 'policy'],
  tokens: ['trajectory', 'policy'],
  branch: ['diff', 'input', 'parsing', 'runtime', 'aci', 'trajectory', 'policy', 'scaffolds', 'reward', 'rollouts', 'session'],
};

const vscodeApi = { name: 'vscode', message: 'only extension/vscode talks to the VS Code API' };
const upward = (what, why) => ({ group: what, message: why });

/**
 * The scaffold families, one folder each under core/scaffolds (read from the tree, so a new family
 * is held at once). Outside its folder a family is reached through core/scaffolds/registry and
 * core/scaffolds/scaffold alone; extension/families.ts, the composition root, is the one file that names them.
 */
const FAMILIES = readdirSync(new URL('./extension/core/scaffolds/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const FAMILY_RULE = 'a family is reached through core/scaffolds/registry and core/scaffolds/scaffold; only extension/families.ts names one (ARCHITECTURE.md)';
/** Imports of the families' folders from outside core/scaffolds. */
const familyFolders = upward(
  FAMILIES.flatMap((f) => [`**/scaffolds/${f}`, `**/scaffolds/${f}/**`]),
  FAMILY_RULE,
);
/** Imports of the other families' folders from inside `family`'s (any depth) or from core/scaffolds' own files (`family` undefined). */
const otherFamilies = (family) =>
  upward(
    FAMILIES.filter((f) => f !== family).flatMap((f) =>
      family === undefined ? [`./${f}`, `./${f}/**`] : [1, 2, 3, 4].flatMap((up) => [`${'../'.repeat(up)}${f}`, `${'../'.repeat(up)}${f}/**`]),
    ),
    FAMILY_RULE,
  );

function restrict(files, { paths = [], patterns = [] }) {
  return { files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } };
}

const webviewImports = {
  paths: [
    { name: 'vscode', message: 'webviews talk to the host through webview/host.ts and the protocol' },
    ...nodeBuiltins.map((name) => ({ name, message: 'webviews run in a browser: no Node built-ins' })),
  ],
  patterns: [
    upward(
      ['**/extension/core/**', '**/extension/vscode/**', '**/extension/cli/**', '**/extension/views/**'],
      'webviews import only extension/protocol from the extension',
    ),
  ],
};

/** The patterns of core/`folder`'s layer. */
const corePatterns = (folder, allowed) => [
  upward(
    ['**/vscode/**', '**/cli/**', '**/views/**', '**/webview/**', '**/protocol/**'],
    'the core is imported by the CLI, the presenters and the VS Code glue, never the other way',
  ),
  ...Object.keys(CORE)
    .filter((other) => other !== folder && !allowed.includes(other))
    .map((other) =>
      upward(
        [`../${other}`, `../${other}/*`, `../../${other}`, `../../${other}/*`],
        `core/${folder} may import only ${allowed.length ? allowed.map((a) => `core/${a}`).join(', ') : 'the root files of core'} (see ARCHITECTURE.md)`,
      ),
    ),
];

// A later block's options replace an earlier one's: core/scaffolds' files and each family's repeat the layer's patterns.
const coreRules = Object.entries(CORE).flatMap(([folder, allowed]) => [
  restrict([`extension/core/${folder}/**/*.ts`], {
    paths: [vscodeApi],
    patterns: [...corePatterns(folder, allowed), ...(folder === 'session' || folder === 'branch' ? [familyFolders] : [])],
  }),
  ...(folder === 'scaffolds'
    ? [
        restrict(['extension/core/scaffolds/*.ts'], { paths: [vscodeApi], patterns: [...corePatterns(folder, allowed), otherFamilies(undefined)] }),
        ...FAMILIES.map((family) =>
          restrict([`extension/core/scaffolds/${family}/**/*.ts`], { paths: [vscodeApi], patterns: [...corePatterns(folder, allowed), otherFamilies(family)] }),
        ),
      ]
    : []),
]);

/** Issue 27's rule of the glue: a feature's `activate*` and a CLI command's `run` are short lists of calls (the work lives in named helpers). */
const MAX_ENTRY_LINES = 60;
const entryLength = {
  meta: {
    type: 'suggestion',
    schema: [{ type: 'object', properties: { activate: { type: 'boolean' }, run: { type: 'boolean' } }, additionalProperties: false }],
    messages: { long: '{{name}} is {{lines}} lines, over {{max}}: keep it a short list of calls and move the work into named helpers' },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const check = (node, name) => {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      if (lines > MAX_ENTRY_LINES) context.report({ node, messageId: 'long', data: { name, lines, max: MAX_ENTRY_LINES } });
    };
    return {
      ...(options.activate ? { 'FunctionDeclaration[id.name=/^activate/]': (node) => check(node, node.id.name) } : {}),
      // The `run` of `export const command: Command = { run(argv, ctx) { ... } }`.
      ...(options.run
        ? { 'VariableDeclarator[id.name="command"] > ObjectExpression > Property[key.name="run"] > FunctionExpression': (node) => check(node, 'run') }
        : {}),
    };
  },
};
const entries = { rules: { 'entry-length': entryLength } };

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'media/dist/**', 'test/e2e/out/**', '.vscode-test/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  restrict(['extension/core/*.ts'], {
    paths: [vscodeApi],
    patterns: [
      upward(['./*/**', '**/vscode/**', '**/cli/**', '**/views/**', '**/protocol/**'], 'the root files of core (errors, defined) sit below every core folder'),
    ],
  }),
  ...coreRules,
  restrict(['extension/protocol/**/*.ts'], {
    paths: [vscodeApi, ...nodeBuiltins.map((name) => ({ name, message: 'the protocol is shared with the webviews: no Node' }))],
    patterns: [
      upward(['../*', '!../core', '../core/*', '!../core/errors'], "extension/protocol depends on nothing but zod and the core's dependency-free errors.ts"),
    ],
  }),
  restrict(['extension/views/**/*.ts'], {
    paths: [vscodeApi, ...nodeBuiltins.map((name) => ({ name, message: 'presenters are pure: no Node, so they run anywhere' }))],
    patterns: [
      upward(['**/vscode/**', '**/cli/**', '../../webview/**'], 'presenters turn core results into view data; the glue imports them, not the other way'),
      familyFolders,
    ],
  }),
  restrict(['extension/families.ts', 'extension/rolloutIndexWorker.ts'], {
    paths: [vscodeApi],
    patterns: [
      upward(
        ['**/vscode/**', '**/cli/**', '**/views/**', '**/protocol/**', '**/webview/**'],
        "the composition roots (the families, the rollout index's worker) import the core and nothing else",
      ),
    ],
  }),
  restrict(['extension/cli/**/*.ts'], {
    paths: [vscodeApi],
    patterns: [upward(['**/vscode/**', '../../webview/**'], 'the CLI is the headless twin: core and presenters only'), familyFolders],
  }),
  restrict(['extension/vscode/**/*.ts'], {
    patterns: [
      upward(['**/cli/**', '../../../webview/**', '../../../../webview/**'], 'the VS Code glue uses the core, not the CLI or the webview bundles'),
      familyFolders,
    ],
  }),
  {
    files: ['extension/vscode/**/*.ts'],
    plugins: { entries },
    rules: { 'entries/entry-length': ['error', { activate: true }] },
  },
  { files: ['extension/cli/**/*.ts'], plugins: { entries }, rules: { 'entries/entry-length': ['error', { run: true }] } },
  restrict(['webview/**/*.ts'], webviewImports),
  // A later block's options replace an earlier one's, so a view's entry repeats the webview rules.
  restrict(['webview/*/main.ts'], {
    ...webviewImports,
    paths: [
      ...webviewImports.paths,
      {
        name: '../host',
        importNames: ['connectToVsCode'],
        message: 'a view starts through ../startView, which shows what failed instead of a blank panel',
      },
    ],
  }),
);
