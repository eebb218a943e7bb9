import { PATCH_CSS } from '../patch/patchStyles';

/** The patch view's diff2html theme, and the aligned steps' grid. */
export const COMPARE_CSS = `${PATCH_CSS}
.compare-body { overflow: auto; padding: 8px 10px 24px; flex: 1; }
.compare-body > section { margin-bottom: 18px; }
.compare-warning { margin: 0 0 10px; padding: 4px 8px; border-left: 3px solid var(--vscode-editorWarning-foreground, var(--vscode-contrastBorder)); background: var(--vscode-textBlockQuote-background); }
table.compare { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.compare th, table.compare td { text-align: left; padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: top; }
table.compare thead th { color: var(--vscode-descriptionForeground); font-weight: 600; }
table.compare thead th .run-name, table.compare thead th .run-detail { display: block; overflow: hidden; text-overflow: ellipsis; }
table.compare thead th .run-name { color: var(--vscode-foreground); }
table.compare thead th .run-detail { font-weight: normal; }
table.compare th.row-head { width: 7em; color: var(--vscode-descriptionForeground); font-weight: normal; }
table.compare td.unknown { color: var(--vscode-descriptionForeground); font-style: italic; }
.step-cell { display: flex; gap: 6px; align-items: center; cursor: pointer; background: none; border: none; padding: 0; color: inherit; font: inherit; width: 100%; text-align: left; }
.step-cell:hover .step-label { text-decoration: underline; }
.step-cell .step-number { min-width: 2em; text-align: right; color: var(--vscode-descriptionForeground); font-variant-numeric: tabular-nums; }
.step-cell .step-label { overflow: hidden; text-overflow: ellipsis; font-family: var(--vscode-editor-font-family); }
.step-cell .codicon-error { color: var(--vscode-errorForeground); }
td.gap { color: var(--vscode-descriptionForeground); font-style: italic; }
tr.differs td { background: var(--vscode-diffEditor-unchangedRegionBackground, transparent); }
tr.differs td.gap { background: var(--vscode-diffEditor-removedLineBackground, var(--vscode-diffEditor-removedTextBackground)); }
tr.first-divergence td { border-top: 2px solid var(--vscode-editorWarning-foreground, var(--vscode-contrastActiveBorder)); }
tr.shared-prefix td { color: var(--vscode-descriptionForeground); border-bottom: none; }
tr.shared-prefix .shared-toggle { background: none; border: none; padding: 0; color: var(--vscode-textLink-foreground); font: inherit; cursor: pointer; }
tr.shared-prefix .shared-toggle:hover { text-decoration: underline; }
tr.shared td { opacity: 0.75; }
tr.branch-point-mark td { color: var(--vscode-textLink-foreground, var(--vscode-foreground)); font-weight: 600; padding-top: 6px; border-bottom: none; }
tr.divergence-mark td { color: var(--vscode-editorWarning-foreground, var(--vscode-foreground)); font-weight: 600; padding-top: 6px; border-bottom: none; }
.patches { display: grid; gap: 10px; }
.patch-column { min-width: 0; overflow-x: auto; }
.patch-column h3 { margin: 4px 0; font-size: 1em; }
`;
