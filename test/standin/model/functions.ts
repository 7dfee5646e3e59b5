// Built-in scalar functions the probes use (DB_ID, SERVERPROPERTY, HAS_PERMS_BY_NAME, QUOTENAME, string and
// date helpers), with their result types. Unknown names raise 195 like SQL Server.
import { commitCauses } from './commitCauses';
import type { ColumnType, SqlValue } from '../engine';
import type { Expr } from './ast';
import { errors, SqlError } from './errors';
import { evaluate, type EvalCtx, typeOf } from './eval';
import { procedureDefinition, procedureNameParts, procedureObjectId, procedureProperty } from './procedures';
import { DATABASE_PERMISSIONS, SERVER_PERMISSIONS_2019, SERVER_PERMISSIONS_2022 } from './server';
import { currentCaught } from './trycatch';
import { compare, dateFromText, promote, toNumber, toText } from './values';

type Call = Expr & { k: 'call' };
const AGGREGATES = new Set(['COUNT', 'COUNT_BIG', 'SUM', 'MIN', 'MAX', 'AVG']);

export function isAggregate(name: string): boolean {
  return AGGREGATES.has(name);
}

const NV = (n: number | 'max'): ColumnType => ({ kind: 'nvarchar', length: n });

export function builtinType(e: Call, ctx: EvalCtx): ColumnType {
  const arg = (i: number) => (e.args[i] ? typeOf(e.args[i]!, ctx) : ({ kind: 'int' } as ColumnType));
  switch (e.name) {
    case 'COUNT': return { kind: 'int' };
    case 'COUNT_BIG': return { kind: 'bigint' };
    case 'SUM': { const t = arg(0); return t.kind === 'int' || t.kind === 'smallint' || t.kind === 'tinyint' ? { kind: 'int' } : t; }
    case 'MIN': case 'MAX': return arg(0);
    case 'AVG': return arg(0).kind === 'float' ? { kind: 'float' } : arg(0);
    case 'DB_ID': return { kind: 'smallint' };
    case 'DB_NAME': case 'QUOTENAME': case 'SUSER_NAME': case 'SUSER_SNAME': case 'ORIGINAL_LOGIN': case 'USER_NAME': case 'APP_NAME': case 'HOST_NAME': case 'SCHEMA_NAME': case 'OBJECT_NAME': case 'OBJECT_SCHEMA_NAME': case 'FILE_NAME':
      return NV(e.name === 'QUOTENAME' ? 258 : 128);
    case 'SERVERPROPERTY': case 'DATABASEPROPERTYEX': return { kind: 'nvarchar', length: 128 };
    case 'IS_SRVROLEMEMBER': return { kind: 'int' };
    case 'SYSUTCDATETIME': case 'SYSDATETIME': return { kind: 'datetime2', scale: 7 };
    case 'GETDATE': case 'GETUTCDATE': case 'CURRENT_TIMESTAMP': case 'DATEADD': return { kind: 'datetime2', scale: 3 };
    case 'SYSDATETIMEOFFSET': return { kind: 'datetimeoffset', scale: 7 };
    case 'OBJECT_DEFINITION': return { kind: 'nvarchar', length: 'max' };
    case 'OBJECTPROPERTY': return { kind: 'int' };
    case 'HAS_PERMS_BY_NAME': case 'OBJECT_ID': case 'LEN': case 'DATALENGTH': case 'CHARINDEX': case 'DATEDIFF': case 'FILE_ID': case 'FILE_IDEX': case 'DATEPART': return { kind: 'int' };
    case 'DATEDIFF_BIG': case 'ROW_NUMBER': return { kind: 'bigint' };
    case 'ISNULL': return arg(0);
    case 'COALESCE': case 'IIF': case 'NULLIF': {
      const args = e.name === 'IIF' ? e.args.slice(1) : e.name === 'NULLIF' ? e.args.slice(0, 1) : e.args;
      let t: ColumnType | null = null;
      for (const a of args) if (!(a.k === 'lit' && a.v === null)) t = t ? promote(t, typeOf(a, ctx)) : typeOf(a, ctx);
      return t ?? { kind: 'int' };
    }
    case 'RTRIM': case 'LTRIM': case 'TRIM': case 'UPPER': case 'LOWER': case 'LEFT': case 'RIGHT': case 'SUBSTRING': {
      // Results are variable length (RTRIM of an nchar is nvarchar), so the fixed flag is dropped.
      const t = arg(0);
      return t.kind === 'nvarchar' || t.kind === 'varchar' ? { kind: t.kind, length: t.length } : { kind: 'varchar', length: 8000 };
    }
    case 'REPLACE': case 'REPLICATE': case 'STUFF': {
      // Results can be longer than the input: (n)varchar(8000)-sized, or max for max inputs.
      const t = arg(0);
      if (t.kind === 'nvarchar') return { kind: 'nvarchar', length: t.length === 'max' ? 'max' : 4000 };
      return { kind: 'varchar', length: t.kind === 'varchar' && t.length === 'max' ? 'max' : 8000 };
    }
    case 'CONCAT': case 'FORMAT': case 'STR': case 'SPACE': case 'CONCAT_WS': return NV(4000);
    case 'ABS': case 'ROUND': case 'FLOOR': case 'CEILING': return arg(0);
    case 'POWER': case 'SQRT': case 'LOG': case 'RAND': return { kind: 'float' };
    case 'NEWID': return { kind: 'uniqueidentifier' };
    case 'ERROR_NUMBER': case 'ERROR_SEVERITY': case 'ERROR_STATE': case 'ERROR_LINE': return { kind: 'int' };
    case 'ERROR_MESSAGE': return NV(4000);
    case 'ERROR_PROCEDURE': return NV(128);
    default: throw errors.unknownFunction(e.name, e.line);
  }
}

