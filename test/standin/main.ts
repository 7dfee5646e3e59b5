// `npm run standin -- --port N [--encryption optional|required|loginOnly] [--platform sqlserver|mi|azure-sqldb|hyperscale]
// [--version 2019|2022|2025] [--rtt-ms N] [--log-write-latency-ms N] [--ag-sync-commit-ms N] [--log-rate-limit-mbps N]
// [--log-writer-limit N]`: runs the stand-in (model + TDS
// layer) alone on 127.0.0.1 and prints how to connect with tedious and FreeTDS. A test instrument, not SQL Server.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createStandin } from './model';
import { applyCommitCauses } from './model/commitCauses';
import { startStandinServer } from './server';
import type { EncryptionPolicy } from './tds/prelogin';

const USAGE = `usage: npm run standin -- [--port N] [--encryption optional|required|loginOnly] [--platform sqlserver|mi|azure-sqldb|hyperscale] [--version 2019|2022|2025] [--rtt-ms N] [--verbose]
  causes of commit time (issue 29; test/standin/MODEL.md "Commit causes"):
  [--log-write-latency-ms N]   log device write latency (default 0.2)
  [--ag-sync-commit-ms N]      database lab joins an availability group whose secondary takes N ms to harden each commit
  [--log-rate-limit-mbps N]    log generation cap (mi, azure-sqldb: LOG_RATE_GOVERNOR; hyperscale: a page server behind, RBIO_RG_STORAGE)
  [--log-writer-limit N]       log writes the log writer may have outstanding (commits beyond it queue)`;
const PLATFORMS = ['sqlserver', 'mi', 'azure-sqldb', 'hyperscale'] as const;
const VERSIONS = ['2019', '2022', '2025'] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '14333' },
      encryption: { type: 'string', default: 'optional' },
      platform: { type: 'string', default: 'sqlserver' },
      version: { type: 'string', default: '2022' },
      'rtt-ms': { type: 'string', default: '0' },
      'log-write-latency-ms': { type: 'string' },
      'ag-sync-commit-ms': { type: 'string' },
      'log-rate-limit-mbps': { type: 'string' },
      'log-writer-limit': { type: 'string' },
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
  if (!Number.isFinite(rttMs) || rttMs < 0 ||!Number.isInteger(port) || port < 0 || port > 65535 || !['optional', 'required', 'loginOnly'].includes(encryption)
    || !PLATFORMS.includes(platform) || !VERSIONS.includes(version)) {
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  const positive = (v: string | undefined): number | null | 'bad' => {
    if (v === undefined) return null;
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? n : 'bad';
  };
  const latency = positive(values['log-write-latency-ms']);
  const agMs = positive(values['ag-sync-commit-ms']);
  const rate = positive(values['log-rate-limit-mbps']);
  const writerLimit = positive(values['log-writer-limit']);
  // Log-rate governance is Azure SQL's ("Transaction log rate governance"); SQL Server has none to model.
  if ([latency, agMs, rate, writerLimit].includes('bad') || (rate !== null && platform === 'sqlserver') || (writerLimit !== null && !Number.isInteger(writerLimit))) {
    console.error(rate !== null && platform === 'sqlserver' ? `--log-rate-limit-mbps needs --platform mi, azure-sqldb or hyperscale (SQL Server does not govern log generation)\n${USAGE}` : USAGE);
    process.exitCode = 2;
    return;
  }
  const product = platform === 'hyperscale' ? 'azure-sqldb' : platform;
  const engine = createStandin({ product, version: Number(version) as 2019 | 2022 | 2025 });
  if (latency !== null) engine.setDeviceLatency({ logWriteMs: latency as number });
  applyCommitCauses(engine.state, { agSyncCommitMs: agMs as number | null, logRateLimitMbps: rate as number | null, hyperscale: platform === 'hyperscale', logWriterOutstandingLimit: writerLimit as number | null });
  const server = await startStandinServer({
    engine,
    port,
    tls: { encryption },
    rttMs,
    log: values.verbose ? (message) => console.error(`[stand-in] ${message}`) : undefined,
  });
  // The CA is generated at start; clients that verify certificates need this file (nothing is committed).
  const caFile = join(tmpdir(), `durability-lens-standin-ca-${server.port}.pem`);
  writeFileSync(caFile, server.caPem);
  console.log(`Durability Lens SQL Server stand-in (a test instrument, not SQL Server) listening on ${server.host}:${server.port}
  login: sa / StandIn-1   database: lab   encryption: ${encryption}   CA certificate: ${caFile}
  plays: ${platform} ${platform === 'sqlserver' ? version : ''} (EngineEdition ${engine.state.engineEdition()})${rttMs > 0 ? `   simulated round trip: ${rttMs} ms per response` : ''}
  commit causes: log write ${engine.state.options.logWriteLatencyMs} ms${agMs !== null ? `, AG secondary harden ${agMs} ms (lab)` : ''}${rate !== null ? `, log-rate cap ${rate} MB/s` : ''}${writerLimit !== null ? `, log writer limit ${writerLimit}` : ''}

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
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`stand-in failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
