// What a durability comparison will do, decided before anything changes: the run order (alternating so drift does
// not favour one mode), the setup/measured split of the script, and the plan the UI/CLI asks the user to confirm.
import type { SqlClient } from '../db/types';
import { captureDatabaseInfo, captureServerIdentity, grantContextOf, preflightPermissions, requireMeasured, valueOf, type DatabaseInfo, type GrantContext, type PreflightResult } from '../probes';
import type { ServerPlatform } from '../probes/serverInfo';
import { DATA_LOSS_CAVEAT, alterDurabilitySql } from './durabilityGuard';
import { figureSourceOf, readTargetDatabase } from './profileRun';
import type { DurabilityMode, FigureSource } from './types';
import { oneLineField } from '../shared/visibleText';
import { sessionScopeOf, type SessionScope } from '../xe';

export interface PlannedRun {
  mode: DurabilityMode;
  /** 0-based repetition of this mode; warm-up runs have repetition -1. */
  repetition: number;
  warmup: boolean;
}

/**
 * Repetition r runs the modes in order when r is even and reversed when odd (A B, B A, A B …), so a slow drift
 * (cache warming, log growth) lands on each mode equally. The warm-up runs the first mode once, not counted.
 */
export function runOrder(modes: readonly DurabilityMode[], repetitions: number, warmup: boolean): PlannedRun[] {
  if (modes.length === 0) throw new RangeError('At least one mode is needed.');
  if (!Number.isInteger(repetitions) || repetitions < 1) throw new RangeError('Repetitions must be a whole number ≥ 1.');
  const out: PlannedRun[] = [];
  if (warmup) out.push({ mode: modes[0]!, repetition: -1, warmup: true });
  for (let r = 0; r < repetitions; r++) {
    const ordered = r % 2 === 0 ? modes : [...modes].reverse();
    for (const mode of ordered) out.push({ mode, repetition: r, warmup: false });
  }
  return out;
}

export { SETUP_END_MARKER, splitSetup, type SplitScript } from './setupMarkers';

export interface PlanIssue {
  code: 'in-use' | 'system-database' | 'cdc' | 'replication' | 'merge-replication' | 'change-tracking' | 'availability-group' | 'platform-replicas' | 'not-online' | 'no-alter-permission' | 'allowed-without-delayed-commits' | 'nothing-to-measure' | 'too-many-connections';
  message: string;
}

export interface ComparisonPlan {
  server: string;
  serverVersion: string;
  source: FigureSource;
  database: string;
  databaseId: number;
  currentSetting: DurabilityMode;
  modes: DurabilityMode[];
  repetitions: number;
  warmup: boolean;
  order: PlannedRun[];
  /** Every ALTER the comparison may run, the restore last. */
  statements: string[];
  restoreStatement: string;
  dataLossCaveat: string;
  /** Any refusal means the comparison will not run. */
  refusals: PlanIssue[];
  warnings: PlanIssue[];
  canProceed: boolean;
  /** The GRANT that would allow the toggle, when ALTER is missing. */
  grant: string | null;
  /** A concurrency sweep's session levels (the order runs once per level); absent for one session. */
  sessions?: number[];
  /**
   * Where each run's log-flush event session is created (and dropped after the run): ON SERVER, or ON DATABASE on
   * Azure SQL Database. Absent when the runs are not traced (and in comparison files written before it was shown).
   */
  eventSession?: SessionScope;
}

export interface PlanOptions {
  server: string;
  modes?: DurabilityMode[];
  repetitions?: number;
  warmup?: boolean;
  /** Whether the measured batches contain COMMIT ... WITH (DELAYED_DURABILITY = ON) (from analyze()). */
  workloadHasDelayedCommits?: boolean;
  measuredBatchCount?: number;
  /** Availability-group members are refused unless the user accepts the caveat explicitly. */
  allowAvailabilityGroup?: boolean;
  /** Whether each run traces log flushes with an event session (default true; the plan then says where it is created). */
  traced?: boolean;
  /** SERVERPROPERTY('ProductVersion'), e.g. "15.0.4312.2": decides whether enabling delayed durability raises 22892. */
  serverVersion?: string;
  /** SERVERPROPERTY('ProductUpdateLevel'), e.g. "CU20". */
  updateLevel?: string | null;
  platform?: ServerPlatform;
}

/**
 * "Starting in SQL Server 2022 CU2 and SQL Server 2019 CU20", enabling delayed durability on a database with
 * transactional replication, change tracking or change data capture raises error 22892 (Control Transaction
 * Durability, "Delayed durability and other SQL Server features":
 * https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability). Builds from the KB
 * build lists: 2019 CU20 = 15.0.4312.2 (KB5024276), 2022 CU2 = 16.0.4015.1 (KB5023127); or the CU number
 * SERVERPROPERTY('ProductUpdateLevel') reports ("CU20"; serverproperty-transact-sql). Azure SQL Database and Managed
 * Instance run current builds. An unreadable version is treated as raising: refusing up front costs less than
 * failing at the first ALTER.
 */