export function callBuiltin(e: Call, ctx: EvalCtx): SqlValue {
  const { server, session } = ctx.batch;
  const a = (i: number): SqlValue => (e.args[i] ? evaluate(e.args[i]!, ctx) : null);
  const s = (i: number): string | null => { const v = a(i); return v === null ? null : toText(v); };
  switch (e.name) {
    // The error the running CATCH block handles; NULL outside a CATCH block (TRY...CATCH page, "Retrieve error
    // information"). ERROR_PROCEDURE is always NULL: NOT modelled for errors inside user procedures (procedures.ts; MODEL.md).
    case 'ERROR_NUMBER': return currentCaught(session)?.number ?? null;
    case 'ERROR_SEVERITY': return currentCaught(session)?.cls ?? null;
    case 'ERROR_STATE': return currentCaught(session)?.state ?? null;
    case 'ERROR_LINE': return currentCaught(session)?.line ?? null;
    case 'ERROR_MESSAGE': return currentCaught(session)?.message ?? null;
    case 'ERROR_PROCEDURE': return null;
    case 'DB_ID': {
      if (!e.args.length) return session.db.id;
      const n = s(0);
      return n === null ? null : server.dbByName(n)?.id ?? null;
    }
    case 'DB_NAME': {
      if (!e.args.length) return session.db.name;
      const id = a(0);
      return id === null ? null : server.databases.get(toNumber(id))?.name ?? null;
    }
    case 'SERVERPROPERTY': {
      const p = (s(0) ?? '').toLowerCase();
      const v = server.productVersion();
      const map: Record<string, SqlValue> = {
        productversion: v,
        productmajorversion: String(server.reportedMajor()),
        productminorversion: '0',
        productbuild: String(server.productBuild()),
        productlevel: 'RTM',
        productupdatelevel: `CU${server.options.cu}`,
        edition: server.options.product !== 'sqlserver' ? 'SQL Azure' : 'Developer Edition (64-bit)',
        // EngineEdition 5 = SQL Database, 8 = Managed Instance (https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql).
        engineedition: server.engineEdition(),
        servername: server.options.serverName,
        machinename: server.options.serverName,
        instancename: null,
        isclustered: 0,
        ishadrenabled: [...server.databases.values()].some((d) => d.agGroupId) ? 1 : 0,
        collation: 'SQL_Latin1_General_CP1_CI_AS',
        isintegratedsecurityonly: 0,
      };
      return p in map ? map[p]! : null;
    }
    case 'DATABASEPROPERTYEX': {
      // https://learn.microsoft.com/sql/t-sql/functions/databasepropertyex-transact-sql: ServiceObjective / Edition are
      // Azure SQL Database's (NULL elsewhere here), Recovery, Status, Updateability as on SQL Server.
      const db = server.dbByName(s(0) ?? '');
      if (!db) return null;
      const azure = server.options.product === 'azure-sqldb';
      const objective = server.options.serviceObjective;
      switch ((s(1) ?? '').toLowerCase()) {
        case 'serviceobjective': return azure && objective ? objective : null;
        // Hyperscale (commitCauses.ts): 'Hyperscale', the EDITION CREATE DATABASE takes (the property's page lists no value for it: NOT CONFIRMED).
        case 'edition': return azure && commitCauses(server).hyperscale ? 'Hyperscale' : !azure || !objective ? null : (/^basic$/i.test(objective) ? 'Basic' : /^s\d/i.test(objective) ? 'Standard' : /^p\d/i.test(objective) ? 'Premium' : objective);
        case 'recovery': return db.recoveryModel;
        case 'status': return 'ONLINE';
        case 'updateability': return db.readOnly ? 'READ_ONLY' : 'READ_WRITE';
        default: return null;
      }
    }
    case 'IS_SRVROLEMEMBER': {
      // https://learn.microsoft.com/sql/t-sql/functions/is-srvrolemember-transact-sql: 1 member, 0 not, NULL unknown role/login.
      const role = (s(0) ?? '').toLowerCase();
      const who = e.args.length > 1 ? server.logins.get((s(1) ?? '').toLowerCase()) : session.login;
      if (!who) return null;
      if (role === 'sysadmin') return who.sysadmin ? 1 : 0;
      const known = ['serveradmin', 'securityadmin', 'processadmin', 'setupadmin', 'bulkadmin', 'diskadmin', 'dbcreator', 'public',
        '##ms_serverstatereader##', '##ms_serverperformancestatereader##', '##ms_definitionreader##', '##ms_serversecuritystatereader##', '##ms_databaseconnector##', '##ms_loginmanager##', '##ms_databasemanager##'];
      if (!known.includes(role)) return null;
      return role === 'public' || who.sysadmin || who.serverRoles.has(role) ? 1 : 0;
    }
    // https://learn.microsoft.com/sql/t-sql/functions/getdate-transact-sql: the local time of the machine the server runs
    // on; the UTC kin and SYSDATETIMEOFFSET (with the machine's offset) name the same instant.
    case 'SYSUTCDATETIME': case 'GETUTCDATE': return server.now();
    case 'SYSDATETIME': case 'GETDATE': case 'CURRENT_TIMESTAMP': return server.localTime(server.now());
    case 'SYSDATETIMEOFFSET': return { date: server.now(), offsetMinutes: server.utcOffsetMinutes };
    case 'HAS_PERMS_BY_NAME': {
      const securable = s(0);
      const cls = (s(1) ?? 'SERVER').toUpperCase();
      const perm = (s(2) ?? '').toUpperCase();
      if (cls === 'SERVER') {
        // NULL for a permission name this version does not have (e.g. VIEW SERVER PERFORMANCE STATE before 2022).
        const known = server.options.major >= 16 ? SERVER_PERMISSIONS_2022 : SERVER_PERMISSIONS_2019;
        if (!known.includes(perm)) return null;
        return server.hasServerPermission(session.login, perm) ? 1 : 0;
      }
      if (cls === 'DATABASE') {
        const db = securable === null ? session.db : server.dbByName(securable);
        if (!db) return null;
        if (!DATABASE_PERMISSIONS.includes(perm) && !(server.options.azure && perm.includes('DATABASE EVENT SESSION'))) return null;
        return server.hasDatabasePermission(session.login, db, perm) ? 1 : 0;
      }
      if (cls === 'OBJECT') return session.login.sysadmin ? 1 : 0;
      return null;
    }
    case 'QUOTENAME': {
      const v = s(0);
      if (v === null || v.length > 128) return null;
      const q = e.args.length > 1 ? s(1) ?? '[' : '[';
      if (q === '[' || q === ']') return '[' + v.replace(/]/g, ']]') + ']';
      if (q === "'") return "'" + v.replace(/'/g, "''") + "'";
      if (q === '"') return '"' + v.replace(/"/g, '""') + '"';
      return null;
    }
    case 'ISNULL': { const v = a(0); return v === null ? a(1) : v; }
    case 'COALESCE': { for (let i = 0; i < e.args.length; i++) { const v = a(i); if (v !== null) return v; } return null; }
    case 'NULLIF': { const x = a(0); const y = a(1); return x !== null && y !== null && compare(x, y) === 0 ? null : x; }
    case 'IIF': return a(0) === true ? a(1) : a(2);
    case 'RTRIM': { const v = s(0); return v === null ? null : v.replace(/ +$/, ''); }
    case 'LTRIM': { const v = s(0); return v === null ? null : v.replace(/^ +/, ''); }
    case 'TRIM': { const v = s(0); return v === null ? null : v.trim(); }
    case 'UPPER': { const v = s(0); return v === null ? null : v.toUpperCase(); }
    case 'LOWER': { const v = s(0); return v === null ? null : v.toLowerCase(); }
    case 'LEN': { const v = s(0); return v === null ? null : v.replace(/ +$/, '').length; }
    case 'DATALENGTH': { const v = a(0); if (v === null) return null; const t = typeOf(e.args[0]!, ctx); return t.kind === 'nvarchar' ? toText(v).length * 2 : t.kind === 'varchar' ? toText(v).length : 8; }
    case 'LEFT': { const v = s(0); return v === null ? null : v.slice(0, toNumber(a(1))); }
    case 'RIGHT': { const v = s(0); const n = toNumber(a(1)); return v === null ? null : n <= 0 ? '' : v.slice(-n); }
    case 'SUBSTRING': { const v = s(0); if (v === null) return null; const st = toNumber(a(1)); const ln = toNumber(a(2)); const from = Math.max(1, st); return v.slice(from - 1, Math.max(0, st + ln - 1)); }
    case 'REPLACE': { const v = s(0); const f = s(1); const r = s(2); if (v === null || f === null || r === null) return null; return f === '' ? v : v.split(f).join(r); }
    case 'REPLICATE': { const v = s(0); return v === null ? null : v.repeat(Math.max(0, toNumber(a(1)))); }
    case 'SPACE': return ' '.repeat(Math.max(0, toNumber(a(0))));
    case 'CHARINDEX': { const f = s(0); const v = s(1); if (f === null || v === null) return null; return v.toLowerCase().indexOf(f.toLowerCase(), Math.max(0, toNumber(a(2) ?? 1) - 1)) + 1; }
    case 'CONCAT': return e.args.map((_, i) => s(i) ?? '').join('');
    case 'STR': { const v = a(0); return v === null ? null : String(Math.round(toNumber(v))).padStart(toNumber(a(1) ?? 10), ' '); }
    case 'ABS': { const v = a(0); return v === null ? null : typeof v === 'bigint' ? (v < 0n ? -v : v) : Math.abs(toNumber(v)); }
    case 'ROUND': { const v = a(0); if (v === null) return null; const p = 10 ** toNumber(a(1) ?? 0); return Math.round(toNumber(v) * p) / p; }
    case 'FLOOR': { const v = a(0); return v === null ? null : Math.floor(toNumber(v)); }
    case 'CEILING': { const v = a(0); return v === null ? null : Math.ceil(toNumber(v)); }
    case 'POWER': return toNumber(a(0)) ** toNumber(a(1));
    case 'SQRT': return Math.sqrt(toNumber(a(0)));
    case 'RAND': return Math.random();
    case 'DATEDIFF': case 'DATEDIFF_BIG': case 'DATEADD': case 'DATEPART': return dateFunc(e, ctx);
    case 'OBJECT_ID': {
      const n = s(0);
      if (n === null) return null;
      const parts = n.replace(/[[\]]/g, '').split('.');
      const name = parts[parts.length - 1]!.toLowerCase();
      const db = parts.length >= 3 ? server.dbByName(parts[0]!) : session.db;
      // A table first, then a user procedure (procedures.ts); the object_type argument ('U', 'P') filters.
      const kind = (s(1) ?? '').trim().toUpperCase();
      const table = kind === '' || kind === 'U' ? db?.tables.get(name)?.objectId ?? null : null;
      return table ?? (kind === '' || kind === 'P' ? procedureObjectId(server, session, n) : null);
    }
    case 'OBJECT_DEFINITION': { const id = a(0); return id === null ? null : procedureDefinition(server, session, toNumber(id)); }
    case 'OBJECTPROPERTY': { const id = a(0); const prop = s(1); return id === null || prop === null ? null : procedureProperty(session, toNumber(id), prop) ?? null; }
    // A procedure's or user table's name and schema in the current database (https://learn.microsoft.com/sql/t-sql/functions/object-name-transact-sql,
    // .../object-schema-name-transact-sql); NULL for anything else (the second argument, a database id, is ignored).
    case 'OBJECT_NAME': case 'OBJECT_SCHEMA_NAME': {
      const id = a(0);
      if (id === null) return null;
      const proc = procedureNameParts(session, toNumber(id));
      const table = proc ? null : [...session.db.tables.values()].find((t) => t.objectId === toNumber(id));
      const found = proc ?? (table ? { schema: 'dbo', name: table.name } : null);
      return found === null ? null : e.name === 'OBJECT_NAME' ? found.name : found.schema;
    }
    case 'SCHEMA_NAME': return 'dbo';
    case 'SUSER_NAME': case 'SUSER_SNAME': case 'ORIGINAL_LOGIN': return session.login.name;
    case 'USER_NAME': return session.login.sysadmin ? 'dbo' : session.login.name;
    case 'APP_NAME': return session.appName;
    case 'HOST_NAME': return session.hostName;
    case 'FILE_ID': case 'FILE_IDEX': { const n = (s(0) ?? '').toLowerCase(); return session.db.files.find((f) => f.name.toLowerCase() === n)?.fileId ?? null; }
    case 'FILE_NAME': { const id = a(0); return session.db.files.find((f) => f.fileId === toNumber(id))?.name ?? null; }
    case 'NEWID': return crypto.randomUUID().toUpperCase();
    case 'ROW_NUMBER': return BigInt(ctx.rowNumber ?? 1);
    case 'FORMAT': { const v = a(0); return v === null ? null : toText(v); }
    default: throw errors.unknownFunction(e.name, e.line);
  }
}

const DATEPART_MS: Record<string, number> = {
  millisecond: 1, ms: 1, second: 1000, ss: 1000, s: 1000, minute: 60000, mi: 60000, n: 60000, hour: 3600000, hh: 3600000, day: 86400000, dd: 86400000, d: 86400000,
  microsecond: 0.001, mcs: 0.001, nanosecond: 0.000001, ns: 0.000001,
};

function dateFunc(e: Call, ctx: EvalCtx): SqlValue {
  const partExpr = e.args[0];
  const part = partExpr?.k === 'col' ? partExpr.parts[0]!.toLowerCase() : '';
  const unit = DATEPART_MS[part];
  if (unit === undefined) throw new SqlError(155, 15, `'${part}' is not a recognized ${e.name.toLowerCase()} option.`, e.line);
  const toDate = (v: SqlValue): Date | null => (v === null ? null : v instanceof Date ? v : typeof v === 'object' && v !== null && 'date' in v ? v.date : dateFromText(toText(v)));
  if (e.name === 'DATEADD') {
    const n = evaluate(e.args[1]!, ctx);
    const d = toDate(evaluate(e.args[2]!, ctx));
    return d === null || n === null ? null : new Date(d.getTime() + toNumber(n) * unit);
  }
  if (e.name === 'DATEPART') {
    const d = toDate(evaluate(e.args[1]!, ctx));
    if (!d) return null;
    return part.startsWith('m') && part !== 'minute' && part !== 'mi' ? d.getUTCMilliseconds() : Math.floor(d.getTime() / unit);
  }
  const d1 = toDate(evaluate(e.args[1]!, ctx));
  const d2 = toDate(evaluate(e.args[2]!, ctx));
  if (!d1 || !d2) return null;
  const diff = Math.floor(d2.getTime() / unit) - Math.floor(d1.getTime() / unit);
  return e.name === 'DATEDIFF_BIG' ? BigInt(diff) : diff;
}
