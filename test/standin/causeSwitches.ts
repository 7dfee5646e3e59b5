// The stand-in's command-line switches for causes of commit time (issue 29), parsed apart from main.ts:
// `--log-write-latency-ms N`, `--ag-sync-commit-ms N`, `--log-rate-limit-mbps N`, `--log-writer-limit N` and the
// `--platform hyperscale` value. Each switch's rule and its Learn page are in model/commitCauses.ts and MODEL.md.
import type { Standin } from './model';
import { applyCommitCauses } from './model/commitCauses';

export const CAUSE_PLATFORMS = ['sqlserver', 'mi', 'azure-sqldb', 'hyperscale'] as const;
export type CausePlatform = (typeof CAUSE_PLATFORMS)[number];

export const CAUSE_OPTIONS = {
  'log-write-latency-ms': { type: 'string' },
  'ag-sync-commit-ms': { type: 'string' },
  'log-rate-limit-mbps': { type: 'string' },
  'log-writer-limit': { type: 'string' },
} as const;

export const CAUSE_USAGE = `  causes of commit time (issue 29; test/standin/MODEL.md "Commit causes"):
  [--platform hyperscale]      Azure SQL Database Hyperscale (EngineEdition 5, Edition Hyperscale, sys.dm_hs_database_log_rate)
  [--log-write-latency-ms N]   log device write latency (default 0.2)
  [--ag-sync-commit-ms N]      database lab joins an availability group whose secondary takes N ms to harden each commit
  [--log-rate-limit-mbps N]    log generation cap (mi, azure-sqldb: LOG_RATE_GOVERNOR; hyperscale: a page server behind, RBIO_RG_STORAGE)
  [--log-writer-limit N]       log writes the log writer may have outstanding (commits beyond it queue)`;

export interface CauseSwitches {
  /** The product createStandin plays ('hyperscale' is Azure SQL Database with the Hyperscale switch). */
  product: 'sqlserver' | 'mi' | 'azure-sqldb';
  apply(engine: Standin): void;
  /** One line for the banner. */
  describe(engine: Standin): string;
}

type Values = Partial<Record<keyof typeof CAUSE_OPTIONS, string | undefined>>;

/** The switches, or an error sentence (SQL Server has no log-rate governance to model). */
export function parseCauseSwitches(values: Values, platform: CausePlatform): CauseSwitches | string {
  const positive = (v: string | undefined): number | null | undefined => {
    if (v === undefined) return null;
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? n : undefined;
  };
  const latency = positive(values['log-write-latency-ms']);
  const agMs = positive(values['ag-sync-commit-ms']);
  const rate = positive(values['log-rate-limit-mbps']);
  const writerLimit = positive(values['log-writer-limit']);
  if ([latency, agMs, rate, writerLimit].includes(undefined)) return 'the cause switches take a positive number';
  if (writerLimit !== null && !Number.isInteger(writerLimit)) return '--log-writer-limit takes a whole number of writes';
  // Learn documents log-rate governance for Azure SQL ("Transaction log rate governance"); SQL Server has none.
  if (rate !== null && platform === 'sqlserver') return '--log-rate-limit-mbps needs --platform mi, azure-sqldb or hyperscale (SQL Server does not govern log generation)';
  return {
    product: platform === 'hyperscale' ? 'azure-sqldb' : platform,
    apply(engine) {
      if (latency !== null) engine.setDeviceLatency({ logWriteMs: latency! });
      applyCommitCauses(engine.state, { agSyncCommitMs: agMs ?? null, logRateLimitMbps: rate ?? null, hyperscale: platform === 'hyperscale', logWriterOutstandingLimit: writerLimit ?? null });
    },
    describe(engine) {
      const parts = [`log write ${engine.state.options.logWriteLatencyMs} ms`, agMs ? `AG secondary hardens in ${agMs} ms (lab)` : null, rate ? `log-rate cap ${rate} MB/s` : null, writerLimit ? `log writer limit ${writerLimit}` : null];
      return `  commit causes: ${parts.filter((p) => p).join(', ')}`;
    },
  };
}
