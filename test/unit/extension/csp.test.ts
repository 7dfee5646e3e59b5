import * as assert from 'node:assert/strict';
import { buildCsp, makeNonce, panelHtml } from '../../../src/extension/panel/csp';

const SOURCE = 'https://abc.vscode-cdn.net';

describe('extension/csp', () => {
  it('builds exactly the strict policy', () => {
    assert.equal(
      buildCsp(SOURCE, 'AAAAAAAAAAAAAAAAAAAAAA'),
      "default-src 'none'; script-src 'nonce-AAAAAAAAAAAAAAAAAAAAAA'; style-src https://abc.vscode-cdn.net; font-src https://abc.vscode-cdn.net; img-src https://abc.vscode-cdn.net data:",
    );
  });

  it('refuses a weak nonce or a source that would inject directives', () => {
    assert.throws(() => buildCsp(SOURCE, 'short'), RangeError);
    assert.throws(() => buildCsp("x; script-src 'unsafe-inline'", 'AAAAAAAAAAAAAAAAAAAAAA'), RangeError);
  });

  it("accepts the web workbench's source list (code-server: 'self' plus the CDN origin) and keeps it as given", () => {
    const webSource = "'self' https://*.vscode-cdn.net";
    assert.equal(
      buildCsp(webSource, 'AAAAAAAAAAAAAAAAAAAAAA'),
      "default-src 'none'; script-src 'nonce-AAAAAAAAAAAAAAAAAAAAAA'; style-src 'self' https://*.vscode-cdn.net; font-src 'self' https://*.vscode-cdn.net; img-src 'self' https://*.vscode-cdn.net data:",
    );
  });

  it('refuses sources that would widen the policy: unsafe keywords, a bare *, commas, an empty source', () => {
    for (const bad of ["'self' 'unsafe-inline'", "'unsafe-eval'", '*', 'https://a.example, https://b.example', '', '   ', "'none'"]) {
      assert.throws(() => buildCsp(bad, 'AAAAAAAAAAAAAAAAAAAAAA'), RangeError, bad);
    }
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.equal(Buffer.from(a, 'base64url').length, 16);
    assert.doesNotThrow(() => buildCsp(SOURCE, a));
  });

  it('the page has one nonce script, one stylesheet, and no inline style or script', () => {
    const nonce = makeNonce();
    const html = panelHtml({ csp: buildCsp(SOURCE, nonce), nonce, styleUri: `${SOURCE}/media/webview.css`, scriptUri: `${SOURCE}/dist/webview.js`, title: 'T<"x">' });
    assert.equal(html.match(/<script\b/g)?.length, 1);
    assert.ok(html.includes(`<script nonce="${nonce}" src="${SOURCE}/dist/webview.js"></script>`));
    assert.ok(!/<style\b/.test(html));
    assert.ok(!/\sstyle=/.test(html));
    assert.ok(!/\son[a-z]+=/.test(html));
    assert.ok(html.includes('<title>T&lt;&quot;x&quot;&gt;</title>'));
    assert.ok(html.includes(`content="default-src 'none'; script-src 'nonce-${nonce}';`));
  });
});
