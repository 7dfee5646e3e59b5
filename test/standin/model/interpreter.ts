// Runs a parsed batch for one session: control flow (IF/WHILE/BREAK/CONTINUE/RETURN), variables, SELECT
// results, PRINT/RAISERROR, SET options, USE, and SQL Server's error semantics (batch- vs statement-abort).
import type { Column, ExecContext, Output, SqlValue } from '../engine';
import type { Stmt } from './ast';
import { type Durability, SimulationAborted } from './durability';
import { SqlError } from './errors';
import { type BatchContext, evaluate, type EvalCtx, type Variable } from './eval';
import type { Faults } from './faults';
import { parseBatch } from './parse-stmt';
import { defineProcedure, dropProcedure, isProcedureDefinition } from './procedures';
import { runSelect, planSelect } from './select';
import type { Server } from './server';
import type { Session } from './state';
import { catches, TryTransfer, tryState } from './trycatch';
import { execDml, rollbackAll } from './stmt-dml';
import { execSecurityStatement } from './stmt-security';
import { execServerStatement } from './stmt-server';
import { coerce, toText, truthy } from './values';
import { chargeStatementCpu, fireStatementCompleted, sessionWaitUs, statementTextOf, wantsStatementEvents } from './xe-statements';
import { beginCapture, endCapture } from './queryStore';

export type Flow = 'break' | 'continue' | 'return' | undefined | void;

export interface RunCtx {
  b: BatchContext;
  exec: ExecContext;
  inProc: boolean;
  interp: Interpreter;
  /** Statements run so far (to yield to the event loop now and then). */
  steps: number;
  /** Execution level (0 = the client's batch, +1 per sp_executesql / EXEC('…')): TRY...CATCH rules depend on it. */
  level: number;
  /** The batch text, for statement-completed events (xe-statements.ts). */
  batchText?: string;
  /** The procedure being run (sp_statement_completed's object_id / object_name); unset for batches and dynamic SQL. */
  module?: { objectId: number; name: string };
}

/**
 * Errors after which SQL Server abandons the rest of the batch: compile errors and name resolution at statement
 * recompilation ("These errors are returned to the level that ran the batch", TRY...CATCH page, "Errors unaffected
 * by a TRY...CATCH construct": https://learn.microsoft.com/sql/t-sql/language-elements/try-catch-transact-sql).
 * Every other error (2627, 515, 8134, RAISERROR 16, 1222, ...) ends only its statement and the batch goes on
 * ("Database engine error severities": 11–16 are errors the user can correct), unless SET XACT_ABORT is ON.
 */
const BATCH_ABORTING = new Set([102, 137, 207, 208, 209, 4104, 195, 134, 216, 263, 141, 8120]);

export function info(number: number, message: string, line = 1, cls = 0): Output {
  return { kind: 'info', message: { number, state: 1, class: cls, message, lineNumber: line } };
}

export class Interpreter {
  constructor(readonly server: Server, readonly durability: Durability, readonly faults: Faults) {}

  newBatchContext(session: Session, vars = new Map<string, Variable>()): BatchContext {
    const b: BatchContext = {
      server: this.server, session, vars, rowcount: 0, identity: null, error: 0,
      runSelect: (q, outer) => runSelect(q, b, outer),
    };
    return b;
  }

  /** Parses and runs one batch. Syntax errors stop the batch before anything runs, as in SQL Server. */
  async *runBatch(session: Session, sql: string, exec: ExecContext, inProc: boolean, vars?: Map<string, Variable>, module?: { objectId: number; name: string }): AsyncGenerator<Output, void> {
    // CREATE/ALTER PROCEDURE is a batch of its own: its body is stored, not run (procedures.ts).
    if (isProcedureDefinition(sql)) {
      try {
        yield* defineProcedure({ b: this.newBatchContext(session, vars), exec, inProc, interp: this, steps: 0, level: tryState(session).level }, sql);
      } catch (e) {
        if (e instanceof SqlError) { yield* errorOutputs(e, inProc); return; }
        throw e;
      }
      return;
    }
    const st = tryState(session);
    const level = ++st.level;
    try {
      let stmts: Stmt[];
      try {
        stmts = parseBatch(sql);
      } catch (e) {
        if (!(e instanceof SqlError)) throw e;
        // A compile error of a lower level (sp_executesql inside a TRY block) goes to the CATCH block (trycatch.ts).
        if (catches(session, e, level, BATCH_ABORTING)) throw new TryTransfer(e);
        yield* errorOutputs(e, inProc);
        return;
      }
      const ctx: RunCtx = { b: this.newBatchContext(session, vars), exec, inProc, interp: this, steps: 0, level, batchText: sql, module };
      try {
        for (const s of stmts) {
          const flow = yield* this.execStmt(s, ctx);
          if (flow === 'return') break;
        }
      } catch (e) {
        if (e instanceof BatchAbort) return;
        throw e;
      }
    } finally {
      st.level--;
    }
  }

