import { randomBytes } from 'node:crypto';

/**
 * The one place webview HTML is written. Scripts run only by nonce, styles and fonts only
 * from the webview's own resource origin; nothing inline, no eval.
 */

export interface WebviewPage {
  /** `webview.cspSource` of the panel the page is for. */
  readonly cspSource: string;
  readonly title: string;
  readonly styleUris: readonly string[];
  readonly scriptUri: string;
  /** The view the script mounts, written to `data-view` on the body. */
  readonly view: string;
  /** Data the view reads at boot instead of asking for it: JSON in a non-executable script element. */
  readonly embedded?: { readonly id: string; readonly value: unknown };
}

export interface WebviewErrorPage {
  readonly cspSource: string;
  readonly title: string;
  readonly styleUris: readonly string[];
  readonly message: string;
}

/** A nonce from the CSPRNG: a predictable one would let injected markup guess it. */
function createNonce(): string {
  return randomBytes(18).toString('base64');
}

function contentSecurityPolicy(cspSource: string, nonce: string | undefined): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    nonce === undefined ? "script-src 'none'" : `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function document(cspSource: string, nonce: string | undefined, title: string, styleUris: readonly string[], body: string): string {
  const styles = styleUris.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(cspSource, nonce))}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <title>${escapeHtml(title)}</title>
    ${styles}
  </head>
  ${body}
</html>
`;
}

/**
 * JSON for a `<script type="application/json">` element. Every `<` is written as `\u003c`, so no
 * string in the data can close the element or open a comment; JSON.parse reads it back unchanged.
 */
function jsonForScriptElement(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function embeddedElement(embedded: WebviewPage['embedded']): string {
  return embedded ? `\n    <script type="application/json" id="${escapeHtml(embedded.id)}">${jsonForScriptElement(embedded.value)}</script>` : '';
}

export function renderWebviewHtml(page: WebviewPage, nonce: string = createNonce()): string {
  const body = `<body data-view="${escapeHtml(page.view)}">
    <main id="app" aria-busy="true"></main>${embeddedElement(page.embedded)}
    <script type="module" nonce="${escapeHtml(nonce)}" src="${escapeHtml(page.scriptUri)}"></script>
  </body>`;
  return document(page.cspSource, nonce, page.title, page.styleUris, body);
}

/** A page without scripts that states what failed; shown instead of a blank panel. */
export function renderErrorHtml(page: WebviewErrorPage): string {
  const body = `<body class="error-page">
    <main role="alert">
      <h1>${escapeHtml(page.title)}</h1>
      <pre class="error-message">${escapeHtml(page.message)}</pre>
    </main>
  </body>`;
  return document(page.cspSource, undefined, page.title, page.styleUris, body);
}
