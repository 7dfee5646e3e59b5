// The readiness check behind `durability-lens doctor` and "Durability Lens: Check Server Readiness": every probe runs
// once, read-only, and the report says per probe what it reads, whether it worked (ok / denied / not supported /
// empty), how many rows it saw and the exact GRANT — plus platform, version, edition, encryption and which features
// (profile, compare, trace) will work. Nothing is created or changed: no event session, no ALTER, no table.
import type { SqlClient, SqlSession } from '../db/types';
import {
  captureDatabaseInfo,
  captureFileStats,
  captureInFlightWaits,
  captureLogCounters,
  captureLogSpace,
  captureLogStats,
  captureServerIdentity,
  captureServerInfo,
  captureServerWaits,
  captureSessionWaits,
  captureVlfCount,
  captureVolumes,
  flushTraceFlagState,
  grantContextOf,
  grantStatement,
  MEASUREMENT_LABELS,
  notApplicable,
  platformRules,
  PLATFORM_LABELS,
  preflightPermissions,
  readCounterInstance,
  sessionVisibility,
  valueOf,
  type Measurement,
  type MeasurementName,
  type PreflightResult,
  type ServerPlatform,
} from '../probes';
import { evaluatePlanIssues } from './plan';
import { readTargetDatabase } from './profileRun';
import { oneLineField } from '../shared/visibleText';

export const READINESS_SCHEMA_VERSION = 1 as const;

/** ok: read, rows seen · denied: a permission is missing · not supported: not on this version/platform · empty: no rows where rows must exist. */
export type ProbeStatus = 'ok' | 'denied' | 'not supported' | 'empty' | 'not applicable' | 'error';

export interface ProbeReadiness {
  id: MeasurementName;
  /** What the probe reads (DMV / catalog view / statement). */
  reads: string;
  status: ProbeStatus;
  /** Rows the probe saw; null where a row count means nothing (a permission check, an error). */
  rows: number | null;
  /** The GRANT (or role membership) that fixes a denied or empty probe; null when none is needed or none helps. */
  grant: string | null;
  /** Why it is not ok (server error text, what was empty); null when ok. */
  reason: string | null;
}

export interface FeatureReadiness {
  works: boolean;
  /** What limits it: missing figures, refusals, platform caveats. */
  notes: string[];
}

export interface ReadinessReport {
  schemaVersion: typeof READINESS_SCHEMA_VERSION;
  server: {
    name: string | null;
    platform: ServerPlatform;
    platformLabel: string;
    version: string;
    majorVersion: number;
    edition: string;
    engineEdition: number;
    hostPlatform: string | null;
    /** "on (global)", "off", "not set (Linux default behaviour applies)", "unknown (not readable)". */
    traceFlag3979: string;
    traceFlag3982: string;
    standIn: boolean;
  };
  login: string;
  user: string;
  database: string;
  encryption: { encrypted: boolean | null; evidence: 'server' | 'client' | null };
  probes: ProbeReadiness[];
  features: { profile: FeatureReadiness; compare: FeatureReadiness; trace: FeatureReadiness };
  /** Every GRANT the report names, de-duplicated, ready to copy. */
  grantScript: string;
}

export interface ReadinessOptions {
  /** @@SPID of a second (workload) connection: proves whether other sessions' waits are visible. */
  workloadSpid?: number | null;
  /**
   * The second connection itself: it first waits 10 ms (WAITFOR DELAY, a wait and nothing else — read-only), so it has
   * a row in sys.dm_exec_session_wait_stats for certain, and a row missing then proves the session is invisible to
   * this login (issue 33 D9: "ok, 0 rows" used to be reported for an invisible session).
   */
  workload?: Pick<SqlSession, 'spid' | 'execute'>;
  encryption?: { encrypted: boolean | null; evidence: 'server' | 'client' | null };
}

function statusOf(m: Measurement<unknown>): ProbeStatus {
  if (m.status === 'ok') return 'ok';
  switch (m.cause) {
    case 'permission':
      return 'denied';
    case 'not-supported':
      return 'not supported';
    case 'empty':
      return 'empty';
    case 'not-applicable':
      return 'not applicable';
    default:
      return 'error';
  }
}

function rowsOf(value: unknown): number | null {
  if (Array.isArray(value)) return value.length;
  if (value === null || value === undefined) return 0;
  return 1;
}