  async *execStmt(s: Stmt, ctx: RunCtx): AsyncGenerator<Output, Flow> {
    if (++ctx.steps % 256 === 0) await new Promise<void>((r) => setImmediate(r));
    if (ctx.exec.signal.aborted) throw new SimulationAborted();
    const openTran = ctx.b.session.tran;
    const undoMark = openTran?.undo.length ?? 0;
    const traced = ctx.batchText !== undefined && wantsStatementEvents(this.durability, ctx.inProc);
    const waitUsBefore = traced ? sessionWaitUs(ctx.b.session) : 0;
    // The statement the query_hash action reads while it runs (containers keep their inner statement's).
    const outerStatement = ctx.b.session.xeStatement;
    const own = traced ? statementTextOf(s, ctx.batchText!) : undefined;
    if (own !== undefined) ctx.b.session.xeStatement = own;
    // Query Store's runtime and wait statistics of this statement (queryStore.ts); null when it records nothing.
    const captured = beginCapture(this.server, ctx.b.session, s, ctx.batchText, ctx.module);
    try {
      const flow = yield* this.execInner(s, ctx);
      if (s.k !== 'if' && s.k !== 'while' && s.k !== 'block' && s.k !== 'try') ctx.b.error = 0;
      chargeStatementCpu(ctx.b.session, s);
      if (traced) fireStatementCompleted(this.durability, s, { session: ctx.b.session, batchText: ctx.batchText!, inProc: ctx.inProc, rowCount: ctx.b.rowcount, waitUsBefore, ...(ctx.module ? { module: ctx.module } : {}) });
      if (captured) endCapture(captured, ctx.b.session, 0, ctx.b.rowcount);
      return flow;
    } catch (e) {
      if (captured) endCapture(captured, ctx.b.session, e instanceof SimulationAborted ? 3 : 4, 0);
      // A failed or cancelled autocommit statement leaves nothing behind (its implicit transaction rolls back).
      const session = ctx.b.session;
      if (session.tran && !session.tran.explicit && session.trancount === 0) rollbackAll({ interp: this, b: ctx.b });
      // Inside an explicit transaction only the failing statement's own changes are undone (statement rollback).
      else if (openTran && session.tran === openTran && s.k !== 'block' && s.k !== 'if' && s.k !== 'while' && s.k !== 'try') {
        while (openTran.undo.length > undoMark) openTran.undo.pop()!();
      }
      if (!(e instanceof SqlError)) throw e;
      if (!e.line) e.line = s.line;
      for (const f of e.followUps) if (!f.line) f.line = e.line;
      ctx.b.error = e.number;
      // Inside a TRY block the error is not sent to the client: control passes to the CATCH block (trycatch.ts).
      // NOT modelled: XACT_ABORT's uncommittable ("doomed") transaction inside TRY; it is neither rolled back here nor refused.
      if (catches(session, e, ctx.level, BATCH_ABORTING)) throw new TryTransfer(e);
      // SET XACT_ABORT ON: "if a Transact-SQL statement raises a run-time error, the entire transaction is terminated
      // and rolled back" and the batch ends (the page's example). https://learn.microsoft.com/sql/t-sql/statements/set-xact-abort-transact-sql
      const xactAbort = session.xactAbort;
      if (xactAbort) {
        const rolledBack = rollbackAll({ interp: this, b: ctx.b });
        if (rolledBack) yield { kind: 'envChange', change: { type: 'rollbackTransaction', descriptor: BigInt(rolledBack.id) } };
      }
      yield* errorOutputs(e, ctx.inProc);
      if (xactAbort || BATCH_ABORTING.has(e.number)) throw new BatchAbort();
      return undefined;
    } finally {
      if (own !== undefined) ctx.b.session.xeStatement = outerStatement;
    }
  }

