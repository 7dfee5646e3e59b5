// What the panel's page needs to speak the display language: the active l10n bundle's translations of the messages
// the webview uses (l10n/webview-messages.json, written by npm run l10n from the webview's t('…') calls), and the
// page's lang. VS Code in English has no bundle (vscode.l10n.bundle is undefined): nothing is passed and the webview
// shows its English messages. vscode-free so a test can apply any bundle.
import WEBVIEW_MESSAGES from '../../../l10n/webview-messages.json';

/** message → translation for each webview message the bundle translates to a string; {} without a bundle. */
export function webviewTranslations(bundle: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!bundle) return out;
  for (const message of WEBVIEW_MESSAGES as readonly string[]) {
    const translated = Object.hasOwn(bundle, message) ? bundle[message] : undefined;
    if (typeof translated === 'string') out[message] = translated;
  }
  return out;
}

/** The page's lang attribute: VS Code's display language when it is a language tag, else English. */
export function pageLanguage(language: string | undefined): string {
  return language && /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(language) ? language : 'en';
}