function probe(id: MeasurementName, m: Measurement<unknown>, reads: string = MEASUREMENT_LABELS[id]): ProbeReadiness {
  if (m.status === 'ok') return { id, reads, status: 'ok', rows: rowsOf(m.value), grant: null, reason: null };
  return { id, reads, status: statusOf(m), rows: m.cause === 'empty' ? 0 : null, grant: m.grant, reason: m.reason };
}

/** A permission-only probe (creating an event session or running ALTER would change the server, so it is not tried). */
function permissionProbe(id: MeasurementName, preflight: PreflightResult | null, reads: string): ProbeReadiness {
  if (!preflight) return { id, reads, status: 'error', rows: null, grant: null, reason: 'The permission check (HAS_PERMS_BY_NAME) could not run.' };
  const missing = preflight.missing.find((m) => m.measurement === id);
  if (!missing) return { id, reads, status: 'ok', rows: null, grant: null, reason: null };
  const check = preflight.checks.find((c) => c.neededFor.includes(id) && c.held !== true);
  const reason =
    check?.held === null
      ? `${check.permission} could not be confirmed from this connection (checked, not tried: nothing is created or changed).`
      : `The login lacks ${check?.permission ?? 'a permission'} (checked with HAS_PERMS_BY_NAME, not tried: nothing is created or changed).`;
  return { id, reads, status: 'denied', rows: null, grant: missing.grant, reason };
}

/**
 * The second session's waits, with visibility proven where possible: after its WAITFOR the session has a WAITFOR row
 * whenever this login can see it, so no rows then is "empty" (invisible) with the GRANT — whatever HAS_PERMS_BY_NAME
 * said (a permission check can pass where the rows are still filtered, e.g. Azure SQL Database's small tiers).
 * WAITFOR: https://learn.microsoft.com/sql/t-sql/language-elements/waitfor-transact-sql ("WAITFOR" wait type,
 * sys-dm-os-wait-stats-transact-sql).
 */
export async function otherSessionWaits(monitor: SqlClient, spid: number, ctx: ReturnType<typeof grantContextOf>, workload: ReadinessOptions['workload']): Promise<Measurement<unknown>> {
  let waited = false;
  if (workload) {
    try {
      await workload.execute(PROVE_VISIBILITY_SQL);
      waited = true;
    } catch {
      waited = false; // the probe below still runs; without the proof 0 rows stays "not proven"
    }
  }
  const m = await captureSessionWaits(monitor, spid, ctx);
  if (m.status !== 'ok' || m.value.length > 0) return m;
  const visibility = sessionVisibility(ctx);
  if (waited) {
    return {
      status: 'unavailable',
      measurement: 'sessionWaits',
      cause: 'empty',
      reason: `The second session (${spid}) waited (WAITFOR DELAY) but sys.dm_exec_session_wait_stats shows it no row: this login cannot see other sessions' waits, so a run's session waits would not be measured.`,
      grant: grantStatement(visibility, ctx),
      required: visibility,
      errorNumber: null,
    };
  }
  return { status: 'unavailable', measurement: 'sessionWaits', cause: 'error', reason: `The second session (${spid}) shows no waits yet, so whether its waits are visible is not proven.`, grant: null, errorNumber: null };
}

/** A 10 ms wait on the second session: a WAITFOR row in its waits, nothing changed. */
export const PROVE_VISIBILITY_SQL = `WAITFOR DELAY '00:00:00.010';`;

