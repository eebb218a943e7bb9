import '../../helpers/families';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderErrorHtml, renderWebviewHtml } from '../../../extension/vscode/webview/webviewHtml';

const page = {
  cspSource: 'https://file+.vscode-resource.example',
  title: 'marshmallow-1867.traj',
  view: 'stepper',
  styleUris: ['https://file+.vscode-resource.example/media/webview.css'],
  scriptUri: 'https://file+.vscode-resource.example/media/dist/stepper.js',
};

function cspOf(html: string): string {
  const match = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html);
  assert.ok(match?.[1], 'the page declares a CSP');
  return match[1].replace(/&#39;/g, "'");
}

describe('webview HTML', () => {
  test('allows scripts only by the nonce it was given and styles only from the webview origin', () => {
    const html = renderWebviewHtml(page, 'abc123');
    const csp = cspOf(html);
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'/);
    assert.match(csp, /style-src https:\/\/file\+\.vscode-resource\.example(;|$)/);
    assert.match(csp, /font-src https:\/\/file\+\.vscode-resource\.example/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(html, /<script type="module" nonce="abc123" src="https:\/\/file\+\.vscode-resource\.example\/media\/dist\/stepper\.js"><\/script>/);
  });

  test('has no inline script or style', () => {
    const html = renderWebviewHtml(page, 'n');
    assert.equal([...html.matchAll(/<script\b[^>]*>/g)].filter((m) => !m[0].includes(' src=')).length, 0);
    assert.doesNotMatch(html, /<style|style="/);
  });

  test('each page gets its own unpredictable nonce, in its script tag and its policy', () => {
    const nonces = new Set(
      Array.from({ length: 200 }, () => {
        const html = renderWebviewHtml(page);
        const nonce = /<script type="module" nonce="([^"]*)"/.exec(html)?.[1];
        assert.ok(nonce, 'the script carries a nonce');
        assert.match(cspOf(html), new RegExp(`script-src 'nonce-${nonce.replace(/[+/]/g, '\\$&')}'`));
        return nonce;
      }),
    );
    assert.equal(nonces.size, 200);
    for (const n of nonces) assert.match(n, /^[A-Za-z0-9+/]{24}$/);
  });

  test('escapes the title so a file name cannot inject markup', () => {
    const html = renderWebviewHtml({ ...page, title: '<img src=x onerror=alert(1)>.traj' }, 'n');
    assert.ok(html.includes('<title>&#60;img src=x onerror=alert(1)&#62;.traj</title>'));
    assert.ok(!html.includes('<img'));
  });

  test('the error page shows the escaped message and runs no script', () => {
    const html = renderErrorHtml({
      cspSource: page.cspSource,
      title: 'Cannot open',
      styleUris: [],
      message: 'bad.traj: $.trajectory[2]: expected object, got "</pre><script>x()</script>"',
    });
    assert.match(cspOf(html), /script-src 'none'/);
    assert.ok(html.includes('$.trajectory[2]: expected object, got &#34;&#60;/pre&#62;&#60;script&#62;x()&#60;/script&#62;&#34;'));
    assert.equal([...html.matchAll(/<script/g)].length, 0);
  });

  test('the policy joins its directives with semicolons', () => {
    const html = renderErrorHtml({ cspSource: 'src:', title: 'Cannot open', styleUris: [], message: 'm' });
    assert.equal(cspOf(html), "default-src 'none'; img-src src: data:; style-src src:; font-src src:; script-src 'none'");
  });
});
