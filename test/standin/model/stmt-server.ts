// Server statements: ALTER DATABASE ... SET DELAYED_DURABILITY / RECOVERY, event sessions (CREATE/ALTER/DROP),
// DBCC (TRACESTATUS, LOGINFO, SQLPERF, CHECKIDENT; CHECKDB and BACKUP in stmt-io.ts), EXEC of sys.sp_flush_log / sp_executesql / EXEC('...').
import type { Output, SqlValue } from '../engine';
import type { Stmt } from './ast';
import { alterQueryStore } from './queryStore';
import { errors, SqlError } from './errors';
import { evaluate, type EvalCtx, type Variable } from './eval';
import { doneOf, type Flow, info, type RunCtx } from './interpreter';
import { tokenize } from './lexer';
import { Cursor, parseType } from './parse-expr';
import type { Database } from './state';
import { lsnNumeric, reportedLogBytes, vlfView } from './catalog-dmv';
import { availableEvents } from './catalog-xe';
import { newSession, startTargets, validateSessionDefinition } from './xe';
import { coerce, toNumber, toText } from './values';
import { sleep } from './durability';
import { backupDatabase, checkdb } from './stmt-io';
import { blobUrlRequired } from './select';
import { getAppLock, releaseAppLock } from './applock';
import { isExtendedPropertyProcedure, runExtendedPropertyProcedure } from './extprops';
import { killSession } from './kill';
import { bindArguments, findProcedure, runProcedure } from './procedures';

type Gen = AsyncGenerator<Output, Flow>;
const DBCC_DONE = 'DBCC execution completed. If DBCC printed error messages, contact your system administrator.';

export function execServerStatement(s: Stmt, ctx: RunCtx): Gen | null {
  switch (s.k) {
    case 'alterDatabase': return alterDatabase(s, ctx);
    case 'createEventSession': return createEventSession(s, ctx);
    case 'alterEventSession': return alterEventSession(s, ctx);
    case 'dropEventSession': return dropEventSession(s, ctx);
    case 'dbcc': return dbcc(s, ctx);
    case 'backup': return backupDatabase(s, ctx);
    case 'exec': return exec(s, ctx);
    case 'execString': return execString(s, ctx);
    case 'kill': return killSession(s, ctx);
    default: return null;
  }
}

async function* alterDatabase(s: Stmt & { k: 'alterDatabase' }, ctx: RunCtx): Gen {
  const { server, session } = ctx.b;
  const name = s.db ?? session.db.name;
  const db = server.dbByName(name);
  const faults = ctx.interp.faults;
  if (!db || !server.hasDatabasePermission(session.login, db, 'ALTER') || faults.alterDatabaseDenied) throw errors.alterDbPermission(name, s.line);
  let apply: (d: Database) => void;
  if (s.option === 'DELAYED_DURABILITY') {
    const v = { DISABLED: 0, ALLOWED: 1, FORCED: 2 }[s.value] as 0 | 1 | 2 | undefined;
    if (v === undefined) throw errors.syntax(s.value, s.line);
    // NOT CONFIRMED whether system databases accept the option (reference §5): the model refuses them (MODEL.md).
    if (db.system) throw new SqlError(5058, 16, `Option 'DELAYED_DURABILITY' cannot be set in database '${db.name}'.`, s.line, 1, [new SqlError(5069, 16, 'ALTER DATABASE statement failed.', s.line)]);
    const blocking = v !== 0 ? delayedDurabilityBlocker(db, server.options) : null;
    if (blocking) {
      // "Starting in SQL Server 2022 CU2 and SQL Server 2019 CU20 … Enable delayed durability for a database with
      // Transactional Replication, Change Tracking, or Change Data Capture enabled. You will receive error 22892: Could
      // not enable delayed durability on DB. Delayed durability cannot be enabled on a DB while 'FeatureName' is enabled."
      // (Control Transaction Durability, https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability).
      // The feature names, severity, state and the 5069 follow-up are NOT CONFIRMED (MODEL.md).
      throw new SqlError(22892, 16, `Could not enable delayed durability on DB. Delayed durability cannot be enabled on a DB while '${blocking}' is enabled.`, s.line, 1, [
        new SqlError(5069, 16, 'ALTER DATABASE statement failed.', s.line),
      ]);
    }
    apply = (d) => { d.delayedDurability = v; };
  } else if (s.option === 'QUERY_STORE') {
    // Query Store options (queryStore.ts); applied at once: the model takes no lock for them (modelling choice).
    const refused = alterQueryStore(server, db, s.value, s.settings ?? []);
    if (refused !== null) throw errors.syntax(refused, s.line);
    return;
  } else if (s.option === 'RECOVERY') {
    const v = s.value as 'FULL' | 'SIMPLE' | 'BULK_LOGGED';
    if (!['FULL', 'SIMPLE', 'BULK_LOGGED'].includes(v)) throw errors.syntax(s.value, s.line);
    apply = (d) => { d.recoveryModel = v; };
  } else {
    throw errors.syntax(s.option, s.line);
  }
  if (faults.alterDatabaseLocked) {
    if (s.noWait) throw errors.alterDbLocked(db.name, s.line);
    // Without a termination clause ALTER DATABASE waits for the lock (reference §5), bounded by SET LOCK_TIMEOUT.
    const deadline = session.lockTimeout >= 0 ? performance.now() + session.lockTimeout : Infinity;
    session.currentWait = { type: 'LCK_M_X', startedAt: performance.now(), resource: `DATABASE: ${db.id}` };
    try {
      while (faults.alterDatabaseLocked) {
        if (performance.now() >= deadline) throw new SqlError(1222, 16, 'Lock request time out period exceeded.', s.line, 56, [new SqlError(5069, 16, 'ALTER DATABASE statement failed.', s.line)]);
        await sleep(Math.min(5, Math.max(0, deadline - performance.now())), ctx.exec.signal);
      }
    } finally {
      session.currentWait = null;
    }
  }
  apply(db);
}

