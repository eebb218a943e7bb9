import diff2htmlCss from 'diff2html/bundles/css/diff2html.min.css';

/** diff2html's own colours replaced by the theme's diff colours, so dark and high-contrast read as VS Code's diff editor. */
const THEME = `
.d2h-wrapper {
  --d2h-bg-color: var(--vscode-editor-background);
  --d2h-border-color: var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  --d2h-dim-color: var(--vscode-descriptionForeground);
  --d2h-line-border-color: var(--vscode-panel-border, transparent);
  --d2h-file-header-bg-color: var(--vscode-sideBar-background, var(--vscode-editor-background));
  --d2h-file-header-border-color: var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  --d2h-empty-placeholder-bg-color: var(--vscode-editorGutter-background, var(--vscode-editor-background));
  --d2h-empty-placeholder-border-color: var(--vscode-panel-border, transparent);
  --d2h-selected-color: var(--vscode-editor-selectionBackground);
  --d2h-ins-bg-color: var(--vscode-diffEditor-insertedLineBackground, var(--vscode-diffEditor-insertedTextBackground));
  --d2h-ins-border-color: var(--vscode-diffEditor-insertedTextBorder, transparent);
  --d2h-ins-highlight-bg-color: var(--vscode-diffEditor-insertedTextBackground);
  --d2h-ins-label-color: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-foreground));
  --d2h-del-bg-color: var(--vscode-diffEditor-removedLineBackground, var(--vscode-diffEditor-removedTextBackground));
  --d2h-del-border-color: var(--vscode-diffEditor-removedTextBorder, transparent);
  --d2h-del-highlight-bg-color: var(--vscode-diffEditor-removedTextBackground);
  --d2h-del-label-color: var(--vscode-gitDecoration-deletedResourceForeground, var(--vscode-foreground));
  --d2h-info-bg-color: var(--vscode-textBlockQuote-background, var(--vscode-editor-background));
  --d2h-info-border-color: var(--vscode-panel-border, transparent);
  --d2h-change-label-color: var(--vscode-gitDecoration-modifiedResourceForeground, var(--vscode-foreground));
  --d2h-moved-label-color: var(--vscode-gitDecoration-renamedResourceForeground, var(--vscode-foreground));
  --d2h-change-del-color: var(--vscode-diffEditor-removedTextBackground);
  --d2h-change-ins-color: var(--vscode-diffEditor-insertedTextBackground);
  color: var(--vscode-editor-foreground);
}
.d2h-wrapper, .d2h-code-line, .d2h-code-side-line, .d2h-code-linenumber, .d2h-code-side-linenumber {
  font-family: var(--vscode-editor-font-family);
  font-size: var(--vscode-editor-font-size);
}
.d2h-code-linenumber, .d2h-code-side-linenumber { color: var(--vscode-editorLineNumber-foreground); background: var(--vscode-editor-background); }
.d2h-file-collapse { display: none; }
.patch-body { overflow: auto; padding: 8px 10px; flex: 1; }
.patch-section + .patch-section { margin-top: 16px; }
.patch-section > h2 { margin: 8px 0; }
.patch-files { list-style: none; margin: 0 0 8px; padding: 0; }
.patch-files li { display: flex; gap: 10px; align-items: center; padding: 2px 0; }
.patch-files .added { color: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-foreground)); }
.patch-files .deleted { color: var(--vscode-gitDecoration-deletedResourceForeground, var(--vscode-foreground)); }
.patch-files .open-diff { background: none; border: none; padding: 0; color: var(--vscode-textLink-foreground); cursor: pointer; font: inherit; text-align: left; }
.patch-files .open-diff:hover { text-decoration: underline; }
.patch-problem { padding: 8px; border-left: 3px solid var(--vscode-editorWarning-foreground, var(--vscode-contrastBorder)); background: var(--vscode-textBlockQuote-background); }
`;

export const PATCH_CSS = diff2htmlCss + THEME;
