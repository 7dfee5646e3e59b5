// The stand-in's server model behind the Engine contract: createStandin() gives an Engine for the TDS layer plus
// a control API for tests (faults, state, restart, device latency, logins, databases, speed).
import type { Engine, ExecContext, ExecRequest, LoginRequest, LoginResult, Output, SessionHandle } from '../engine';
import { Durability, SimulationAborted } from './durability';
import { errors, SqlError } from './errors';
import type { Variable } from './eval';
import { Faults } from './faults';
import { setSessionKiller } from './kill';
import { errorOutputs, Interpreter } from './interpreter';
import { tokenize } from './lexer';
import { Cursor, parseType } from './parse-expr';
import { bindArguments, findProcedure, nameParts, runProcedure } from './procedures';
import { Server } from './server';
import { type Database, type DatabaseSpec, emptyCounters, emptyIo, type Login, type LoginSpec, type Session, type StandinOptions } from './state';
import { rollbackAll } from './stmt-dml';
import { coerce } from './values';

export type { StandinOptions, LoginSpec, DatabaseSpec } from './state';
export { Faults } from './faults';

export interface Standin extends Engine {
  readonly faults: Faults;
  readonly state: Server;
  speedFactor: number;
  restart(): void;
  setDeviceLatency(latency: { logWriteMs?: number; dataWriteMs?: number }): void;
  addLogin(spec: LoginSpec): Login;
  addDatabase(spec: DatabaseSpec): Database;
  /** The live session for a spid (tests inspect waits, transactions). */
  session(spid: number): Session | undefined;
}

export function createStandin(options: StandinOptions = {}): Standin {
  return new StandinEngine(options);
}

class StandinEngine implements Standin {
  readonly faults = new Faults();
  state: Server;
  private durability: Durability;
  private interp: Interpreter;
  private kills = new Map<number, AbortController>();
  /** How the protocol layer closes each session's connection when the server ends it (KILL). */
  private disconnects = new Map<number, () => void>();

  constructor(options: StandinOptions) {
    this.state = new Server(options);
    this.durability = new Durability(this.state);
    this.interp = new Interpreter(this.state, this.durability, this.faults);
    setSessionKiller(this.state, (spid) => this.endSession(spid));
  }

  onSessionKilled(session: SessionHandle, disconnect: () => void): void {
    if (this.state.sessions.get(session.spid)?.alive) this.disconnects.set(session.spid, disconnect);
  }

  /** KILL (model/kill.ts): the session logs out (rollback, its locks released) and its connection is closed. */
  private endSession(spid: number): void {
    const disconnect = this.disconnects.get(spid);
    this.logout({ spid });
    disconnect?.();
  }

  get speedFactor(): number {
    return this.state.options.speedFactor;
  }
  set speedFactor(v: number) {
    this.state.options.speedFactor = v;
  }

  setDeviceLatency(l: { logWriteMs?: number; dataWriteMs?: number }): void {
    if (l.logWriteMs !== undefined) this.state.options.logWriteLatencyMs = l.logWriteMs;
    if (l.dataWriteMs !== undefined) this.state.options.dataWriteLatencyMs = l.dataWriteMs;
  }

  addLogin(spec: LoginSpec): Login {
    return this.state.addLogin(spec);
  }
  addDatabase(spec: DatabaseSpec): Database {
    return this.state.addDatabase(spec);
  }
  session(spid: number): Session | undefined {
    return this.state.sessions.get(spid);
  }

  attentionAckDelayMs(): number {
    return this.faults.attentionAckDelayMs;
  }

  /** TDS 8.0 (strict): SQL Server 2022+, Azure SQL Database and Managed Instance (TDS 8.0 page). */
  supportsTds8(): boolean {
    return this.state.options.major >= 16 || this.state.options.product !== 'sqlserver';
  }

