export const REWARD_CSS = `
.reward-body { overflow: auto; padding: 10px; display: flex; flex-direction: column; gap: 16px; }
.verdict { display: flex; align-items: baseline; gap: 12px; }
.resolution { font-weight: 700; padding: 2px 8px; border: 1px solid var(--vscode-contrastBorder, transparent); border-radius: 3px; }
.resolution.FULL { background: var(--vscode-testing-iconPassed); color: var(--vscode-editor-background); }
.resolution.PARTIAL { background: var(--vscode-testing-iconQueued, var(--vscode-charts-yellow)); color: var(--vscode-editor-background); }
.resolution.NO { background: var(--vscode-testing-iconFailed); color: var(--vscode-editor-background); }
.reward-value { font-size: 1.4em; font-variant-numeric: tabular-nums; }
.note { color: var(--vscode-descriptionForeground); }
.note.masked { color: var(--vscode-problemsWarningIcon-foreground); font-weight: 600; }
.toolbar { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; justify-content: space-between; }
.recipe-picker { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 6px; color: var(--vscode-descriptionForeground); }
#reward-recipe { min-width: 200px; }
.missing { border-left: 3px solid var(--vscode-editorInfo-foreground, var(--vscode-focusBorder)); padding: 2px 10px; }
.missing p { margin: 4px 0; }
.missing .codicon { color: var(--vscode-editorInfo-foreground, var(--vscode-foreground)); vertical-align: text-bottom; }
.agreement.agrees .codicon { color: var(--vscode-testing-iconPassed); }
.agreement.differs .codicon { color: var(--vscode-testing-iconFailed); }
.terms { border-collapse: collapse; }
.terms th, .terms td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid var(--vscode-panel-border, transparent); vertical-align: top; }
.terms td.value { font-variant-numeric: tabular-nums; text-align: right; }
.reward-chart .axis { stroke: var(--vscode-foreground); stroke-width: 1; }
.reward-chart .bar.positive { fill: var(--vscode-charts-green); }
.reward-chart .bar.negative { fill: var(--vscode-charts-red); }
.reward-chart .bar.zero { fill: var(--vscode-charts-foreground, var(--vscode-foreground)); }
.reward-chart text { fill: var(--vscode-foreground); font-size: 12px; font-family: var(--vscode-font-family); }
.test-list { list-style: none; margin: 0; padding: 0; }
.test-list li { display: flex; gap: 6px; align-items: center; padding: 1px 0; }
.test-list .codicon-pass { color: var(--vscode-testing-iconPassed); }
.test-list .codicon-error { color: var(--vscode-testing-iconFailed); }
.test-link { background: none; border: none; padding: 0; color: var(--vscode-textLink-foreground); cursor: pointer; font: inherit; text-align: left; font-family: var(--vscode-editor-font-family); }
.test-link:hover { text-decoration: underline; }
.test-id { font-family: var(--vscode-editor-font-family); }
`;
