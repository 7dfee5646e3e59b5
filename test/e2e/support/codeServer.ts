// Starts code-server for one e2e run in its own process group and stops the whole group (the extension
// host and file watcher are its children and would otherwise linger); dumps its logs when something fails.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { run } from './exec';
import { codeServerEntry, extensionsDir, nodeBin, runDir, userDataDir } from './paths';

/** Settings that keep the workbench quiet and deterministic: no welcome page, trust prompt, tips, chat or update checks. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.tips.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'editor.codeLens': true,
  'files.autoSave': 'off',
  'git.enabled': false,
};

/** Writes the user settings.json of `dataDir`; `extra` adds settings (e.g. the stand-in's connection profile). */
export function writeUserSettings(extra: Record<string, unknown> = {}, dataDir = userDataDir): void {
  const dir = path.join(dataDir, 'User');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...extra }, null, 2));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Where one code-server instance keeps its state: the e2e run's folders by default, the demo has its own. */
export interface ServerDirs {
  userData: string;
  extensions: string;
  /** Holds config.yaml and code-server.log. */
  run: string;
}

export const E2E_DIRS: ServerDirs = { userData: userDataDir, extensions: extensionsDir, run: runDir };

/** The CLI form of code-server, used to install our VSIX into the run's extensions folder. */
export async function installExtension(vsix: string, dirs: ServerDirs = E2E_DIRS): Promise<void> {
  await run(nodeBin, [codeServerEntry, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix, '--force']);
}

const codeServerLog = path.join(runDir, 'code-server.log');

export class CodeServer {
  private exited: Promise<void>;
  private exitCode: number | null = null;

  private constructor(private readonly child: ChildProcess, readonly url: string, private readonly tmpDir: string) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => { this.exitCode = code ?? -1; resolve(); }));
  }

  /** `port` 0 (default) = a free one; `host` is the bind address (loopback unless the demo is asked otherwise). */
  /** `password`: code-server's own password auth (needed whenever it listens beyond loopback); none otherwise. */
  /** `workspaceTrust`: keep VS Code's workspace trust on (the Restricted Mode test); off everywhere else. */
  static async start(workspace: string, options: { dirs?: ServerDirs; port?: number; host?: string; password?: string; workspaceTrust?: boolean } = {}): Promise<CodeServer> {
    const dirs = options.dirs ?? E2E_DIRS;
    const port = options.port || (await freePort());
    const host = options.host ?? '127.0.0.1';
    // A short TMPDIR: VS Code puts IPC sockets there and long socket paths exceed the 108-byte limit.
    const tmp = fs.mkdtempSync('/tmp/dl-e2e-');
    const configFile = path.join(dirs.run, 'config.yaml');
    const auth = options.password ? 'password' : 'none';
    // The password goes through $PASSWORD (code-server reads it from there or its config file), not the command line.
    fs.writeFileSync(configFile, `auth: ${auth}\ncert: false\n`, { mode: 0o600 });
    const args = [
      codeServerEntry, '--config', configFile, '--auth', auth, '--bind-addr', `${host}:${port}`,
      '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
      '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions,
    ];
    if (!options.workspaceTrust) args.push('--disable-workspace-trust');
    args.push(workspace);
    const logFd = fs.openSync(path.join(dirs.run, 'code-server.log'), 'w');
    // detached: the child leads a new process group, so one kill(-pid) reaches the extension host too.
    const child = spawn(nodeBin, args, {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, EXTENSIONS_GALLERY: '{}', TMPDIR: tmp, ...(options.password ? { PASSWORD: options.password } : {}) },
    });
    fs.closeSync(logFd);
    const server = new CodeServer(child, `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, tmp);
    process.once('exit', () => server.killGroup('SIGKILL'));
    await server.waitHealthy(60_000);
    return server;
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastError = '';
    while (Date.now() < deadline) {
      if (this.exitCode !== null) throw new Error(`code-server exited with ${this.exitCode} before it was healthy`);
      try {
        const res = await fetch(`${this.url}/healthz`);
        if (res.ok) return;
        lastError = `HTTP ${res.status}`;
      } catch (err) {
        lastError = (err as Error).message;
      }
      // Poll interval, not a timing assumption: the loop ends on the first healthy answer or at the deadline.
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`code-server did not answer /healthz within ${timeoutMs} ms (last: ${lastError})`);
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (this.exitCode !== null && signal !== 'SIGKILL') return;
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  /** Settles when code-server's main process exits (the demo stops the stand-in then too). */
  whenExited(): Promise<number> {
    return this.exited.then(() => this.exitCode ?? -1);
  }

  /** SIGTERM to the whole group, SIGKILL if code-server has not exited within 10 s. */
  async stop(): Promise<void> {
    this.killGroup('SIGTERM');
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000).unref());
    if ((await Promise.race([this.exited, timer])) === 'timeout') this.killGroup('SIGKILL');
    // Children (extension host, watcher) may outlive the leader: make sure the group is gone.
    this.killGroup('SIGKILL');
    fs.rmSync(this.tmpDir, { recursive: true, force: true });
  }
}

function tail(file: string, lines: number): string {
  if (!fs.existsSync(file)) return `(no ${file})`;
  return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

/** Newest server log folder of the run's user data, UD/logs/<timestamp>/ (the CLI install writes an older one). */
function latestLogDir(): string | null {
  const logs = path.join(userDataDir, 'logs');
  if (!fs.existsSync(logs)) return null;
  const dirs = fs.readdirSync(logs).sort().reverse().map((d) => path.join(logs, d));
  return dirs.find((d) => fs.readdirSync(d).some((e) => e.startsWith('exthost'))) ?? dirs[0] ?? null;
}

/**
 * Prints what explains most failures: code-server's own output, then for each extension host (one per page
 * load: UI tests, host suite) its log (activation failures with stacks) and our output channel's log.
 */
export function dumpServerLogs(lines = 60): void {
  console.log(`\n----- tail of code-server log (${codeServerLog}) -----`);
  console.log(tail(codeServerLog, lines));
  const dir = latestLogDir();
  const hosts = dir ? fs.readdirSync(dir).filter((e) => e.startsWith('exthost')).sort() : [];
  if (!hosts.length) console.log(`----- no extension host logs under ${dir ?? path.join(userDataDir, 'logs')} -----`);
  for (const host of hosts) {
    for (const file of [path.join(dir!, host, 'remoteexthost.log'), path.join(dir!, host, 'durability-lens.durability-lens', 'Durability Lens.log')]) {
      console.log(`----- tail of ${file} -----`);
      console.log(tail(file, lines));
    }
  }
  console.log('----- end of logs -----\n');
}