export function raises22892(serverVersion: string | undefined, platform: ServerPlatform | undefined, updateLevel?: string | null): boolean {
  if (platform && platform !== 'sql-server') return true;
  const cu = /^CU(\d+)/i.exec(updateLevel ?? '');
  const majorOfVersion = Number((serverVersion ?? '').split('.')[0]);
  if (cu && majorOfVersion === 15 && Number(cu[1]) >= 20) return true;
  if (cu && majorOfVersion === 16 && Number(cu[1]) >= 2) return true;
  const parts = (serverVersion ?? '').split('.').map((x) => Number(x));
  const [major, , build] = parts;
  if (major === undefined || build === undefined || !Number.isFinite(major) || !Number.isFinite(build)) return true;
  if (major >= 17) return true;
  if (major === 16) return build >= 4015;
  if (major === 15) return build >= 4312;
  return false;
}

export const SYSTEM_DATABASES = ['master', 'tempdb', 'model', 'msdb'];

/** Pure rules: what refuses or warns for this database (tests drive it with crafted DatabaseInfo). */
export function evaluatePlanIssues(db: DatabaseInfo, preflight: PreflightResult | null, options: PlanOptions): { refusals: PlanIssue[]; warnings: PlanIssue[]; grant: string | null } {
  const refusals: PlanIssue[] = [];
  const warnings: PlanIssue[] = [];
  const modes = options.modes ?? ['DISABLED', 'FORCED'];
  if (SYSTEM_DATABASES.includes(db.name.toLowerCase())) {
    refusals.push({ code: 'system-database', message: `${db.name} is a system database: Durability Lens never changes its settings. Run the workload in a user database.` });
  }
  if (db.state && db.state.toUpperCase() !== 'ONLINE') {
    refusals.push({ code: 'not-online', message: `${db.name} is ${db.state}, not ONLINE.` });
  }
  const errors22892 = raises22892(options.serverVersion, options.platform, options.updateLevel);
  const whenEnabling = errors22892 ? ' This server raises error 22892 when delayed durability is enabled on such a database (SQL Server 2019 CU20+, 2022 CU2+, Azure), so the first ALTER would fail.' : '';
  if (db.cdcEnabled) {
    refusals.push({ code: 'cdc', message: `Change data capture is enabled on ${db.name} (sys.databases.is_cdc_enabled); delayed durability is not supported for databases using CDC (Learn: Control Transaction Durability).${whenEnabling}` });
  }
  if (db.published) {
    refusals.push({ code: 'replication', message: `${db.name} is published for replication (sys.databases.is_published); delayed durability is not supported with transactional replication (Learn: Control Transaction Durability).${whenEnabling}` });
  }
  if (db.mergePublished) {
    warnings.push({ code: 'merge-replication', message: `${db.name} is published for merge replication (sys.databases.is_merge_published). The Control Transaction Durability page names transactional replication, change tracking and CDC, not merge; if the ALTER fails, that is why.` });
  }
  const tracked = valueOf(db.changeTracking);
  if (tracked === true && errors22892) {
    refusals.push({ code: 'change-tracking', message: `Change tracking is on for ${db.name} (sys.change_tracking_databases).${whenEnabling} Disable change tracking in a copy of the database to compare.` });
  } else if (tracked === true) {
    warnings.push({ code: 'change-tracking', message: `Change tracking is on for ${db.name}: transactions that write to change-tracked tables are always fully durable, so those show no difference.` });
  } else if (tracked === null && errors22892) {
    warnings.push({ code: 'change-tracking', message: `Whether change tracking is on for ${db.name} could not be read (sys.change_tracking_databases); if it is, the first ALTER fails with error 22892.` });
  }
  if (db.inAvailabilityGroup) {
    const issue: PlanIssue = {
      code: 'availability-group',
      message: `${db.name} is in an availability group: delayed durable commits have no durability guarantee on the primary or any secondary, and control returns before a synchronous secondary acknowledges.`,
    };
    if (options.allowAvailabilityGroup) warnings.push(issue);
    else refusals.push(issue);
  } else if (db.platformReplicated) {
    // Azure SQL Database / Managed Instance carry group_database_id for the platform's own replicas (sys.databases
    // page; issue 33 D3): not a user availability group, so no refusal — but a failover there can lose delayed commits.
    warnings.push({
      code: 'platform-replicas',
      message: `${db.name} is replicated by the platform (sys.databases.group_database_id is set on Azure SQL Database / Managed Instance): a delayed durable commit not yet flushed when a failover happens is lost, as on any server.`,
    });
  }
  let grant: string | null = null;
  const alterMissing = preflight?.missing.find((m) => m.measurement === 'durabilityToggle');
  if (alterMissing) {
    grant = alterMissing.grant;
    refusals.push({ code: 'no-alter-permission', message: `The login lacks ALTER on ${db.name}, which switching DELAYED_DURABILITY needs. Ask for: ${alterMissing.grant}` });
  }
  if (modes.includes('ALLOWED') && options.workloadHasDelayedCommits === false) {
    warnings.push({ code: 'allowed-without-delayed-commits', message: 'ALLOWED only delays commits written WITH (DELAYED_DURABILITY = ON); this workload has none, so ALLOWED will behave like DISABLED.' });
  }
  if (options.measuredBatchCount === 0) {
    refusals.push({ code: 'nothing-to-measure', message: 'Every batch is setup: nothing is left to measure after the setup-end marker.' });
  }
  return { refusals, warnings, grant };
}