  /** Simulated restart: cumulative counters start over, a new start time, sessions dropped, running XE sessions stopped. */
  restart(): void {
    const s = this.state;
    for (const [spid, k] of this.kills) { k.abort(); this.kills.delete(spid); }
    for (const sess of s.sessions.values()) { sess.alive = false; sess.tran = null; sess.trancount = 0; }
    s.sessions.clear();
    s.waits.clear();
    s.startTime = new Date(Date.now() + 1);
    s.startPerf = performance.now();
    for (const d of s.databases.values()) {
      d.counters = emptyCounters();
      for (const f of d.files) f.io = emptyIo();
      // Unflushed (delayed durable) log is lost on restart (reference §5); the rows are not rolled back by this model.
      d.log.bufferBytes = 0;
      d.log.bufferRecords = 0;
      d.dirtyPages = 0;
    }
    for (const es of s.eventSessions.values()) {
      es.running = false;
      es.ring = null;
      es.file = null;
    }
  }

  async login(req: LoginRequest): Promise<LoginResult> {
    const s = this.state;
    const login = s.logins.get(req.userName.toLowerCase());
    if (!login || login.password !== req.password) return { ok: false, error: errors.loginFailed(req.userName).toMessage() };
    const dbName = req.database || login.defaultDatabase;
    const db = s.dbByName(dbName);
    if (!db || !s.canOpen(login, db)) return { ok: false, error: errors.cannotOpenDb(dbName).toMessage() };
    // The model's clock (Server.clock), as SYSDATETIME reads it: login_time and SYSDATETIME agree when a test sets it.
    const now = s.now();
    const session: Session = {
      spid: s.nextSpid++, login, db, appName: req.appName, hostName: req.hostName, clientPid: req.clientPid, encrypted: req.encrypted,
      loginTime: now, waits: new Map(), nocount: false, xactAbort: false, lockTimeout: -1, deadlockPriority: 'NORMAL', trancount: 0, tran: null,
      currentWait: null, waitDebtMs: 0, cpuUs: 0, request: null, lastRequestStart: now, lastRequestEnd: now, alive: true, requestCount: 0, temp: new Map(),
    };
    s.sessions.set(session.spid, session);
    this.kills.set(session.spid, new AbortController());
    return { ok: true, session, database: db.name, serverName: s.options.serverName, serverVersion: { major: s.options.major, minor: 0, build: s.productBuild() } };
  }

  logout(handle: SessionHandle): void {
    const session = this.state.sessions.get(handle.spid);
    if (!session) return;
    rollbackAll({ interp: this.interp, b: { session } });
    session.alive = false;
    this.state.sessions.delete(handle.spid);
    this.kills.get(handle.spid)?.abort();
    this.kills.delete(handle.spid);
    this.disconnects.delete(handle.spid);
  }

  async *execute(handle: SessionHandle, request: ExecRequest, context: ExecContext): AsyncGenerator<Output, void> {
    const session = this.state.sessions.get(handle.spid);
    if (!session || !session.alive) { yield { kind: 'dropConnection' }; return; }
    session.requestCount++;
    if (this.faults.dropAtRequest !== null && session.requestCount >= this.faults.dropAtRequest) {
      this.faults.dropAtRequest = null;
      yield { kind: 'dropConnection' };
      return;
    }
    const kill = this.kills.get(session.spid) ?? new AbortController();
    const signal = AbortSignal.any([context.signal, kill.signal]);
    let dropTimer: ReturnType<typeof setTimeout> | undefined;
    let dropped = false;
    if (this.faults.dropAfterMs !== null) {
      const ms = this.faults.dropAfterMs;
      dropTimer = setTimeout(() => { dropped = true; kill.abort(); }, ms);
    }
    if (context.resetConnection) this.resetSession(session);
    session.lastRequestStart = new Date();
    const text = request.kind === 'batch' ? request.sql : request.kind === 'rpc' ? request.statement ?? request.procedure : `${request.operation} transaction`;
    session.request = { start: session.lastRequestStart, command: commandOf(text), statement: text };
    const exec: ExecContext = { signal, resetConnection: context.resetConnection };
    let lastDone = false;
    try {
      if (this.faults.delayMs > 0) await new Promise((r) => setTimeout(r, this.faults.delayMs));
      const fault = this.faults.matchRequest(text);
      if (fault) {
        yield* errorOutputs(new SqlError(fault.number, fault.class ?? 16, fault.message, 1, fault.state ?? 1), false);
        return;
      }
      for await (const out of this.run(session, request, exec)) {
        if (kill.signal.aborted && !context.signal.aborted) break;
        lastDone = out.kind === 'done' && !out.inProc;
        yield out;
      }
      if (kill.signal.aborted && !context.signal.aborted) { yield { kind: 'dropConnection' }; return; }
      if (!lastDone && !signal.aborted && request.kind !== 'rpc') yield { kind: 'done' };
    } catch (e) {
      if (!(e instanceof SimulationAborted)) throw e;
      if (dropped || (kill.signal.aborted && !context.signal.aborted)) yield { kind: 'dropConnection' };
      // On ATTENTION the protocol layer acknowledges; the model simply stops producing output.
    } finally {
      if (dropTimer) clearTimeout(dropTimer);
      session.request = null;
      session.currentWait = null;
      session.lastRequestEnd = new Date();
    }
  }

