// `npm run demo`: Durability Lens in VS Code in the browser without a SQL Server — builds and installs the VSIX
// into code-server (the e2e suite's cached install), starts the TDS stand-in with demo databases, pre-seeds a
// connection profile to it, opens the sample scripts, prints the URL; Ctrl-C stops code-server and the stand-in.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CodeServer, installExtension, writeUserSettings, type ServerDirs } from '../test/e2e/support/codeServer';
import { ensureAptPackages, ensureCodeServer } from '../test/e2e/support/install';
import { acquireE2eLock } from '../test/e2e/support/lock';
import { cacheRoot, repoRoot } from '../test/e2e/support/paths';
import { STANDIN_PASSWORD, STANDIN_PROFILE_NAME, STANDIN_USER, standinConnectionSetting, startE2eStandin } from '../test/e2e/support/standin';
import { buildVsix } from '../test/e2e/support/vsix';
import { demoPassword } from './demoAuth';
import { applyDemoCauses, DEMO_AG_DATABASE, DEMO_SPEED_FACTOR, DEMO_STANDIN_OPTIONS } from './demoStandin';

const USAGE = `usage: npm run demo -- [--port 8765] [--standin-port 14333] [--host 127.0.0.1] [--speed 1]
  --port          code-server's port (the URL to open)
  --standin-port  the SQL Server stand-in's TDS port
  --host          code-server's bind address (0.0.0.0 to open it from another machine: code-server then asks
                  for a password, generated for this run and printed below the URL)
  --speed         stand-in speed factor: 1 = simulated waits take their modelled time, 0.1 = ten times faster`;

const demoRoot = path.join(cacheRoot, 'demo');
const dirs: ServerDirs = { userData: path.join(demoRoot, 'user-data'), extensions: path.join(demoRoot, 'extensions'), run: demoRoot };
const workspace = path.join(demoRoot, 'workspace');

