// Language server entry point (placeholder until the foundation lands).
export {};