/** Runs every probe once on `monitor` (already in the target database). Read-only. */
export async function checkReadiness(monitor: SqlClient, options: ReadinessOptions = {}): Promise<ReadinessReport> {
  const identity = await captureServerIdentity(monitor);
  const target = await readTargetDatabase(monitor);
  const ctx = grantContextOf(identity, target.databaseName);
  const inTargetDb = true; // readTargetDatabase reads DB_ID() of the monitor connection itself
  const server = await captureServerInfo(monitor, identity, ctx);
  const database = await captureDatabaseInfo(monitor, target.databaseId, ctx);
  const db = valueOf(database);
  let preflight: PreflightResult | null = null;
  try {
    preflight = await preflightPermissions(monitor, ctx);
  } catch {
    preflight = null;
  }
  const otherSpid = options.workload?.spid ?? options.workloadSpid ?? null;
  const sessionWaits = otherSpid === null ? notApplicable<unknown>('sessionWaits', 'No second session to look at (run with a workload connection to prove visibility).') : await otherSessionWaits(monitor, otherSpid, ctx, options.workload);

  const probes: ProbeReadiness[] = [
    probe('startTime', server.startTime, 'sys.dm_os_sys_info (sqlserver_start_time, restart detection)'),
    probe('hostInfo', server.host, 'sys.dm_os_host_info (host platform)'),
    probe('traceFlags', server.traceFlags, 'DBCC TRACESTATUS(-1) (global trace flags)'),
    probe('databaseInfo', database, 'sys.databases (DELAYED_DURABILITY, recovery model, CDC, replication, AG)'),
    probe('changeTracking', db ? db.changeTracking : notApplicable('changeTracking', 'sys.databases was not readable.'), 'sys.change_tracking_databases'),
    probe('fileStats', await captureFileStats(monitor, target.databaseId, inTargetDb, ctx), 'sys.dm_io_virtual_file_stats joined to sys.database_files'),
    probe(
      'volumes',
      identity.isAzureSqlDatabase ? notApplicable('volumes', 'sys.dm_os_volume_stats applies to SQL Server only.') : await captureVolumes(monitor, target.databaseId, inTargetDb, ctx),
      'sys.dm_os_volume_stats over sys.database_files',
    ),
    probe('waitStats', await captureServerWaits(monitor, ctx), 'sys.dm_os_wait_stats'),
    probe('sessionWaits', sessionWaits, "sys.dm_exec_session_wait_stats (another session's waits)"),
    probe(
      'inFlightWaits',
      otherSpid === null ? notApplicable('inFlightWaits', 'No second session to look at.') : await captureInFlightWaits(monitor, otherSpid, ctx),
      'sys.dm_exec_requests + sys.dm_os_waiting_tasks (sampling)',
    ),
    probe(
      'perfCounters',
      await captureLogCounters(monitor, await readCounterInstance(monitor, target.databaseId, target.databaseName, identity.platform), ctx),
      "sys.dm_os_performance_counters (SQLServer:Databases, this database's instance)",
    ),
    probe('logStats', await captureLogStats(monitor, target.databaseId, ctx), 'sys.dm_db_log_stats'),
    probe('logSpace', await captureLogSpace(monitor, ctx), 'sys.dm_db_log_space_usage'),
    probe('vlfs', await captureVlfCount(monitor, target.databaseId, inTargetDb, ctx), 'sys.dm_db_log_info (VLF count)'),
    permissionProbe('extendedEvents', preflight, identity.isAzureSqlDatabase ? 'CREATE EVENT SESSION … ON DATABASE (permission checked, not created)' : 'CREATE EVENT SESSION … ON SERVER (permission checked, not created)'),
    permissionProbe('durabilityToggle', preflight, 'ALTER DATABASE … SET DELAYED_DURABILITY (permission checked, not run)'),
  ];
  // A denied probe may also show up in the preflight with a more precise GRANT (e.g. the Azure role): keep the probe's.
  for (const p of probes) {
    if (p.status !== 'ok' || !preflight) continue;
    const unconfirmed = preflight.missing.find((m) => m.measurement === p.id);
    const check = preflight.checks.find((c) => c.neededFor.includes(p.id) && c.held === null && c.scope === 'server-role');
    if (unconfirmed && check) p.reason = `Read now; ${check.permission} could not be confirmed, which some service objectives require.`;
  }

  const byId = new Map(probes.map((p) => [p.id, p]));
  const notOk = (ids: MeasurementName[]) => ids.map((id) => byId.get(id)!).filter((p) => p.status !== 'ok' && p.status !== 'not applicable');
  const rules = platformRules(identity.platform);

  const profileGaps = notOk(['fileStats', 'sessionWaits', 'perfCounters', 'waitStats', 'logStats', 'logSpace', 'vlfs', 'startTime']);
  const profile: FeatureReadiness = {
    works: true,
    notes: profileGaps.length === 0 ? [] : [`Runs, but these figures will read "not measured": ${profileGaps.map((p) => MEASUREMENT_LABELS[p.id]).join('; ')}.`],
  };

  const compareNotes: string[] = [];
  let compareWorks = db !== null;
  if (db) {
    const { refusals, warnings } = evaluatePlanIssues(db, preflight, { server: identity.serverName ?? '', serverVersion: identity.productVersion, updateLevel: identity.productUpdateLevel ?? null, platform: identity.platform });
    if (refusals.length > 0) compareWorks = false;
    compareNotes.push(...refusals.map((r) => `Refused: ${r.message}`), ...warnings.map((w) => `Warning: ${w.message}`));
  } else {
    compareNotes.push('sys.databases did not show the database, so the comparison cannot be planned.');
  }
  if (profileGaps.length > 0) compareNotes.push('Each run has the same "not measured" figures as a profile.');

  const xe = byId.get('extendedEvents')!;
  const traceNotes: string[] = [];
  if (xe.status !== 'ok') traceNotes.push(`No log-flush trace: ${xe.reason ?? 'the login may not create event sessions.'}`);
  if (rules.eventFileNeedsBlobUrl) traceNotes.push(`${PLATFORM_LABELS[identity.platform]}: an event_file target needs an https Azure Blob Storage URL (a local path or a wildcard fails with 40538); the ring_buffer target needs nothing.`);
  if (rules.databaseScopedSessions) traceNotes.push('Azure SQL Database: database-scoped sessions only see events "in the context of a user database"; log-flush events may never arrive — an empty trace is reported as such.');

  const f3979 = flushTraceFlagState(server, 3979).text;
  const f3982 = flushTraceFlagState(server, 3982).text;
  const grants = [...new Set(probes.map((p) => p.grant).filter((g): g is string => !!g))];
  return {
    schemaVersion: READINESS_SCHEMA_VERSION,
    server: {
      name: identity.serverName,
      platform: identity.platform,
      platformLabel: PLATFORM_LABELS[identity.platform],
      version: identity.productVersion,
      majorVersion: identity.majorVersion,
      edition: identity.edition,
      engineEdition: identity.engineEdition,
      hostPlatform: valueOf(server.host)?.platform ?? null,
      traceFlag3979: f3979,
      traceFlag3982: f3982,
      standIn: /durability lens stand-in/i.test(identity.versionText),
    },
    login: identity.loginName,
    user: identity.userName,
    database: target.databaseName,
    encryption: options.encryption ?? { encrypted: null, evidence: null },
    probes,
    features: { profile, compare: { works: compareWorks, notes: compareNotes }, trace: { works: xe.status === 'ok', notes: traceNotes } },
    grantScript: grants.join('\n\n'),
  };
}

