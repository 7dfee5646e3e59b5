// Runs the user's batch on the WORKLOAD connection: SQL_BATCH per repetition (GO n), streamed — rows are
// counted, never kept — with PRINT/errors forwarded (mapped to document lines) and cancel/AbortSignal. A statement
// error does not stop the run: the server decides how much of the batch runs, and the next repetition still runs;
// only a lost connection or a fatal error (severity ≥ 20) ends it.
// Never calls connection.reset(): that would clear sys.dm_exec_session_wait_stats for the session.
import { performance } from 'node:perf_hooks';
import { Request } from 'tedious';
import { addCallParameters } from './procedureCall';
import { definedFields } from '../shared/definedFields';
import { sqlErrorsOf } from './errors';
import { addParameters, type TediousSession } from './session';
import type { BatchReport, WorkloadBatch, WorkloadMessage } from './types';

/** tedious request error codes (or socket codes it passes through) meaning the connection is gone. */
/**
 * Characters kept of one info/error message. PRINT sends at most 8,000 (non-Unicode) characters ("A message string can
 * be up to 8,000 characters long", https://learn.microsoft.com/sql/t-sql/language-elements/print-transact-sql); a
 * longer message only comes from a misbehaving server and is cut with a marker. At most `keepMessages` (1000) are kept.
 */
export const MAX_MESSAGE_CHARS = 8000;

const CONNECTION_LOST_CODES = new Set(['ESOCKET', 'ECLOSE', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

export interface WorkloadRunOptions {
  onMessage?: (message: WorkloadMessage) => void;
  signal?: AbortSignal;
  /** How many messages the report keeps (all are forwarded to onMessage). Default 1000. */
  keepMessages?: number;
  /** After each completed GO n iteration (progress), with the count completed so far. */
  onIteration?: (completed: number) => void;
}

export interface WorkloadRun {
  /** Resolves with the report; rejects only on a broken connection before anything ran. */
  readonly done: Promise<BatchReport>;
  /** Sends ATTENTION for the running request (tedious connection.cancel → ECANCEL) and stops repeating. */
  cancel(): void;
}

/**
 * Server line N (1-based, 0 = none) → 0-based document line. Inside a procedure (procName set) the line is
 * the procedure's own, so it does not map onto the document (MS-TDS 2.2.7.10 ERROR, LineNumber).
 */
/**
 * Severity 20 and above are fatal: the server terminates the connection (Learn: database-engine-error-severities).
 * Below that (11–16 user errors, 17–19 resource/software errors) the error ends the statement — or, for
 * batch-aborting errors and under SET XACT_ABORT ON, the batch — and the server itself carries on, so does the run.
 * https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-error-severities
 */
export const FATAL_SEVERITY = 20;

export function documentLineOf(firstLine: number, lineNumber: number, procName?: string): number | null {
  if (!lineNumber || lineNumber < 1 || procName) return null;
  return firstLine + lineNumber - 1;
}

interface MessageToken {
  number: number;
  state: number;
  class: number;
  message: string;
  procName?: string;
  lineNumber: number;
}

export function runWorkload(session: TediousSession, batch: WorkloadBatch, options: WorkloadRunOptions = {}): WorkloadRun {
  const keep = options.keepMessages ?? 1000;
  const repeat = Math.max(1, Math.trunc(batch.repeat || 1));
  const report: BatchReport = {
    elapsedMs: 0,
    iterationsCompleted: 0,
    statements: 0,
    rowsAffected: null,
    rowsReturned: 0,
    resultSets: 0,
    messageCount: 0,
    messages: [],
    error: null,
    cancelled: false,
    connectionLost: false,
  };
  let cancelRequested = false;
  let requestActive = false;
  const connection = session.connection;

  const cancel = () => {
    if (cancelRequested) return;
    cancelRequested = true;
    report.cancelled = true;
    if (requestActive) connection.cancel();
  };
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });

  const done = session.exclusive(async () => {
    const started = performance.now();
    let iteration = 0;
    const forward = (kind: 'info' | 'error') => (token: MessageToken) => {
      // A plain literal: this runs once per PRINT/RAISERROR (a workload may send millions); JSON leaves out the undefined procName.
      const message: WorkloadMessage = {
        kind,
        at: Date.now(),
        elapsedMs: performance.now() - started,
        iteration,
        number: token.number,
        state: token.state,
        class: token.class,
        // PRINT takes at most 8,000 characters (Learn: print-transact-sql); only a misbehaving server sends more.
        message: token.message.length > MAX_MESSAGE_CHARS ? `${token.message.slice(0, MAX_MESSAGE_CHARS)}… [${token.message.length - MAX_MESSAGE_CHARS} more characters not kept]` : token.message,
        lineNumber: token.lineNumber,
        procName: token.procName || undefined,
        documentLine: documentLineOf(batch.firstLine, token.lineNumber, token.procName),
      };
      report.messageCount++;
      if (report.messages.length < keep) report.messages.push(message);
      options.onMessage?.(message);
    };
    const onInfo = forward('info');
    const onError = forward('error');
    connection.on('infoMessage', onInfo);
    connection.on('errorMessage', onError);
    try {
      for (iteration = 0; iteration < repeat && !cancelRequested; iteration++) {
        const err = await runOnce(session, batch, report, (active) => {
          requestActive = active;
          // A cancel that raced the request start is delivered as soon as the request exists.
          if (active && cancelRequested) connection.cancel();
        });
        if (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ECANCEL') {
            report.cancelled = true;
            break;
          }
          const all = sqlErrorsOf(err);
          const first = all[0];
          report.connectionLost = session.isClosed || (!first && code !== undefined && CONNECTION_LOST_CODES.has(code));
          if (cancelRequested && !first) {
            // The cancel was not acknowledged in time (tedious closes the connection after cancelTimeout, ETIMEOUT)
            // or the connection died meanwhile: the run was cancelled, and its session is gone with the socket — the
            // server rolls back the open transaction when it notices.
            report.cancelled = true;
            report.connectionLost = true;
            report.error = definedFields({ number: 0, state: 0, class: 0, message: `The connection was closed while the cancel was pending (${(err as Error).message ?? String(err)}).`, lineNumber: 0, documentLine: null, code: code || undefined });
            break;
          }
          if (first && !report.connectionLost && all.every((e) => e.class < FATAL_SEVERITY)) {
            // The server ran the batch to its end (or aborted it, its choice); the next GO repetition runs as in sqlcmd.
            report.statementErrors ??= [];
            for (const e of all) report.statementErrors.push({ ...e, documentLine: documentLineOf(batch.firstLine, e.lineNumber, e.procName), iteration });
            report.iterationsCompleted++;
            continue;
          }
          report.error = first
            ? definedFields({ ...first, documentLine: documentLineOf(batch.firstLine, first.lineNumber, first.procName), code: code || undefined })
            : definedFields({ number: 0, state: 0, class: 0, message: (err as Error).message ?? String(err), lineNumber: 0, documentLine: null, code: code || undefined });
          // The connection is gone (or about to be): nothing more can run on it.
          break;
        }
        report.iterationsCompleted++;
        options.onIteration?.(report.iterationsCompleted);
      }
    } finally {
      connection.removeListener('infoMessage', onInfo);
      connection.removeListener('errorMessage', onError);
      options.signal?.removeEventListener('abort', cancel);
      report.elapsedMs = performance.now() - started;
    }
    return report;
  });
  return { done, cancel };
}

