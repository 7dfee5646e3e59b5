// The statement-attribution trace inside a measured run (issue 16): on the monitor connection, planned from reads
// composed into the preflight's request, created and started in the log-flush session's start request, read and
// stopped in the after-snapshot's request, dropped in the log-flush session's drop request (measureRun's finally) —
// each in its own TRY block there (db/batch.ts), so its failures never touch the log-flush session. Any failure
// becomes "not measured" with why and the GRANT; it never fails the run.

import type { SqlClient, WorkloadBatch } from '../db/types';
import type { SnapshotDiff } from '../probes';
import type { XePlatform } from '../xe/errors';
import { isNameCollision } from '../xe/sessionRunner';
import { dropSessionSql } from '../xe/sessionSql';
import { StatementTraceSession } from '../xe/statementTrace';
import { runSchemaFields } from './runSchema';
import { ATTRIBUTION_LIMITS, notMeasuredAttribution, StatementAccumulator, unlistedStatementsNote, type ModuleSource, type StatementAttribution, type StatementFigure } from './statementAttribution';
import type { MissingMeasurement, XeOptions } from './types';

export interface StatementTraceStart {
  trace: StatementTraceSession | null;
  /** Set when the trace could not start (or was not wanted): the attribution is not measured, with this reason. */
  missing: MissingMeasurement | null;
  /** Turned off on purpose (a setting, --no-statements, a comparison): said in the attribution, not listed as missing. */
  off?: boolean;
  /** The CREATE was refused because a session of that name exists (someone else's: abandoned, never dropped). */
  nameTaken?: boolean;
}

const MEASUREMENT = 'statementAttribution';

/** Why a comparison's runs carry no statements (compare.ts). */
export const STATEMENTS_OFF_IN_COMPARISON =
  'Statements are not traced during a comparison: tracing adds work to every statement and would blur the elapsed times being compared. Profile the script to see per-statement figures.';