/** The report as text for the CLI and the output channel (what a user pastes into a bug report). */
export function describeReadiness(r: ReadinessReport): string {
  const yes = (f: FeatureReadiness) => (f.works ? (f.notes.length > 0 ? 'works, with limits' : 'works') : 'will not work');
  const lines = [
    `Server:     ${oneLineField(r.server.name ?? 'unknown')} — ${r.server.platformLabel}${r.server.standIn ? ' (Durability Lens stand-in, not a real SQL Server)' : ''}`,
    `Version:    ${r.server.version} (major ${r.server.majorVersion}), ${r.server.edition} (EngineEdition ${r.server.engineEdition})${r.server.hostPlatform ? ` on ${r.server.hostPlatform}` : ''}`,
    `Encryption: ${r.encryption.encrypted === null ? 'not requested' : r.encryption.encrypted ? `encrypted (${r.encryption.evidence === 'server' ? 'confirmed by sys.dm_exec_connections' : 'TLS handshake seen; the server could not be asked'})` : 'not encrypted'}`,
    `Login:      ${oneLineField(r.login)} (user ${oneLineField(r.user)}) in database ${oneLineField(r.database)}`,
    `Trace flags: 3979 ${r.server.traceFlag3979}, 3982 ${r.server.traceFlag3982}`,
    '',
    'Probes (each run once, read-only):',
  ];
  // Each probe by what it reads, never by its internal id (issue 28: no internal identifiers in user text; the JSON keeps the id).
  const width = 14;
  for (const p of r.probes) {
    lines.push(`  ${p.status.padEnd(width)}  ${p.reads}${p.rows === null ? '' : ` — ${p.rows} row${p.rows === 1 ? '' : 's'}`}`);
    if (p.reason) lines.push(`  ${' '.repeat(width)}  ${p.reason}`);
    if (p.grant) lines.push(...p.grant.split('\n').map((g) => `  ${' '.repeat(width)}  > ${g}`));
  }
  lines.push('', 'Features:');
  for (const [name, f] of Object.entries(r.features) as [string, FeatureReadiness][]) {
    lines.push(`  ${name.padEnd(8)} ${yes(f)}`);
    for (const n of f.notes) lines.push(`           ${n.replace(/\r?\n/g, ' ')}`);
  }
  if (r.grantScript) lines.push('', 'To fix what is missing, a DBA runs:', '', r.grantScript);
  else lines.push('', 'Nothing is missing.');
  lines.push('', 'Nothing was created or changed on the server.');
  return lines.join('\n') + '\n';
}
