// Extension entry point (placeholder until the foundation lands).
export function activate(): void {}
export function deactivate(): void {}