/** The feature that blocks delayed durability on this build (2019 CU20+, 2022 CU2+, later versions), or null. */
function delayedDurabilityBlocker(db: Database, o: { major: number; cu: number }): string | null {
  const enforced = o.major > 16 || (o.major === 16 && o.cu >= 2) || (o.major === 15 && o.cu >= 20);
  if (!enforced) return null;
  if (db.isPublished) return 'Transactional Replication';
  if (db.changeTracking) return 'Change Tracking';
  if (db.isCdcEnabled) return 'Change Data Capture';
  return null;
}

function requirePerm(ctx: RunCtx, perms: string[], line: number): void {
  const l = ctx.b.session.login;
  if (!perms.some((p) => ctx.b.server.hasServerPermission(l, p))) throw errors.noPermission(line);
}

async function* createEventSession(s: Stmt & { k: 'createEventSession' }, ctx: RunCtx): Gen {
  const { server, session } = ctx.b;
  if (s.scope === 'DATABASE' && !server.options.azure) throw new SqlError(25706, 16, 'The event session option, "ON DATABASE", is not supported in this edition of SQL Server.', s.line);
  if (s.scope === 'SERVER' && server.options.azure) throw new SqlError(40516, 16, 'Global temp objects and server-scoped event sessions are not supported in this version of SQL Server.', s.line);
  if (ctx.interp.faults.createEventSessionDenied) throw errors.noPermission(s.line);
  if (s.scope === 'SERVER') requirePerm(ctx, server.options.major >= 16 ? ['CREATE ANY EVENT SESSION', 'ALTER ANY EVENT SESSION'] : ['ALTER ANY EVENT SESSION'], s.line);
  else if (!server.hasDatabasePermission(session.login, session.db, 'CONTROL') && !session.login.databasePermissions.get(session.db.name.toLowerCase())?.has('CREATE ANY DATABASE EVENT SESSION')) throw errors.noPermission(s.line);
  const key = sessionKey(s.name, s.scope, session.db.id);
  if (server.eventSessions.has(key)) throw new SqlError(25631, 16, `The event session, "${s.name}", already exists.  Choose a unique name for the event session.`, s.line);
  validateSessionDefinition(s.events, s.targets, new Set(availableEvents(ctx.b)), s.line);
  // Azure SQL Database and MI write event_file targets to blob storage only ("Targets for Extended Events": only Azure
  // Blob URLs for filename); a local path at CREATE raising 40538 is third-party observation, NOT CONFIRMED (MODEL.md).
  if (server.options.product !== 'sqlserver') {
    for (const t of s.targets) {
      if (t.name.toLowerCase() === 'event_file' && !/^https:\/\//i.test(String(t.settings['filename'] ?? ''))) throw blobUrlRequired(s.line);
    }
  }
  const id = 65536 + server.eventSessions.size + Math.floor(Math.random() * 1000) * 16;
  const es = newSession(id, s, s.scope === 'DATABASE' ? session.db.id : null);
  server.eventSessions.set(key, es);
}

export function sessionKey(name: string, scope: 'SERVER' | 'DATABASE', dbId: number): string {
  // Session names compare exactly as stored (bracketed names round-trip); the catalog collation is case-insensitive.
  return scope === 'SERVER' ? 'S:' + name.toLowerCase() : `D${dbId}:` + name.toLowerCase();
}

function findSession(ctx: RunCtx, name: string, scope: 'SERVER' | 'DATABASE', verb: 'alter' | 'drop', line: number) {
  const es = ctx.b.server.eventSessions.get(sessionKey(name, scope, ctx.b.session.db.id));
  if (!es) throw new SqlError(15151, 16, `Cannot ${verb} the event session '${name}', because it does not exist or you do not have permission.`, line);
  return es;
}

async function* alterEventSession(s: Stmt & { k: 'alterEventSession' }, ctx: RunCtx): Gen {
  const { server } = ctx.b;
  if (s.scope === 'SERVER') requirePerm(ctx, ['ALTER ANY EVENT SESSION', s.state === 'START' ? 'ALTER ANY EVENT SESSION ENABLE' : 'ALTER ANY EVENT SESSION DISABLE'], s.line);
  const es = findSession(ctx, s.name, s.scope, 'alter', s.line);
  if (s.state === 'START') {
    if (es.running) throw new SqlError(25705, 16, 'The event session has already been started.', s.line);
    const dir = server.options.platform === 'Linux' ? '/var/opt/mssql/log/' : 'C:\\Program Files\\Microsoft SQL Server\\MSSQL16.MSSQLSERVER\\MSSQL\\Log\\';
    startTargets(es, server.xeFiles, dir, server.now());
  } else {
    if (!es.running) throw new SqlError(25704, 16, 'The event session has not been started.', s.line);
    es.running = false;
    es.ring = null; // ring_buffer data lives only while the session runs
  }
}

async function* dropEventSession(s: Stmt & { k: 'dropEventSession' }, ctx: RunCtx): Gen {
  if (s.scope === 'SERVER') requirePerm(ctx, ctx.b.server.options.major >= 16 ? ['DROP ANY EVENT SESSION', 'ALTER ANY EVENT SESSION'] : ['ALTER ANY EVENT SESSION'], s.line);
  findSession(ctx, s.name, s.scope, 'drop', s.line);
  ctx.b.server.eventSessions.delete(sessionKey(s.name, s.scope, ctx.b.session.db.id));
}

async function* dbcc(s: Stmt & { k: 'dbcc' }, ctx: RunCtx): Gen {
  const ev: EvalCtx = { batch: ctx.b, scope: null };
  const args = s.args.map((a) => (a.k === 'col' ? a.parts.join('.') : evaluate(a, ev)));
  const quiet = s.with.includes('NO_INFOMSGS');
  const { server, session } = ctx.b;
  switch (s.command) {
    case 'TRACESTATUS': {
      const flags = server.options.traceFlags;
      const wanted = args.filter((a) => a !== null && toNumber(a) !== -1).map((a) => toNumber(a));
      const rows = (wanted.length ? wanted : flags).map((f) => [f, flags.includes(f) ? 1 : 0, flags.includes(f) ? 1 : 0, 0] as SqlValue[]);
      const col = (name: string) => ({ name, type: { kind: 'smallint' as const }, nullable: true });
      yield { kind: 'resultSet', columns: [col('TraceFlag'), col('Status'), col('Global'), col('Session')], rows };
      yield doneOf(ctx, rows.length);
      break;
    }
    case 'LOGINFO': {
      const db = args[0] ? server.dbByName(toText(args[0])) : session.db;
      if (!db) throw errors.dbNotExist(toText(args[0]), s.line);
      const rows = vlfView(db).map((v) => [0, 2, BigInt(v.sizeBytes), BigInt(v.offset), v.sequence, v.status, v.sequence ? 64 : 0, v.createLsn ? lsnNumeric(v.createLsn) : '0'] as SqlValue[]);
      const c = (name: string, kind: 'int' | 'bigint' | 'tinyint') => ({ name, type: { kind }, nullable: true });
      yield { kind: 'resultSet', columns: [c('RecoveryUnitId', 'int'), c('FileId', 'int'), c('FileSize', 'bigint'), c('StartOffset', 'bigint'), c('FSeqNo', 'int'), c('Status', 'int'), c('Parity', 'tinyint'), { name: 'CreateLSN', type: { kind: 'decimal', precision: 25, scale: 0 }, nullable: true }], rows };
      yield doneOf(ctx, rows.length);
      break;
    }
    case 'SQLPERF': {
      const what = toText(args[0] ?? '').toUpperCase();
      if (what === 'LOGSPACE') {
        const rows = [...server.databases.values()].map((d) => {
          // "Always smaller than the amount originally allocated": the file less 8 KB (reportedLogBytes).
          const total = reportedLogBytes(d);
          return [d.name, total / (1024 * 1024), (100 * d.log.usedBytes) / total, 0] as SqlValue[];
        });
        yield { kind: 'resultSet', columns: [{ name: 'Database Name', type: { kind: 'nvarchar', length: 128 }, nullable: true }, { name: 'Log Size (MB)', type: { kind: 'float' }, nullable: true }, { name: 'Log Space Used (%)', type: { kind: 'float' }, nullable: true }, { name: 'Status', type: { kind: 'int' }, nullable: true }], rows };
        yield doneOf(ctx, rows.length);
      } else if (what.toLowerCase() === 'sys.dm_os_wait_stats' && toText(args[1] ?? '').toUpperCase() === 'CLEAR') {
        server.requireServerState(session, s.line);
        server.waits.clear();
      } else throw errors.syntax(toText(args[0] ?? 'SQLPERF'), s.line);
      break;
    }
    case 'CHECKIDENT': {
      const parts = toText(args[0] ?? '').replace(/[[\]]/g, '').split('.');
      const t = parts[parts.length - 1]!.startsWith('#') ? session.temp.get(parts[parts.length - 1]!.toLowerCase()) : session.db.tables.get(parts[parts.length - 1]!.toLowerCase());
      if (!t) throw new SqlError(2501, 16, `Cannot find a table or object with the name "${toText(args[0])}". Check the system catalog.`, s.line);
      const col = t.columns.find((c) => c.identity);
      if (!col) throw new SqlError(7997, 16, `'${t.name}' does not contain an identity column.`, s.line);
      const current = t.nextIdentity - col.identity!.increment;
      if (toText(args[1] ?? '').toUpperCase() === 'RESEED' && args[2] !== undefined) {
        // After RESEED n the next row gets n + increment, or n itself on a table that never had rows (documented CHECKIDENT behaviour).
        const n = toNumber(args[2]);
        t.nextIdentity = t.rows.length === 0 && current < col.identity!.seed ? n : n + col.identity!.increment;
        if (!quiet) yield info(2560, `Checking identity information: current identity value '${current}'.`, s.line);
      } else if (!quiet) yield info(7998, `Checking identity information: current identity value '${current}', current column value '${current}'.`, s.line);
      break;
    }
    case 'CHECKDB':
      yield* checkdb(args, s.with, ctx, s.line);
      break;
    case 'DROPCLEANBUFFERS': case 'FREEPROCCACHE': case 'FREESYSTEMCACHE':
      if (!session.login.sysadmin) throw new SqlError(2571, 14, `User '${session.login.name}' does not have permission to run DBCC ${s.command.toLowerCase()}.`, s.line);
      break;
    default:
      throw new SqlError(2526, 16, `Incorrect DBCC statement. Check the documentation for the correct DBCC syntax and options.`, s.line);
  }
  if (!quiet) yield info(2528, DBCC_DONE, s.line, 10);
}

async function* exec(s: Stmt & { k: 'exec' }, ctx: RunCtx): Gen {
  const proc = s.proc.filter(Boolean).map((p) => p.toLowerCase());
  const name = proc[proc.length - 1]!;
  const schema = proc.length > 1 ? proc[proc.length - 2] : 'sys';
  const ev: EvalCtx = { batch: ctx.b, scope: null };
  let status = 0;
  if (name === 'sp_flush_log' && schema === 'sys') {
    await ctx.interp.durability.flushAndWait(ctx.b.session, ctx.b.session.db, ctx.exec.signal);
    status = 1; // "Return code 1 = success" per the reference §5
  } else if ((name === 'sp_getapplock' || name === 'sp_releaseapplock') && schema === 'sys') {
    const args = s.args.map((a) => ({ name: a.name ?? null, value: evaluate(a.e, ev) }));
    status = name === 'sp_getapplock' ? getAppLock(ctx.b, args) : releaseAppLock(ctx.b, args);
  } else if (isExtendedPropertyProcedure(name) && schema === 'sys') {
    status = runExtendedPropertyProcedure(ctx.b, name, s.args.map((a) => ({ name: a.name ?? null, value: evaluate(a.e, ev) })), s.line);
  } else if (name === 'sp_executesql' && schema === 'sys') {
    const stmt = s.args[0] ? toText(evaluate(s.args[0].e, ev)) : '';
    // Statement faults match the statement sp_executesql compiles, so one probe of a composed batch can be refused alone.
    const fault = ctx.interp.faults.matchRequest(stmt);
    if (fault) throw new SqlError(fault.number, fault.class ?? 16, fault.message, 1, fault.state ?? 1);
    const decl = s.args[1] ? toText(evaluate(s.args[1].e, ev)) : '';
    const vars = declareParams(decl, s.args.slice(2).map((a) => ({ name: a.name ?? null, value: evaluate(a.e, ev) })), s.line);
    yield* ctx.interp.runBatch(ctx.b.session, stmt, ctx.exec, true, vars);
  } else {
    const user = findProcedure(ctx.b.server, ctx.b.session, s.proc);
    if (!user) throw new SqlError(2812, 16, `Could not find stored procedure '${s.proc.filter(Boolean).join('.')}'.`, s.line);
    const vars = bindArguments(user, s.args.map((a) => ({ name: a.name ?? null, value: evaluate(a.e, ev) })), s.line);
    yield* runProcedure({ interp: ctx.interp, exec: ctx.exec, session: ctx.b.session }, user, vars);
  }
  if (s.returnVar) {
    const v = ctx.b.vars.get(s.returnVar.toLowerCase());
    if (!v) throw errors.mustDeclare(s.returnVar, s.line);
    v.value = coerce(status, v.type);
  }
  yield { kind: 'returnStatus', value: status };
}

/** Parses an sp_executesql @params declaration ("@a int, @b nvarchar(10)") and binds values by name or position. */
export function declareParams(decl: string, values: Array<{ name: string | null; value: SqlValue }>, line: number): Map<string, Variable> {
  const vars = new Map<string, Variable>();
  const names: string[] = [];
  if (decl.trim()) {
    const c = new Cursor(tokenize(decl), decl);
    do {
      if (c.tok.kind !== 'var') throw errors.syntax(c.tok.value, line);
      const n = c.next().value;
      c.acceptKw('AS');
      const { type } = parseType(c);
      c.acceptKw('OUTPUT') || c.acceptKw('OUT');
      vars.set(n.toLowerCase(), { type, value: null });
      names.push(n.toLowerCase());
    } while (c.acceptOp(','));
  }
  values.forEach((v, i) => {
    const key = (v.name ?? names[i] ?? '').toLowerCase();
    const target = vars.get(key);
    if (!target) throw new SqlError(8145, 16, `${v.name ?? '@' + i} is not a parameter for procedure sp_executesql.`, line);
    target.value = coerce(v.value, target.type, line);
  });
  return vars;
}

async function* execString(s: Stmt & { k: 'execString' }, ctx: RunCtx): Gen {
  const sql = toText(evaluate(s.e, { batch: ctx.b, scope: null }));
  yield* ctx.interp.runBatch(ctx.b.session, sql, ctx.exec, ctx.inProc);
}