/** Fails early with a clear message when a fixed port is taken (a demo from an earlier shell may still run). */
function assertPortFree(port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${port} (${what}) is in use: stop what holds it or pick another with ${what === 'code-server' ? '--port' : '--standin-port'}` : err.message)),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

const WORKSPACE_README = `# Durability Lens demo (against the SQL Server stand-in)

The connection **${STANDIN_PROFILE_NAME}** is already in your user settings. It points at the Durability Lens
**stand-in**: a TDS server written for our tests that models SQL Server's durability behaviour. Its figures are
simulated (every panel says STAND-IN); nothing here is measured on SQL Server.

1. Open \`samples/s1-single-row-inserts.sql\` (10,000 single-row inserts, each its own transaction).
2. Select all (Ctrl+A), then right-click → **Compare Durability** (or F1 → *Durability Lens: Compare Durability*).
3. Choose **Connect** → **${STANDIN_PROFILE_NAME}**; the password is **${STANDIN_PASSWORD}** (user ${STANDIN_USER}).
   VS Code keeps it in its secret storage, never in settings.
4. The comparison switches DELAYED_DURABILITY (DISABLED / FORCED), runs the script in each mode, puts the
   original setting back and shows the table, charts and diagnosis in the *Durability comparison* panel.

Try **Profile batch** above the WHILE loop, and the other samples (S2 test-suite reset, S3 log-flush trace,
S4 forced flush). This folder is a scratch copy: \`npm run demo\` recreates it on every start.

## Who is to blame for a slow commit

The verdict's first line names the cause of the commit time and whether delayed durability is the lever:

- \`samples/c1-commit-per-row.sql\` (connection **${STANDIN_PROFILE_NAME}**): every commit waits for its own small log
  flush — delayed durability is the lever, or batching the commits.
- \`samples/c2-time-elsewhere.sql\` (same connection): the time goes to pauses between batches — delayed durability is
  not the lever.
- \`samples/c3-ag-sync-commit.sql\` (connection **Stand-in (${DEMO_AG_DATABASE})**): the database plays an availability-group
  member whose synchronous secondary takes 5 ms per commit — delayed durability would only end the wait by giving up
  the secondary's copy. Use **Profile**: a comparison refuses availability-group databases.

The Diagnosis tab lists every cause with its evidence.
`;

/** A fresh scratch workspace with the samples (the user may edit them; the repo's copies stay untouched). */
function prepareWorkspace(): void {
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.cpSync(path.join(repoRoot, 'samples'), path.join(workspace, 'samples'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), WORKSPACE_README);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8765' },
      'standin-port': { type: 'string', default: '14333' },
      host: { type: 'string', default: '127.0.0.1' },
      speed: { type: 'string', default: String(DEMO_SPEED_FACTOR) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  const standinPort = Number(values['standin-port']);
  const speedFactor = Number(values.speed);
  if (![port, standinPort].every((p) => Number.isInteger(p) && p > 0 && p < 65536) || !(speedFactor >= 0)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  if (process.platform !== 'linux') {
    // The install (test/e2e/support/install.ts) uses Debian's apt and Chromium; the CLI demo runs anywhere.
    console.error(`npm run demo needs Linux (it installs code-server with Debian's apt); this is ${process.platform}.\n` +
      'Run `npm run demo:cli` for the same comparison from the command line, or install the VSIX (npm run package) in VS Code.');
    process.exitCode = 2;
    return;
  }
  await assertPortFree(port, 'code-server');
  await assertPortFree(standinPort, 'stand-in');

  // The install cache and durability-lens.vsix are shared with e2e runs (other engineers' `npm test`): take turns.
  const release = await acquireE2eLock('demo');
  console.log('demo: checking code-server and its prerequisites (first run: a few minutes)…');
  await ensureAptPackages();
  await ensureCodeServer();
  console.log('demo: building and packaging the extension…');
  const vsix = await buildVsix();
  fs.rmSync(dirs.userData, { recursive: true, force: true });
  fs.rmSync(dirs.extensions, { recursive: true, force: true });
  await installExtension(vsix, dirs);
  release();

  prepareWorkspace();
  const standin = await startE2eStandin({ ...DEMO_STANDIN_OPTIONS, port: standinPort, speedFactor });
  applyDemoCauses(standin.engine.state);
  // A second profile for the availability-group sample (samples/c3-ag-sync-commit.sql).
  const agConnection = { ...standinConnectionSetting(standin.server.port), name: `Stand-in (${DEMO_AG_DATABASE})`, database: DEMO_AG_DATABASE };
  writeUserSettings({
    // The README explains the demo; open it first instead of an empty workbench.
    'workbench.startupEditor': 'readme',
    'durabilityLens.connections': [standinConnectionSetting(standin.server.port), agConnection],
  }, dirs.userData);
  const password = demoPassword(values.host);
  const server = await CodeServer.start(workspace, { dirs, port, host: values.host, ...(password ? { password } : {}) });

  let stopping = false;
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`\ndemo: ${why}; stopping code-server and the stand-in…`);
    await server.stop();
    await standin.close();
    console.log('demo: stopped.');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('Ctrl-C'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  void server.whenExited().then((code) => stop(`code-server exited (${code}); its log is ${path.join(dirs.run, 'code-server.log')}`));

  const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
  const bar = '='.repeat(78);
  console.log(`
${bar}
  Durability Lens demo is running (VS Code in the browser: code-server + the SQL Server stand-in)

  Open:      ${url}${password ? `\n  Log in:    code-server password ${password}   (listening on ${values.host}: anyone on the network needs it)` : ''}
  Connect:   profile "${STANDIN_PROFILE_NAME}" is pre-configured (stand-in on 127.0.0.1:${standin.server.port}, database lab)
  Password:  ${STANDIN_PASSWORD}      (asked once; VS Code keeps it in its secret storage)
  Try:       samples/s1-single-row-inserts.sql → Ctrl+A → right-click → Compare Durability
  Causes:    samples/c1-commit-per-row.sql and samples/c2-time-elsewhere.sql → Profile: two different causes;
             samples/c3-ag-sync-commit.sql on "Stand-in (${DEMO_AG_DATABASE})" → synchronous AG commit

  Figures come from the stand-in's model, not from SQL Server (the panel says STAND-IN).
  Stop:      Ctrl-C (stops code-server and the stand-in)
${bar}
`);
}

main().catch((err: unknown) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
