// CLI entry point (placeholder until the foundation lands).
export {};