/** The plan plus the login/user/version it was made for (the comparison builds GRANT advice from it). */
export interface PreparedPlan {
  plan: ComparisonPlan;
  grantContext: GrantContext;
}

/** Reads server, database and permissions from the MONITOR connection and describes the comparison. Changes nothing. */
export async function preparePlan(monitor: SqlClient, options: PlanOptions): Promise<PreparedPlan> {
  const modes = [...new Set(options.modes ?? (['DISABLED', 'FORCED'] as DurabilityMode[]))];
  const repetitions = options.repetitions ?? 3;
  const warmup = options.warmup ?? true;
  const identity = await captureServerIdentity(monitor);
  const target = await readTargetDatabase(monitor);
  const ctx = grantContextOf(identity, target.databaseName);
  // The plan cannot be made without the database's settings: not measured ends here, with its reason.
  const db = requireMeasured(await captureDatabaseInfo(monitor, target.databaseId, ctx));
  let preflight: PreflightResult | null = null;
  try {
    preflight = await preflightPermissions(monitor, ctx);
  } catch {
    preflight = null; // the ALTER itself will then say whether it is allowed
  }
  const { refusals, warnings, grant } = evaluatePlanIssues(db, preflight, { serverVersion: identity.productVersion, updateLevel: identity.productUpdateLevel ?? null, platform: identity.platform, ...options, modes });
  const restoreStatement = alterDurabilitySql(db.name, db.delayedDurability);
  const plan: ComparisonPlan = {
    server: options.server,
    serverVersion: identity.versionText,
    source: figureSourceOf(identity.versionText),
    database: db.name,
    databaseId: db.databaseId,
    currentSetting: db.delayedDurability,
    modes,
    repetitions,
    warmup,
    order: runOrder(modes, repetitions, warmup),
    statements: [...modes.map((m) => alterDurabilitySql(db.name, m)), restoreStatement],
    restoreStatement,
    dataLossCaveat: DATA_LOSS_CAVEAT,
    refusals,
    warnings,
    canProceed: refusals.length === 0,
    grant,
    // The runs skip the trace, as this plan does, when it is off or the login may not create event sessions (runTraces.ts).
    eventSession: options.traced === false || preflight?.missing.some((m) => m.measurement === 'extendedEvents') ? undefined : sessionScopeOf(identity.engineEdition),
  };
  return { plan, grantContext: ctx };
}

/** The sentence that tells the user each run creates an event session of ours, and where. */
export function eventSessionLine(scope: SessionScope): string {
  return `Trace:    each run creates an Extended Events session ON ${scope === 'database' ? 'DATABASE' : 'SERVER'} (durability_lens_…, log flushes only), starts, reads, stops and drops it; recovery drops one a killed run left.`;
}

/** The plan as plain text for the CLI (and the UI's confirmation dialog body). */
export function describePlan(plan: ComparisonPlan): string {
  const lines = [
    `Server:   ${oneLineField(plan.server)}${plan.source === 'stand-in' ? ' (Durability Lens stand-in, not a real SQL Server)' : ''}`,
    `Database: ${oneLineField(plan.database)} (DELAYED_DURABILITY is ${plan.currentSetting} now)`,
    `Modes:    ${plan.modes.join(', ')} × ${plan.repetitions}${plan.warmup ? ' + 1 warm-up run' : ''}`,
    `Order:    ${plan.order.map((r) => (r.warmup ? `(${r.mode} warm-up)` : r.mode)).join(' ')}`,
    ...(plan.sessions && plan.sessions.length > 0
      ? [`Sessions: ${plan.sessions.join(', ')} — the order above runs once per level (${plan.order.length * plan.sessions.length} runs in all), each run on that many workload connections released together (up to ${Math.max(...plan.sessions)} sessions at once, besides the monitor connection); the ALTERs below repeat for each level`]
      : []),
    // A refused plan sends nothing, and its "current" setting may be another comparison's FORCED: no restore to promise.
    ...(plan.canProceed
      ? ['Statements that will run (from the monitor connection):', ...plan.statements.map((s) => `  ${oneLineField(s)}`), `Afterwards the database is set back to ${plan.currentSetting} and verified.`]
      : ['Statements: none is sent — the comparison is refused (see "Refused" below).']),
    ...(plan.canProceed && plan.eventSession ? [eventSessionLine(plan.eventSession)] : []),
    `Caveat:   ${plan.dataLossCaveat}`,
  ];
  for (const w of plan.warnings) lines.push(`Warning:  ${oneLineField(w.message)}`);
  for (const r of plan.refusals) lines.push(`Refused:  ${oneLineField(r.message)}`);
  return lines.join('\n');
}
