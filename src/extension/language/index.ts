// The language client (lenses, diagnostics, hovers from the language server), its status item and the output channel
// it and every feature write to. The client is loaded on demand as a chunk of its own, so activation does not wait for
// it: only its type is imported statically.
export { DurabilityLanguageStatus } from './languageStatus';
export { neutralOutputChannel } from './outputChannel';
export type { LanguageService } from './languageClient';

/** The language client module, loaded after activation (webpack makes it dist/extension.languageClient.js). */
export const loadLanguageClient = () => import(/* webpackChunkName: "languageClient" */ './languageClient');
