// Waits that belong to where the database lives, not to its disk: a synchronous availability-group secondary hardening
// the log (HADR_SYNC_COMMIT), Azure SQL's log-rate governance (LOG_RATE_GOVERNOR and its pool / instance / feedback
// forms) and Hyperscale's log service throttling the primary (RBIO_RG_*). Each reads its waits; the settings
// (replicas, the cap, the Hyperscale component) are evidence, or "not measured" with the GRANT.
import { notMeasuredText } from '../../probes/measurement';
import { formatByteRate, formatBytes, formatCount, formatDuration, formatNumber } from '../units';
import { waitsSource, type CauseInputs, type WaitFigure } from './inputs';
import type { Part } from './logWrites';
import type { CauseNotMeasured } from './types';

/** Log-rate governance waits (Azure SQL resource limits, "Transaction log rate governance"; sys.dm_os_wait_stats). */
export const GOVERNOR_WAITS = ['LOG_RATE_GOVERNOR', 'POOL_LOG_RATE_GOVERNOR', 'INSTANCE_LOG_RATE_GOVERNOR'];
/** HADR_THROTTLE_LOG_RATE_GOVERNOR, _SEND_RECV_QUEUE_SIZE, _LOG_SIZE, _MISMATCHED_SLO …: the governor's feedback control. */
export const GOVERNOR_WAIT_PREFIX = 'HADR_THROTTLE_LOG_RATE_';
/** Hyperscale log-rate throttling (Hyperscale performance diagnostics; sys.dm_hs_database_log_rate roles). */
export const HYPERSCALE_WAIT_PREFIX = 'RBIO_RG_';
/** A commit fee at least this share of the accounted log makes fewer log IOs matter to the cap: "partly". */
export const COMMIT_FEE_SHARE_PARTLY = 0.25;

const ms = (v: number) => formatDuration(v);

function matching(waits: Map<string, WaitFigure>, test: (type: string) => boolean): Array<[string, WaitFigure]> {
  return [...waits.entries()].filter(([t, f]) => test(t) && (f.ms > 0 || f.count > 0)).sort((a, b) => b[1].ms - a[1].ms);
}

const notMeasured = (why: CauseNotMeasured): Part => ({ ms: null, evidence: [], notMeasured: why });

/** HADR_SYNC_COMMIT: "the time to send, write, and acknowledge log" to the synchronized secondaries (sys.dm_os_wait_stats). */
export function agSyncCommitPart(inp: CauseInputs): Part {
  if (!inp.waits.ok) return notMeasured(inp.waits.why);
  const w = inp.waits.value.get('HADR_SYNC_COMMIT') ?? { ms: 0, count: 0 };
  const db = inp.database;
  const replicaLine = !db
    ? 'availability group membership not read (database settings not measured)'
    : !db.inAvailabilityGroup
      ? 'the database is in no availability group (sys.databases.group_database_id is NULL)'
      : db.synchronousReplicas === null
        ? 'the database is in an availability group; its replicas were not read'
        : `availability group: ${db.synchronousReplicas} replica(s) in synchronous-commit mode — sys.dm_hadr_database_replica_states, sys.availability_replicas`;
  const evidence = [w.count > 0 ? `HADR_SYNC_COMMIT: ${ms(w.ms)} over ${formatCount(w.count)} waits (${formatNumber(w.ms / w.count, 2)} ms per commit) — ${waitsSource(inp)}` : 'no HADR_SYNC_COMMIT wait', replicaLine];
  return { ms: w.ms, evidence, notMeasured: null };
}

/** Share of the log the governor accounts that is commit fee (fee × log IOs ÷ (log bytes + fee × log IOs)). */
export function commitFeeShare(inp: CauseInputs): number | null {
  const g = inp.logRateGovernance?.status === 'ok' ? inp.logRateGovernance.value : null;
  const fee = g?.commitFeeBytes ?? null;
  if (fee === null || fee <= 0 || !inp.logFile.ok || inp.logFile.value.writes === 0) return null;
  const feeBytes = fee * inp.logFile.value.writes;
  return feeBytes / (inp.logFile.value.bytes + feeBytes);
}

