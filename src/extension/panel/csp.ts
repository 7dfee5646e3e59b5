// The webview's Content-Security-Policy (the strict one from the VS Code webview guide): nothing by default,
// scripts only with this page's nonce, styles/fonts/images only from the extension's own webview origin.
import { randomBytes } from 'node:crypto';

export function buildCsp(cspSource: string, nonce: string): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(nonce)) throw new RangeError('A nonce is at least 16 base64/url-safe characters.');
  if (!isWebviewCspSource(cspSource)) throw new RangeError(`Not a webview CSP source: ${cspSource}`);
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

/**
 * `webview.cspSource` is one origin in desktop VS Code (`https://*.vscode-cdn.net`) but a list in the web workbench
 * (code-server gives `'self' https://*.vscode-cdn.net`). Accept a space-separated list of host or scheme sources
 * and the `'self'` keyword — nothing that could widen the policy ('unsafe-*', a bare `*`) or end the directive.
 */
export function isWebviewCspSource(cspSource: string): boolean {
  const parts = cspSource.trim().split(/\s+/);
  const source = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d+|\*))?(?:\/[^\s;,'"]*)?$/i;
  const scheme = /^[a-z][a-z0-9+.-]*:$/i;
  return parts.length > 0 && parts[0] !== '' && parts.every((p) => p === "'self'" || (p !== '*' && (source.test(p) || scheme.test(p))));
}

/** 128 bits from the OS random source, fresh for every HTML page the panel gets. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The page shell: one stylesheet, one nonce'd script, no inline style or script anywhere. `translations` (the webview's
 * messages in the display language, webviewText.ts) travel as escaped JSON in #root's data-l10n, read by the script.
 */
export function panelHtml(options: { csp: string; nonce: string; styleUri: string; codiconUri?: string; scriptUri: string; title: string; lang?: string | undefined; loading?: string | undefined; translations?: Readonly<Record<string, string>> | undefined }): string {
  const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!DOCTYPE html>
<html lang="${attr(options.lang ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(options.csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(options.styleUri)}">
<title>${attr(options.title)}</title>
</head>
<body>
<main id="root" aria-live="polite" data-l10n="${attr(JSON.stringify(options.translations ?? {}))}"><p class="dl-muted">${attr(options.loading ?? 'Loading…')}</p></main>
<script nonce="${attr(options.nonce)}" src="${attr(options.scriptUri)}"></script>
</body>
</html>`;
}
