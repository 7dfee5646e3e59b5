// The language client (lenses, diagnostics, hovers from the language server) and its status item. The client is
// loaded on demand as a chunk of its own, so activation does not wait for it: only its type is imported statically.
export { DurabilityLanguageStatus } from './languageStatus';
export type { LanguageService } from './languageClient';

/** The language client module, loaded after activation (webpack makes it dist/extension.languageClient.js). */
export const loadLanguageClient = () => import(/* webpackChunkName: "languageClient" */ './languageClient');
