// Webview entry point (placeholder until the comparison panel lands).
export {};