  private async *execInner(s: Stmt, ctx: RunCtx): AsyncGenerator<Output, Flow> {
    const ev: EvalCtx = { batch: ctx.b, scope: null };
    const command = COMMANDS[s.k];
    if (command && ctx.b.session.request) ctx.b.session.request.command = command;
    switch (s.k) {
      case 'select': yield* this.select(s, ctx); return;
      case 'declare':
        for (const v of s.vars) {
          const key = v.name.toLowerCase();
          if (ctx.b.vars.has(key)) throw new SqlError(134, 15, `The variable name '${v.name}' has already been declared. Variable names must be unique within a query batch or stored procedure.`, s.line);
          ctx.b.vars.set(key, { type: v.type, value: null });
          if (v.init) ctx.b.vars.get(key)!.value = coerce(evaluate(v.init, ev), v.type, s.line);
        }
        return;
      case 'setVar': {
        const v = ctx.b.vars.get(s.name.toLowerCase());
        if (!v) throw new SqlError(137, 15, `Must declare the scalar variable "${s.name}".`, s.line);
        let value = evaluate(s.e, ev);
        if (s.op !== '=') {
          const cur: SqlValue = v.value;
          value = evaluate({ k: 'bin', op: s.op[0] as '+', l: { k: 'lit', v: cur, t: v.type }, r: { k: 'lit', v: value, t: v.type }, line: s.line }, ev);
        }
        v.value = coerce(value, v.type, s.line);
        return;
      }
      case 'setOption': this.setOption(s.option, s.value, ctx.b.session, s.line); return;
      case 'use': yield* this.use(s.db, ctx, s.line); return;
      case 'block':
        for (const x of s.body) {
          const f = yield* this.execStmt(x, ctx);
          if (f) return f;
        }
        return;
      case 'if': {
        if (truthy(evaluate(s.cond, ev))) return yield* this.execStmt(s.then, ctx);
        if (s.otherwise) return yield* this.execStmt(s.otherwise, ctx);
        return;
      }
      case 'while':
        while (truthy(evaluate(s.cond, ev))) {
          const f = yield* this.execStmt(s.body, ctx);
          if (f === 'break') break;
          if (f === 'return') return f;
        }
        return;
      case 'try': return yield* this.tryCatch(s, ctx);
      case 'break': return 'break';
      case 'continue': return 'continue';
      case 'return': return 'return';
      case 'print': yield info(0, toText(evaluate(s.e, ev)), s.line); return;
      case 'raiserror': {
        const args = s.args.map((a) => evaluate(a, ev));
        const severity = Number(args[1] ?? 16);
        const msg = formatRaiserror(toText(args[0] ?? ''), args.slice(3));
        const m = { number: 50000, state: Number(args[2] ?? 1), class: severity, message: msg, lineNumber: s.line };
        if (severity <= 10) yield { kind: 'info', message: m };
        else if (catches(ctx.b.session, new SqlError(50000, severity, msg), ctx.level, BATCH_ABORTING)) {
          throw new SqlError(50000, severity, msg, s.line, m.state); // to the CATCH block, via execStmt
        } else {
          // An error ends its statement: that statement's DONE carries DONE_ERROR (MS-TDS 2.2.7.6 "An error occurred
          // on the current SQL statement"), which python-tds raises on. RAISERROR does not honor XACT_ABORT (SET
          // XACT_ABORT page note), so the batch goes on.
          ctx.b.error = 50000;
          yield { kind: 'error', message: m };
          yield { kind: 'done', error: true, inProc: ctx.inProc };
        }
        return;
      }
      case 'waitfor': {
        const text = toText(evaluate(s.delay, ev));
        const m = /^(\d+):(\d+)(?::(\d+)(?:\.(\d+))?)?$/.exec(text.trim());
        if (!m) throw new SqlError(148, 15, `Incorrect time syntax in time string '${text}' used with WAITFOR.`, s.line);
        const ms = (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)) * 1000 + Number((m[4] ?? '0').padEnd(3, '0').slice(0, 3));
        await this.durability.wait(ctx.b.session, 'WAITFOR', ms * 1000, '', ctx.exec.signal);
        return;
      }
      default: {
        const out = execDml(s, ctx) ?? execServerStatement(s, ctx) ?? execSecurityStatement(s, ctx) ?? (s.k === 'dropProcedure' ? dropProcedure(ctx, s) : null);
        if (!out) throw new SqlError(102, 15, `Incorrect syntax near '${s.k}'.`, s.line);
        return yield* out;
      }
    }
  }

  /**
   * BEGIN TRY … END TRY BEGIN CATCH … END CATCH: an error the TRY block catches ends the TRY block where it happened
   * and runs the CATCH block with ERROR_*() describing it; without an error the CATCH block is skipped (TRY...CATCH page).
   */
  private async *tryCatch(s: Stmt & { k: 'try' }, ctx: RunCtx): AsyncGenerator<Output, Flow> {
    const st = tryState(ctx.b.session);
    let caught: SqlError | null = null;
    st.tries.push(ctx.level);
    try {
      for (const x of s.body) {
        const f = yield* this.execStmt(x, ctx);
        if (f) return f;
      }
    } catch (e) {
      if (!(e instanceof TryTransfer)) throw e;
      caught = e.error;
    } finally {
      st.tries.pop();
    }
    if (!caught) return;
    ctx.b.error = caught.number;
    st.caught.push(caught);
    try {
      for (const x of s.handler) {
        const f = yield* this.execStmt(x, ctx);
        if (f) return f;
      }
    } finally {
      st.caught.pop();
    }
    return;
  }

  private async *select(s: Stmt & { k: 'select' }, ctx: RunCtx): AsyncGenerator<Output, Flow> {
    const q = s.q;
    if (q.into) {
      const r = runSelect({ ...q, into: undefined } as typeof q, ctx.b, null);
      yield* execDml({ line: s.line, k: 'createTable', table: q.into, columns: r.columns.map((c) => ({ name: c.name, type: c.type, typeName: c.type.kind, nullable: true })) }, ctx, r.rows)!;
      return;
    }
    const plan = planSelect(q, ctx.b, null);
    if (plan.assigns) {
      let n = 0;
      for (const row of plan.rows) {
        n++;
        for (const a of plan.assigns) {
          const v = ctx.b.vars.get(a.name.toLowerCase());
          if (!v) throw new SqlError(137, 15, `Must declare the scalar variable "${a.name}".`, s.line);
          v.value = coerce(row[a.index] ?? null, v.type, s.line);
        }
      }
      ctx.b.rowcount = n;
      yield doneOf(ctx, n);
      return;
    }
    // Rows are counted as the protocol layer reads them; DONE is produced after the last row was consumed.
    const counter = { n: 0 };
    const source = plan.rows;
    const counted = (function* () {
      for (const r of source) { counter.n++; yield r; }
    })();
    // Evaluate the first row now so an error surfaces before column metadata, like SQL Server's compile-time checks.
    const first = counted.next();
    // A run-time error in a later row (1/0 on row 2) ends the rows sent so far; the error then ends the statement
    // like any other (ERROR + DONE with DONE_ERROR, statement- or batch-level per execStmt) instead of escaping
    // into the protocol layer while it streams.
    const midStream: { error?: SqlError } = {};
    const rows: Iterable<SqlValue[]> = (function* () {
      try {
        if (!first.done) yield first.value;
        yield* counted;
      } catch (e) {
        if (!(e instanceof SqlError)) throw e;
        midStream.error = e;
      }
    })();
    yield { kind: 'resultSet', columns: plan.columns as Column[], rows };
    ctx.b.rowcount = counter.n;
    if (midStream.error) throw midStream.error;
    yield { kind: 'done', get rowCount() { return ctx.b.session.nocount ? undefined : counter.n; }, inProc: ctx.inProc } as Output;
  }

  private setOption(option: string, value: string, session: Session, line: number): void {
    switch (option) {
      case 'NOCOUNT': session.nocount = value === 'ON'; return;
      case 'LOCK_TIMEOUT': session.lockTimeout = Number(value); return;
      case 'DEADLOCK_PRIORITY': session.deadlockPriority = value; return;
      case 'XACT_ABORT': session.xactAbort = value === 'ON'; return;
      case 'ANSI_NULLS': case 'ANSI_PADDING': case 'ANSI_WARNINGS': case 'QUOTED_IDENTIFIER': case 'ARITHABORT': case 'NUMERIC_ROUNDABORT':
      case 'CONCAT_NULL_YIELDS_NULL': case 'CURSOR_CLOSE_ON_COMMIT': case 'IMPLICIT_TRANSACTIONS': case 'TEXTSIZE': case 'LANGUAGE': case 'DATEFORMAT':
      case 'DATEFIRST': case 'TRANSACTION': case 'ANSI_NULL_DFLT_ON': case 'ANSI_DEFAULTS': case 'ROWCOUNT': case 'NOEXEC': case 'FMTONLY':
        return;
      default:
        if (option.startsWith('STATISTICS ') || option.startsWith('IDENTITY_INSERT ')) return;
        throw new SqlError(102, 15, `Incorrect syntax near '${option}'.`, line);
    }
  }

  private async *use(name: string, ctx: RunCtx, line: number): AsyncGenerator<Output, Flow> {
    const { server, session } = ctx.b;
    const db = server.dbByName(name);
    if (!db) throw new SqlError(911, 16, `Database '${name}' does not exist. Make sure that the name is entered correctly.`, line);
    if (!server.canOpen(session.login, db)) throw new SqlError(916, 14, `The server principal "${session.login.name}" is not able to access the database "${db.name}" under the current security context.`, line);
    const old = session.db.name;
    session.db = db;
    yield { kind: 'envChange', change: { type: 'database', newValue: db.name, oldValue: old } };
    yield info(5701, `Changed database context to '${db.name}'.`, line);
    return;
  }
}