/**
 * One SQL_BATCH — or sp_executesql when the batch has parameters, or, for a procedure call, one RPC with typed
 * parameters (tedious callProcedure); resolves with the request error (or undefined). Counts statements, rows and
 * result sets.
 */
function runOnce(session: TediousSession, batch: WorkloadBatch, report: BatchReport, setActive: (active: boolean) => void): Promise<Error | undefined> {
  return new Promise((resolve) => {
    let inResultSet = false;
    const request = new Request(batch.call ? batch.call.procedure : batch.text, (err) => {
      setActive(false);
      resolve(err ?? undefined);
    });
    request.on('columnMetadata', () => {
      report.resultSets++;
      inResultSet = true;
    });
    request.on('row', () => {
      report.rowsReturned++;
    });
    const onDone = (rowCount: number | undefined) => {
      report.statements++;
      // A DONE after a result set counts rows returned (already counted per row); otherwise rows affected.
      if (!inResultSet && typeof rowCount === 'number') report.rowsAffected = (report.rowsAffected ?? 0) + rowCount;
      inResultSet = false;
    };
    request.on('done', onDone);
    request.on('doneInProc', onDone);
    if (session.isClosed) {
      resolve(Object.assign(new Error('The workload connection is closed.'), { code: 'ECLOSE' }));
      return;
    }
    if (batch.call) {
      try {
        addCallParameters(request, batch.call.parameters);
      } catch (err) {
        // A value the driver refuses (out of range for its type): nothing was sent.
        resolve(err as Error);
        return;
      }
      session.connection.callProcedure(request);
    } else if (batch.parameters && batch.parameters.length > 0) {
      addParameters(request, batch.parameters);
      session.connection.execSql(request);
    } else {
      session.connection.execSqlBatch(request);
    }
    setActive(true);
  });
}