function notStarted(err: unknown): MissingMeasurement {
  return { measurement: MEASUREMENT, reason: `No per-statement attribution: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null };
}

/**
 * Plans the session without changing anything; never throws (a failure is returned as `missing`). `planning` may hold
 * the statementPlanningQueries answers (composed into an earlier request); the session itself uses `monitor`.
 */
export async function prepareStatementTrace(
  monitor: SqlClient,
  spid: number,
  platform: (XePlatform & { engineEdition?: number | null }) | undefined,
  refused: { reason: string; grant: string | null; off?: boolean } | null,
  target?: XeOptions['target'],
  sessionName?: string,
  planning: SqlClient = monitor,
): Promise<StatementTraceStart> {
  if (refused) return { trace: null, missing: { measurement: MEASUREMENT, reason: refused.reason, grant: refused.grant }, off: refused.off === true };
  try {
    return { trace: await StatementTraceSession.prepare(monitor, { spid, platform, target, sessionName }, planning), missing: null };
  } catch (err) {
    return { trace: null, missing: notStarted(err) };
  }
}

/** Starts a prepared session (CREATE, then START only if it worked); `answers` may hold its startQueries() answers. Never throws. */
export async function startPreparedStatementTrace(start: StatementTraceStart, answers?: SqlClient): Promise<StatementTraceStart> {
  const trace = start.trace;
  if (!trace || trace.state !== 'prepared') return start;
  try {
    await trace.start(answers);
    return start;
  } catch (err) {
    // A session that was created but not started is dropped by disposeStatementTrace (the caller keeps `trace`) —
    // unless the CREATE was refused because the name is taken: that session is someone else's, never dropped.
    const nameTaken = isNameCollision(err);
    return { trace: nameTaken ? null : trace, missing: notStarted(err), nameTaken };
  }
}

/** Prepares and starts the session, each in one request; never throws (a failure is returned as `missing`). */
export async function startStatementTrace(...args: Parameters<typeof prepareStatementTrace>): Promise<StatementTraceStart> {
  return startPreparedStatementTrace(await prepareStatementTrace(...args));
}

function sessionWritelog(diff: SnapshotDiff): { waits: number | null; ms: number | null } {
  const w = runSchemaFields(diff, 0).sessionWaits;
  if (diff.sessionWaits.status !== 'ok') return { waits: null, ms: null };
  const row = w.find((x) => x.waitType === 'WRITELOG');
  return { waits: row?.waitingTasks ?? 0, ms: row?.waitTimeMs ?? 0 };
}

/** Stops, reads and folds the trace into per-statement figures; failures become a not-measured attribution. */
export async function collectStatementTrace(
  start: StatementTraceStart,
  batches: readonly WorkloadBatch[],
  diff: SnapshotDiff,
  modules?: readonly ModuleSource[],
  /** May hold the stopQueries() answers (composed into the after-snapshot's request). */
  answers?: SqlClient,
): Promise<{ statements: StatementFigure[]; attribution: StatementAttribution; missing: MissingMeasurement | null }> {
  const session = sessionWritelog(diff);
  const trace = start.trace;
  if (!trace || trace.state !== 'started') {
    const m = start.missing ?? { measurement: MEASUREMENT, reason: 'The statement trace did not start.', grant: null };
    return { statements: [], attribution: notMeasuredAttribution(m.reason, m.grant, session), missing: start.off ? null : m };
  }
  try {
    await trace.stop(answers);
  } catch (err) {
    const m = { measurement: MEASUREMENT, reason: `The statement trace could not be read: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null };
    return { statements: [], attribution: notMeasuredAttribution(m.reason, m.grant, session), missing: m };
  }
  const plan = trace.plan;
  const acc = new StatementAccumulator({ batches, statementUnit: plan.statementDurationUnit, waitUnit: plan.wait?.durationUnit ?? 'milliseconds', modules });
  let read;
  try {
    read = await trace.collect((e) => acc.add(e));
  } catch (err) {
    const m = { measurement: MEASUREMENT, reason: `The statement trace could not be read: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null };
    return { statements: [], attribution: notMeasuredAttribution(m.reason, m.grant, session), missing: m };
  }
  const traced = plan.wait !== null;
  // No way to trace WRITELOG per statement on this server (no wait event, or no WRITELOG key in the wait_types map):
  // the rows' WRITELOG figures are not measured — null in the JSON, never a 0 that looks measured (plan.notes say why).
  const statements = acc.finish().map((f) => (traced ? f : { ...f, writelogWaits: null, writelogMs: null, notMeasured: [...new Set([...(f.notMeasured ?? []), 'writelogWaits' as const, 'writelogMs' as const])] }));
  const unlisted = acc.unlisted.statements === 0 ? undefined : traced ? { ...acc.unlisted } : { ...acc.unlisted, writelogWaits: null, writelogMs: null };
  const counted = read.counts ? [...read.counts.values()].reduce((a, b) => a + b, 0) : null;
  const log = runSchemaFields(diff, 0).logCounters;
  const notes = [...plan.notes, ...read.notes];
  if (unlisted) notes.push(unlistedStatementsNote(unlisted));
  if (acc.nestedStatements > 0) notes.push(`${acc.nestedStatements} statement(s) ran inside nested modules or dynamic SQL; their figures are on the line that called them.`);
  if (counted !== null && counted > read.seen) {
    notes.push(
      `Coverage: ${read.seen} of ${counted} events were read (the ring buffer keeps the newest), so the per-statement figures cover the end of the run only. ` +
        'Set durabilityLens.xe.target to an event_file to attribute every statement of a long run.',
    );
  }
  const attribution: StatementAttribution = {
    status: 'measured',
    reason: null,
    grant: null,
    waitEvent: plan.wait?.event ?? null,
    attributedWritelogWaits: acc.attributedWaits,
    attributedWritelogMs: Math.round(acc.attributedMs * 1000) / 1000,
    unattributedWritelogWaits: acc.unattributedWaits,
    unattributedWritelogMs: Math.round(acc.unattributedMs * 1000) / 1000,
    sessionWritelogWaits: session.waits,
    sessionWritelogMs: session.ms,
    eventsSeen: read.seen,
    eventsCounted: counted,
    logBytesPerFlush: log.logBytesFlushed !== null && log.logFlushes ? Math.round(log.logBytesFlushed / log.logFlushes) : null,
    waitDurationUnit: plan.wait?.durationUnit ?? null,
    limits: ATTRIBUTION_LIMITS,
    notes,
  };
  if (unlisted) attribution.unlisted = unlisted;
  return { statements, attribution, missing: null };
}

/**
 * Drops the session if it may exist; a failure becomes a note with the DROP to run. `answers` may hold its status and
 * DROP composed into the log-flush session's drop request (LogFlushSession.composeDrops).
 */
export async function disposeStatementTrace(start: StatementTraceStart, reconnect: (() => Promise<SqlClient>) | undefined, notes: string[], answers?: SqlClient): Promise<void> {
  const trace = start.trace;
  if (!trace) return;
  try {
    await trace.dispose(reconnect, answers);
  } catch (err) {
    notes.push(`The event session ${trace.name} could not be dropped (${(err as Error).message}). Drop it with: ${dropSessionSql(trace.name, trace.plan.platform.scope)}`);
  }
}
