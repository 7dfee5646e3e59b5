// Which mssql extension versions offer which part of the Connection Sharing API (vscode-free, unit-tested).

/** First mssql version with the connection-sharing commands (vscode-mssql CHANGELOG 1.34.0, July 2025). */
export const MIN_SHARING_VERSION = '1.34.0';
/** First mssql version with getConnectionString (vscode-mssql pull request #20300, released in 1.37.0). */
export const MIN_CONNECTION_STRING_VERSION = '1.37.0';

/** "1.37.0" ≥ "1.34.0", numerically per part; a pre-release suffix is ignored. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (v: string) => v.split(/[.-]/).slice(0, 3).map((x) => Number.parseInt(x, 10) || 0);
  const a = parts(version);
  const b = parts(minimum);
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  return true;
}