  private resetSession(session: Session): void {
    // RESETCONNECTION "simulates a logout and a subsequent login" (reference §7.7): waits, temp tables, transaction, options.
    rollbackAll({ interp: this.interp, b: { session } });
    session.waits = new Map();
    session.temp = new Map();
    session.nocount = false;
    session.xactAbort = false;
    session.lockTimeout = -1;
    session.deadlockPriority = 'NORMAL';
    const def = this.state.dbByName(session.login.defaultDatabase);
    if (def) session.db = def;
  }

  private async *run(session: Session, request: ExecRequest, exec: ExecContext): AsyncGenerator<Output, void> {
    switch (request.kind) {
      case 'batch':
        yield* this.interp.runBatch(session, request.sql, exec, false);
        return;
      case 'rpc': {
        const proc = request.procedure.toLowerCase().replace(/^sys\./, '');
        if (proc === 'sp_executesql') {
          const vars = new Map<string, Variable>();
          for (const p of request.parameters) {
            const c = new Cursor(tokenize(p.typeName), p.typeName);
            const { type } = parseType(c);
            vars.set(p.name.toLowerCase(), { type, value: coerce(p.value, type) });
          }
          // The protocol layer ends an RPC with RETURNSTATUS 0 and DONEPROC itself.
          yield* this.interp.runBatch(session, request.statement ?? '', exec, true, vars);
          return;
        }
        // A user procedure: typed RPC parameters bound by name to its declared parameters (procedures.ts).
        const user = findProcedure(this.state, session, nameParts(request.procedure));
        if (user) {
          try {
            const bound = bindArguments(user, request.parameters.map((p) => {
              const { type } = parseType(new Cursor(tokenize(p.typeName), p.typeName));
              return { name: p.name || null, value: coerce(p.value, type) };
            }), 1);
            yield* runProcedure({ interp: this.interp, exec, session }, user, bound);
          } catch (e) {
            if (!(e instanceof SqlError)) throw e;
            yield* errorOutputs(e, true);
          }
          return;
        }
        const args = request.parameters.map((p) => p.name).join(', ');
        const sql = `EXEC ${request.procedure} ${request.parameters.length ? args : ''}`;
        const vars = new Map<string, Variable>();
        for (const p of request.parameters) {
          const { type } = parseType(new Cursor(tokenize(p.typeName), p.typeName));
          vars.set(p.name.toLowerCase(), { type, value: coerce(p.value, type) });
        }
        yield* this.interp.runBatch(session, sql, exec, true, vars);
        return;
      }
      case 'transactionManager': {
        const sql = { begin: 'BEGIN TRANSACTION', commit: 'COMMIT TRANSACTION', rollback: 'ROLLBACK TRANSACTION', save: `SAVE TRANSACTION [${request.name.replace(/]/g, ']]')}]` }[request.operation];
        yield* this.interp.runBatch(session, sql, exec, false);
        return;
      }
    }
  }
}

function commandOf(text: string): string {
  const m = /^\s*(?:--[^\n]*\n\s*)*(\w+)/.exec(text);
  const w = (m?.[1] ?? 'SELECT').toUpperCase();
  if (w === 'DECLARE' || w === 'SET' || w === 'WHILE' || w === 'IF' || w === 'BEGIN') return 'EXECUTE';
  return w;
}
