/** The recorded and replayed sides, the diff and the normalisers; colours only from the theme. */
export const REPLAY_COMPARE_CSS = `
.replay-body { overflow: auto; padding: 8px 10px 24px; flex: 1; }
.replay-body > section { margin-bottom: 16px; }
.replay-note { margin: 0 0 10px; padding: 4px 8px; border-left: 3px solid var(--vscode-editorWarning-foreground, var(--vscode-contrastBorder)); background: var(--vscode-textBlockQuote-background); }
.replay-empty { padding: 16px 10px; color: var(--vscode-descriptionForeground); }
.replay-action { padding: 4px 8px; background: var(--vscode-textCodeBlock-background); border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); }
.verdict { display: inline-flex; gap: 4px; align-items: center; font-weight: 600; }
.verdict.matched { color: var(--vscode-testing-iconPassed, var(--vscode-foreground)); }
.verdict.diverged { color: var(--vscode-editorWarning-foreground, var(--vscode-foreground)); }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; }
.side { min-width: 0; display: flex; flex-direction: column; }
.side h2 { display: flex; gap: 8px; align-items: baseline; }
.side .side-facts { text-transform: none; letter-spacing: 0; font-weight: normal; }
.side pre { padding: 6px 8px; max-height: 50vh; overflow: auto; background: var(--vscode-textCodeBlock-background); border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); flex: 1; }
.side pre.empty-text { color: var(--vscode-descriptionForeground); font-style: italic; }
.diff { border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); }
.diff-line { display: flex; }
.diff-line .sign { flex: none; width: 2ch; text-align: center; color: var(--vscode-descriptionForeground); user-select: none; }
.diff-line pre { flex: 1; min-width: 0; }
.diff-line.recorded { background: var(--vscode-diffEditor-removedLineBackground, var(--vscode-diffEditor-removedTextBackground)); }
.diff-line.replayed { background: var(--vscode-diffEditor-insertedLineBackground, var(--vscode-diffEditor-insertedTextBackground)); }
.diff-line.hunk { color: var(--vscode-descriptionForeground); background: var(--vscode-editorGroupHeader-tabsBackground, transparent); }
body.vscode-high-contrast .diff-line.recorded, body.vscode-high-contrast-light .diff-line.recorded { border-left: 2px dashed var(--vscode-diffEditor-removedTextBorder, var(--vscode-contrastActiveBorder)); }
body.vscode-high-contrast .diff-line.replayed, body.vscode-high-contrast-light .diff-line.replayed { border-left: 2px solid var(--vscode-diffEditor-insertedTextBorder, var(--vscode-contrastActiveBorder)); }
.diff-legend { margin: 0 0 4px; color: var(--vscode-descriptionForeground); }
ul.normalisers { list-style: none; margin: 0; padding: 0; }
ul.normalisers li { display: grid; grid-template-columns: 1.4em 12em 1fr; gap: 6px; padding: 2px 0; align-items: baseline; }
ul.normalisers .name { font-family: var(--vscode-editor-font-family); }
ul.normalisers li.idle { color: var(--vscode-descriptionForeground); }
ul.normalisers li.changed .codicon { color: var(--vscode-textLink-foreground); }
`;
