// `npm run standin -- --port N [--encryption optional|required|loginOnly] [--platform sqlserver|mi|azure-sqldb|hyperscale]
// [--version 2016|2017|2019|2022|2025] [--rtt-ms N] [--speed-factor F]` and the commit-cause switches (causeSwitches.ts): runs the stand-in (model + TDS layer) alone on 127.0.0.1
// and prints how to connect with tedious and FreeTDS. A test instrument, not SQL Server. `--port 0` takes a free port
// (the first line names it); test/unit/ci/givenServer.test.ts runs the integration suite against it this way.
import { parseArgs } from 'node:util';
import { writeCaFile } from './caFile';
import { CAUSE_OPTIONS, CAUSE_PLATFORMS, CAUSE_USAGE, parseCauseSwitches } from './causeSwitches';
import { createStandin } from './model';
import { startStandinServer } from './server';
import type { EncryptionPolicy } from './tds/prelogin';

const USAGE = `usage: npm run standin -- [--port N] [--encryption optional|required|loginOnly] [--platform sqlserver|mi|azure-sqldb|hyperscale] [--version 2016|2017|2019|2022|2025] [--rtt-ms N] [--speed-factor F] [--verbose]
${CAUSE_USAGE}`;
const PLATFORMS = CAUSE_PLATFORMS;
const VERSIONS = ['2016', '2017', '2019', '2022', '2025'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '14333' },
      encryption: { type: 'string', default: 'optional' },
      platform: { type: 'string', default: 'sqlserver' },
      version: { type: 'string', default: '2022' },
      'rtt-ms': { type: 'string', default: '0' },
      // 1 = simulated waits really take their time (default); 0 = accounted, not slept (test/standin/model/state.ts).
      'speed-factor': { type: 'string', default: '1' },
      ...CAUSE_OPTIONS,
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  const encryption = values.encryption as EncryptionPolicy;
  const platform = values.platform as (typeof PLATFORMS)[number];
  const version = values.version as (typeof VERSIONS)[number];
  const rttMs = Number(values['rtt-ms']);
  const speedFactor = Number(values['speed-factor']);
  if (!Number.isFinite(speedFactor) || speedFactor < 0 || !Number.isFinite(rttMs) || rttMs < 0 || !Number.isInteger(port) || port < 0 || port > 65535 || !['optional', 'required', 'loginOnly'].includes(encryption)
    || !PLATFORMS.includes(platform) || !VERSIONS.includes(version)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const causes = parseCauseSwitches(values, platform);
  if (typeof causes === 'string') {
    console.error(`${causes}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const engine = createStandin({ product: causes.product, version: Number(version) as 2016 | 2017 | 2019 | 2022 | 2025, speedFactor });
  causes.apply(engine);
  const server = await startStandinServer({
    engine,
    port,
    tls: { encryption },
    rttMs,
    log: values.verbose ? (message) => console.error(`[stand-in] ${message}`) : undefined,
  });
  // The CA is generated at start; clients that verify certificates need this file (nothing is committed). It goes into
  // a new private folder, never to a predictable /tmp name someone may have planted a symlink at.
  const ca = writeCaFile(server.caPem, server.port);
  const caFile = ca.path;
  console.log(`Durability Lens SQL Server stand-in (a test instrument, not SQL Server) listening on ${server.host}:${server.port}
  login: sa / StandIn-1   database: lab   encryption: ${encryption}   CA certificate: ${caFile}
  plays: ${platform} ${platform === 'sqlserver' ? version : ''} (EngineEdition ${engine.state.engineEdition()})${rttMs > 0 ? `   simulated round trip: ${rttMs} ms per response` : ''}${speedFactor !== 1 ? `   speed factor: ${speedFactor}` : ''}
${causes.describe(engine)}

tedious:
  new Connection({
    server: '${server.host}',
    authentication: { type: 'default', options: { userName: 'sa', password: 'StandIn-1' } },
    options: { port: ${server.port}, database: 'lab', encrypt: true, trustServerCertificate: true },
  })
  (or verify: options.cryptoCredentialsDetails: { ca: fs.readFileSync('${caFile}', 'utf8') }, serverName: 'localhost')

FreeTDS:
  tsql -H ${server.host} -p ${server.port} -U sa -P StandIn-1 -D lab

Ctrl+C stops it.`);
  const stop = (): void => {
    ca.remove();
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`stand-in failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