export class BatchAbort extends Error {}

/** dm_exec_requests.command while a statement of this kind runs. */
const COMMANDS: Partial<Record<Stmt['k'], string>> = {
  select: 'SELECT', insert: 'INSERT', update: 'UPDATE', delete: 'DELETE', truncate: 'TRUNCATE TABLE', commit: 'COMMIT TRANSACTION',
  rollback: 'ROLLBACK TRANSACTION', checkpoint: 'CHECKPOINT', waitfor: 'WAITFOR', alterDatabase: 'ALTER DATABASE', createTable: 'CREATE TABLE',
  dropTable: 'DROP TABLE', exec: 'EXECUTE', dbcc: 'DBCC', backup: 'BACKUP DATABASE', createEventSession: 'CREATE EVENT SESSION', alterEventSession: 'ALTER EVENT SESSION',
};

export function doneOf(ctx: RunCtx, rowCount: number | undefined): Output {
  const count = ctx.b.session.nocount ? undefined : rowCount;
  const out: Output = { kind: 'done', inProc: ctx.inProc };
  if (count !== undefined) (out as { rowCount?: number }).rowCount = count;
  return out;
}

export function* errorOutputs(e: SqlError, inProc: boolean): Generator<Output> {
  yield { kind: 'error', message: e.toMessage() };
  // A follow-up of severity ≤ 10 (3621 "The statement has been terminated.") is informational: an INFO token.
  for (const f of e.followUps) yield { kind: f.cls <= 10 ? 'info' : 'error', message: f.toMessage() };
  yield { kind: 'done', error: true, inProc };
}

function formatRaiserror(fmt: string, args: SqlValue[]): string {
  let i = 0;
  return fmt.replace(/%[-+ 0#]*\d*(?:\.\d+)?(?:I64|h|l)?([disuxXo%])/g, (m, conv: string) => {
    if (conv === '%') return '%';
    const v = args[i++];
    return v === undefined ? m : v === null ? '(null)' : toText(v);
  });
}