export function logRateGovernorPart(inp: CauseInputs): Part & { capBytesPerSec: number | null } {
  if (!inp.waits.ok) return { ...notMeasured(inp.waits.why), capBytesPerSec: null };
  const waits = inp.waits.value;
  const found = matching(waits, (t) => GOVERNOR_WAITS.includes(t) || t.startsWith(GOVERNOR_WAIT_PREFIX));
  const total = found.reduce((s, [, f]) => s + f.ms, 0);
  const evidence = found.length > 0 ? found.map(([t, f]) => `${t}: ${ms(f.ms)} over ${formatCount(f.count)} waits — ${waitsSource(inp)}`) : ['no log-rate governor wait (LOG_RATE_GOVERNOR, POOL_/INSTANCE_LOG_RATE_GOVERNOR, HADR_THROTTLE_LOG_RATE_*)'];
  let capBytesPerSec: number | null = null;
  const gov = inp.logRateGovernance;
  if (gov?.status === 'ok' && gov.value) {
    capBytesPerSec = gov.value.maxLogRateBytesPerSec;
    if (capBytesPerSec !== null) evidence.push(`cap: ${formatByteRate(capBytesPerSec)} of log (primary_max_log_rate${gov.value.serviceObjective ? `, service objective ${gov.value.serviceObjective}` : ''}) — sys.dm_user_db_resource_governance`);
    const fee = commitFeeShare(inp);
    if (fee !== null) evidence.push(`commit fee: ${formatBytes(gov.value.commitFeeBytes!)} per log IO, ${formatNumber(fee * 100, 0)} % of the log the governor counted here (primary_log_commit_fee)`);
  } else if (gov && gov.status !== 'ok' && gov.cause !== 'not-supported' && gov.cause !== 'not-applicable' && found.length > 0) {
    evidence.push(`the cap itself not measured: ${notMeasuredText(gov)}`);
  }
  if (found.length > 0 && inp.logFile.ok && inp.elapsedMs > 0) evidence.push(`log generated: ${formatByteRate(inp.logFile.value.bytes / (inp.elapsedMs / 1000))} over the run (${formatBytes(inp.logFile.value.bytes)} written to the log file)`);
  return { ms: total, evidence, notMeasured: null, capBytesPerSec };
}

export function hyperscalePart(inp: CauseInputs): Part & { component: string | null; rateBytesPerSec: number | null } {
  if (!inp.waits.ok) return { ...notMeasured(inp.waits.why), component: null, rateBytesPerSec: null };
  const found = matching(inp.waits.value, (t) => t.startsWith(HYPERSCALE_WAIT_PREFIX));
  const total = found.reduce((s, [, f]) => s + f.ms, 0);
  const evidence = found.length > 0 ? found.map(([t, f]) => `${t}: ${ms(f.ms)} over ${formatCount(f.count)} waits — ${waitsSource(inp)}`) : ['no Hyperscale log-rate throttling wait (RBIO_RG_*)'];
  let component: string | null = null;
  let rateBytesPerSec: number | null = null;
  const hs = inp.hyperscaleLogRate;
  if (hs?.status === 'ok') {
    // The component holding the rate down: the one reporting catch-up work, else the lowest limit.
    const rows = [...hs.value.rows].sort((a, b) => (b.catchupBytes ?? 0) - (a.catchupBytes ?? 0) || (a.currentMaxLogRateBytesPerSec ?? Infinity) - (b.currentMaxLogRateBytesPerSec ?? Infinity));
    const top = rows[0];
    if (top) {
      component = top.roleDesc;
      rateBytesPerSec = top.currentMaxLogRateBytesPerSec;
      evidence.push(`${top.roleDesc ?? 'a component'} limits the primary to ${top.currentMaxLogRateBytesPerSec !== null ? formatByteRate(top.currentMaxLogRateBytesPerSec) : 'an unreported rate'}${top.catchupBytes ? `, ${formatBytes(top.catchupBytes)} behind` : ''} (read before the run) — sys.dm_hs_database_log_rate`);
    }
  } else if (hs && hs.cause !== 'not-supported' && hs.cause !== 'not-applicable' && found.length > 0) {
    evidence.push(`the limiting component not measured: ${notMeasuredText(hs)}`);
  }
  return { ms: total, evidence, notMeasured: null, component, rateBytesPerSec };
}
