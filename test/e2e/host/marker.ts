// Prefix of the result lines the extension-host suite prints; shared with the runner that parses them
// (kept apart from index.ts, which imports `vscode` and so cannot load outside the extension host).
export const RESULT_MARKER = '[durability-lens-e2e-host]';
