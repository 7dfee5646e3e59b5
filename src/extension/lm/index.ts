// The language-model tools (Copilot agent mode): what the extension registers.
export { lmToolImplementations, registerLmTools } from './lmTools';
