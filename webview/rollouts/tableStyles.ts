import { HIDDEN_WITH_RECIPE } from './tableModel';

/**
 * The table's styles, adopted as a constructed stylesheet: the CSP allows no inline <style>,
 * and the shared webview.css belongs to every view. Colours only from the theme.
 */
export const TABLE_CSS = `
.rollouts-toolbar { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; padding: 6px 10px;
  border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  background: var(--vscode-sideBar-background, var(--vscode-editor-background)); }
#filter { flex: 2 1 320px; }
#search { flex: 1 1 200px; }
#row-count { color: var(--vscode-descriptionForeground); font-variant-numeric: tabular-nums; white-space: nowrap; }
#index-errors { color: var(--vscode-descriptionForeground); white-space: nowrap; }
#index-errors .codicon { color: var(--vscode-problemsWarningIcon-foreground); vertical-align: text-bottom; }
#index-errors[hidden] { display: none; }
#filter-error { flex-basis: 100%; margin: 0; color: var(--vscode-errorForeground);
  border-left: 3px solid var(--vscode-inputValidation-errorBorder, var(--vscode-errorForeground)); padding: 2px 8px; font-family: var(--vscode-editor-font-family); }
#filter-error[hidden] { display: none; }
#stats { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 4px 10px; color: var(--vscode-descriptionForeground);
  border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); font-variant-numeric: tabular-nums; }
#stats strong { color: var(--vscode-foreground); font-weight: 600; }
.rollouts-grid { display: grid; grid-template-columns: minmax(180px, 3fr) 84px minmax(100px, 112px) 72px minmax(110px, 1.3fr) 90px 80px minmax(120px, 1.3fr) 90px 70px 90px var(--critical-track,);
  /* Narrower than its columns' least widths, the table scrolls sideways (the head with it) rather than crush them. */
  min-width: min-content; }
#table-head-scroll { flex: none; overflow: hidden; }
.table-head { border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  background: var(--vscode-sideBar-background, var(--vscode-editor-background)); padding-right: 10px; }
/* A header's words wrap onto a second line rather than run under the next column's. */
.table-head button { all: unset; box-sizing: border-box; display: flex; gap: 2px; align-items: flex-end; padding: 4px 6px; cursor: pointer;
  font-weight: 600; line-height: 1.25; overflow: hidden; color: var(--vscode-foreground); }
.table-head button > span:first-child, .recipe-head { min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.table-head button:hover { background: var(--vscode-list-hoverBackground); }
.table-head button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
.table-head button.numeric { justify-content: flex-end; }
#viewport { flex: 1; min-height: 0; overflow: auto; position: relative; outline: none; }
#viewport:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
#spacer { position: relative; width: 100%; }
.rollout-row { position: absolute; left: 0; right: 0; height: 24px; line-height: 24px; cursor: pointer; border: 1px solid transparent; box-sizing: border-box; }
.rollout-row:hover { background: var(--vscode-list-hoverBackground); }
.rollout-row[aria-selected="true"] { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground);
  outline: 1px solid var(--vscode-list-focusOutline, transparent); outline-offset: -1px; }
.rollout-row > span { padding: 0 6px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
/* The end of an instance name (-101, -202) stays in view; its head is what a narrow column shortens. */
.rollout-row > span[data-column="instance"] { display: flex; align-items: center; }
.rollout-row .instance-head { min-width: 0; overflow: hidden; text-overflow: ellipsis; }
.rollout-row .instance-tail { flex: none; }
.rollout-row > span.numeric { text-align: right; font-variant-numeric: tabular-nums; }
.rollout-row.loading > span { color: var(--vscode-descriptionForeground); }
.rollout-row .codicon { vertical-align: text-bottom; margin-right: 4px; }
.status-resolved .codicon { color: var(--vscode-testing-iconPassed); }
.status-failed .codicon { color: var(--vscode-testing-iconFailed); }
.status-infra .codicon { color: var(--vscode-problemsWarningIcon-foreground); }
.rollout-row[aria-selected="true"] .codicon { color: inherit; }
#details { flex: 0 0 auto; max-height: 40vh; overflow: auto; padding: 6px 10px 8px;
  border-top: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent));
  background: var(--vscode-sideBar-background, var(--vscode-editor-background)); }
#details[hidden] { display: none; }
.details-title { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
.details-title .codicon { align-self: center; }
.details-facts { color: var(--vscode-descriptionForeground); }
#details-reason { margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
#details-tests { margin: 2px 0 6px; padding-left: 20px; font-family: var(--vscode-editor-font-family); }
.details-actions { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.row-action { display: inline-flex; align-items: center; gap: 4px; padding: 3px 10px; border-radius: 2px; cursor: pointer; font: inherit;
  color: var(--vscode-button-secondaryForeground, var(--vscode-button-foreground)); background: var(--vscode-button-secondaryBackground, var(--vscode-button-background));
  border: 1px solid var(--vscode-button-border, var(--vscode-contrastBorder, transparent)); }
.row-action:hover { background: var(--vscode-button-secondaryHoverBackground, var(--vscode-button-hoverBackground)); }
.row-action:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
#action-status { color: var(--vscode-errorForeground); }
#details [aria-label="resolved"] { color: var(--vscode-testing-iconPassed); }
#details [aria-label="failed"] { color: var(--vscode-testing-iconFailed); }
#details [aria-label="infra"] { color: var(--vscode-problemsWarningIcon-foreground); }
.picker { display: inline-flex; align-items: center; gap: 4px; color: var(--vscode-descriptionForeground); white-space: nowrap; }
#recipe { min-width: 150px; }
#estimator { min-width: 100px; }
#recipe-problem { flex-basis: 100%; color: var(--vscode-errorForeground); }
#recipe-problem[hidden] { display: none; }
#recipe-problem .codicon { color: var(--vscode-problemsWarningIcon-foreground); vertical-align: text-bottom; }
/* With a recipe, its three columns take the place of tokens, cost and duration (the details pane keeps them). */
.with-recipe .rollouts-grid { grid-template-columns: minmax(150px, 2fr) 84px minmax(90px, 100px) 72px minmax(90px, 1fr) 90px 80px minmax(100px, 1fr) var(--critical-track,) 80px 96px minmax(150px, 2fr); }
${HIDDEN_WITH_RECIPE.map((c) => `.with-recipe .rollouts-grid > [data-column="${c}"]`).join(', ')} { display: none; }
#hidden-columns { color: var(--vscode-descriptionForeground); white-space: nowrap; }
#hidden-columns .codicon { vertical-align: text-bottom; }
#hidden-columns[hidden] { display: none; }
#grading-conflicts { margin: 0; padding: 2px 10px 4px; list-style: none; overflow-wrap: anywhere;
  border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); }
#grading-conflicts[hidden] { display: none; }
#grading-conflicts .codicon, .rollout-row .grading-conflict { color: var(--vscode-problemsWarningIcon-foreground); vertical-align: text-bottom; }
.rollout-row .grading-conflict { margin: 0 0 0 4px; }
.rollout-row[aria-selected="true"] .grading-conflict { color: inherit; }
/* A re-scored run's four mismatch columns follow the others, with or without a recipe. */
.with-mismatch .rollouts-grid { grid-template-columns: minmax(180px, 3fr) 84px minmax(100px, 112px) 72px minmax(110px, 1.3fr) 90px 80px minmax(120px, 1.3fr) 90px 70px 90px 80px 84px 80px minmax(120px, 1fr) var(--critical-track,); }
.with-recipe.with-mismatch .rollouts-grid { grid-template-columns: minmax(150px, 2fr) 84px minmax(90px, 100px) 72px minmax(90px, 1fr) 90px 80px minmax(100px, 1fr) 80px 84px 80px minmax(120px, 1fr) var(--critical-track,) 80px 96px minmax(150px, 2fr); }
/* A branched run's critical step follows the rollout's own columns (and the mismatch ones), before a recipe's: each template leaves its track a place. */
.with-critical { --critical-track: minmax(200px, 1.4fr); }
.recipe-head { box-sizing: border-box; padding: 4px 6px; font-weight: 600; line-height: 1.25; align-self: end; }
.recipe-head.numeric { text-align: right; }
.recipe-cell.masked { color: var(--vscode-problemsWarningIcon-foreground); }
.rollout-row[aria-selected="true"] .recipe-cell.masked { color: inherit; }
.recipe-facts { color: var(--vscode-descriptionForeground); }
#details-score { margin: 4px 0; overflow-wrap: anywhere; }
#details-group h3 { font-size: inherit; margin: 6px 0 2px; }
#details-group .details-facts { margin: 0 0 4px; }
#group-advantages { border-collapse: collapse; margin-bottom: 6px; }
#group-advantages th, #group-advantages td { text-align: left; padding: 1px 8px 1px 0; vertical-align: top; }
#group-advantages td.numeric { text-align: right; font-variant-numeric: tabular-nums; }
#group-advantages tr[aria-current="true"] td { font-weight: 600; }
#group-advantages tr[data-outcome="masked"] td:last-child { color: var(--vscode-problemsWarningIcon-foreground); }
#export-bar { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
#export-bar[hidden], #export-cancel[hidden], #export-progress[hidden] { display: none; }
#export-keep { min-width: 320px; }
#export-status { color: var(--vscode-descriptionForeground); overflow-wrap: anywhere; }
#empty { padding: 16px; color: var(--vscode-descriptionForeground); }
#empty[hidden] { display: none; }
`;
