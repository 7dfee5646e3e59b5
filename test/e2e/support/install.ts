// Installs what the e2e run needs without reaching anything but Debian apt and the npm registry:
// Debian packages, then code-server from npm with its postinstall done by hand (see shared/design/e2e-code-server.md).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { node22Env, run } from './exec';
import { CODE_SERVER_VERSION, codeServerEntry, codeServerPkg, installDir } from './paths';

/** chromium runs the workbench; the rest builds code-server's native modules; ripgrep replaces the one its postinstall would download. */
export const APT_PACKAGES = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev', 'ripgrep', 'chromium'];

function dpkgInstalled(pkg: string): boolean {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

export async function ensureAptPackages(): Promise<void> {
  const missing = APT_PACKAGES.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return;
  console.log(`e2e: installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-qq'], { env, quiet: true });
  const args = ['install', '-y', '-qq', '--no-install-recommends', ...missing];
  try {
    await run('apt-get', args, { env, quiet: true });
  } catch (err) {
    // The image's apt hook can delete downloaded .debs between dpkg runs ("failed to read archive"); once more succeeds.
    console.log(`e2e: apt-get install failed (${(err as Error).message}); retrying once`);
    await run('apt-get', args, { env, quiet: true });
  }
}

const markerFile = path.join(installDir, '.installed');

export function codeServerInstalled(): boolean {
  return fs.existsSync(markerFile) && fs.readFileSync(markerFile, 'utf8').trim() === CODE_SERVER_VERSION && fs.existsSync(codeServerEntry);
}

function symlink(target: string, linkPath: string): void {
  fs.rmSync(linkPath, { force: true });
  fs.symlinkSync(target, linkPath);
}

/** Installs code-server into .e2e/code-server-<version>/ unless that version is already complete there. */
export async function ensureCodeServer(): Promise<void> {
  if (codeServerInstalled()) {
    console.log(`e2e: code-server ${CODE_SERVER_VERSION} already installed in ${installDir}`);
    return;
  }
  // A half-finished install (killed run) is not worth repairing step by step: start the folder over.
  fs.rmSync(installDir, { recursive: true, force: true });
  fs.mkdirSync(installDir, { recursive: true });
  fs.writeFileSync(path.join(installDir, 'package.json'), JSON.stringify({ name: 'e2e-code-server', private: true }, null, 2));
  const env = node22Env();
  const npm = (cwd: string, ...args: string[]) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, quiet: true });

  // --ignore-scripts: code-server's postinstall downloads ripgrep from GitHub, which we cannot reach.
  await npm(installDir, 'install', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`);
  await npm(installDir, 'rebuild', 'argon2');

  const vscodeDir = path.join(codeServerPkg, 'lib', 'vscode');
  await npm(vscodeDir, 'install', '--omit=dev', '--ignore-scripts');
  await npm(vscodeDir, 'rebuild', '@vscode/spdlog', '@vscode/native-watchdog', 'kerberos', '@parcel/watcher', 'node-pty');
  if (CODE_SERVER_VERSION.startsWith('4.117.')) {
    // The built-in git extension requires @vscode/fs-copyfile, which 4.117.0's package lacks.
    await npm(vscodeDir, 'install', '--no-save', '--ignore-scripts', '@vscode/fs-copyfile@2.0.0');
  }
  const rgDir = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  fs.mkdirSync(rgDir, { recursive: true });
  symlink('/usr/bin/rg', path.join(rgDir, 'rg'));
  symlink('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  symlink('code-linux.sh', path.join(vscodeDir, 'bin', 'remote-cli', 'code-server'));
  symlink('browser-linux.sh', path.join(vscodeDir, 'bin', 'helpers', 'browser.sh'));
  await npm(path.join(vscodeDir, 'extensions'), 'install', '--omit=dev');

  fs.writeFileSync(markerFile, `${CODE_SERVER_VERSION}\n`);
  console.log(`e2e: code-server ${CODE_SERVER_VERSION} installed in ${installDir}`);
}
