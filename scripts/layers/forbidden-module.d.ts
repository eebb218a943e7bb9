// What a forbidden module ('vscode' in the core, the CLI and the webviews) resolves to in their
// tsconfig: a module that exports nothing, so any use of it fails to compile. ESLint names the
// import itself (eslint.config.mjs).
export {};
