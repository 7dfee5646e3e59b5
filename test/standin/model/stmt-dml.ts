// Data statements and transactions: CREATE/DROP/TRUNCATE TABLE, INSERT/UPDATE/DELETE, BEGIN/COMMIT/ROLLBACK/
// SAVE TRAN, CHECKPOINT. Every change writes modelled log records; autocommit statements commit on their own.
import type { Output, SqlValue } from '../engine';
import type { ColumnDef, Expr, Stmt } from './ast';
import { RECORD } from './durability';
import { errors, SqlError } from './errors';
import { evaluate, type EvalCtx, type ScopeCol } from './eval';
import { doneOf, type Flow, type RunCtx } from './interpreter';
import { keyOf, primaryKeys, retireKeyIndex } from './keyIndex';
import { findUserTable, planSelect } from './select';
import type { Database, Session, Table, Transaction } from './state';
import { coerce, toNumber, toText, truthy } from './values';

type Gen = AsyncGenerator<Output, Flow>;

export function rowBytes(columns: ColumnDef[], row: SqlValue[]): number {
  let n = 11; // row header + null bitmap, roughly
  columns.forEach((c, i) => {
    const v = row[i];
    switch (c.type.kind) {
      case 'bigint': case 'float': case 'datetime2': n += 8; break;
      case 'int': n += 4; break;
      case 'smallint': n += 2; break;
      case 'tinyint': case 'bit': n += 1; break;
      case 'uniqueidentifier': n += 16; break;
      case 'decimal': n += 9; break;
      case 'nvarchar': n += 2 + (v === null || v === undefined ? 0 : toText(v).length * 2); break;
      default: n += 2 + (v === null || v === undefined ? 0 : toText(v).length);
    }
  });
  return n;
}

function tableDb(ctx: RunCtx, parts: string[]): Database {
  const name = parts[parts.length - 1]!;
  if (name.startsWith('#')) return ctx.b.server.dbByName('tempdb')!;
  if (parts.length >= 3 && parts[parts.length - 3]) {
    const db = ctx.b.server.dbByName(parts[parts.length - 3]!);
    if (!db) throw errors.dbNotExist(parts[parts.length - 3]!, 0);
    return db;
  }
  return ctx.b.session.db;
}

/** The open transaction, or a new autocommit one (committed by `finish`). */
function ensureTran(session: Session, db: Database, ctx: RunCtx): { tran: Transaction; auto: boolean } {
  if (session.tran) return { tran: session.tran, auto: false };
  const tran: Transaction = { id: ctx.b.server.nextTranId++, db, begin: new Date(), logBytes: 0, logRecords: 0, undo: [], savepoints: new Map(), explicit: false };
  session.tran = tran;
  return { tran, auto: true };
}

function log(ctx: RunCtx, tran: Transaction, db: Database, bytes: number, records = 1): void {
  if (tran.logBytes === 0) {
    ctx.interp.durability.appendLog(db, RECORD.begin, 1, ctx.b.session);
    tran.logBytes += RECORD.begin;
    tran.logRecords++;
  }
  ctx.interp.durability.appendLog(db, bytes, records, ctx.b.session);
  tran.logBytes += bytes;
  tran.logRecords += records;
}

async function finish(ctx: RunCtx, tran: Transaction, auto: boolean): Promise<void> {
  if (!auto) return;
  ctx.b.session.tran = null;
  await ctx.interp.durability.commit(ctx.b.session, tran.db, tran.logBytes > 0, null, ctx.exec.signal);
}

function requireTable(ctx: RunCtx, parts: string[], line: number): Table {
  const t = findUserTable(ctx.b, parts);
  if (!t) throw errors.invalidObject(parts.join('.'), line);
  return t;
}

function defaultValue(ctx: RunCtx, t: Table, i: number): SqlValue {
  const c = t.columns[i]!;
  if (c.identity) {
    const v = t.nextIdentity;
    t.nextIdentity += c.identity.increment;
    ctx.b.identity = v;
    return v;
  }
  return c.default ? coerce(evaluate(c.default, { batch: ctx.b, scope: null }), c.type) : null;
}

function scopeOf(t: Table): ScopeCol[] {
  return t.columns.map((c) => ({ qualifier: t.name.toLowerCase(), name: c.name, type: c.type }));
}

export function execDml(s: Stmt, ctx: RunCtx, presetRows?: SqlValue[][]): Gen | null {
  switch (s.k) {
    case 'createTable': return createTable(s, ctx, presetRows);
    case 'dropTable': return dropTable(s, ctx);
    case 'insert': return insert(s, ctx);
    case 'update': return update(s, ctx);
    case 'delete': return del(s, ctx);
    case 'truncate': return truncate(s, ctx);
    case 'beginTran': return beginTran(ctx);
    case 'commit': return commit(s, ctx);
    case 'rollback': return rollback(s, ctx);
    case 'saveTran': return saveTran(s, ctx);
    case 'checkpoint': return checkpoint(ctx);
    default: return null;
  }
}

async function* createTable(s: Stmt & { k: 'createTable' }, ctx: RunCtx, presetRows?: SqlValue[][]): Gen {
  const name = s.table[s.table.length - 1]!;
  const db = tableDb(ctx, s.table);
  const temp = name.startsWith('#');
  const map = temp ? ctx.b.session.temp : db.tables;
  if (map.has(name.toLowerCase())) throw errors.objectExists(name, s.line);
  const t: Table = { objectId: ctx.b.server.nextObjectId++, name, columns: s.columns, rows: [], nextIdentity: s.columns.find((c) => c.identity)?.identity?.seed ?? 1, rowBytes: 0 };
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  map.set(name.toLowerCase(), t);
  tran.undo.push(() => map.delete(name.toLowerCase()));
  log(ctx, tran, db, 1200, 6); // catalog rows for the table and its columns (modelled size)
  if (presetRows) {
    for (const r of presetRows) t.rows.push(r);
    log(ctx, tran, db, presetRows.reduce((a, r) => a + RECORD.rowOverhead + rowBytes(t.columns, r), 0), presetRows.length);
    ctx.interp.durability.dirtyRows(db, presetRows.length, t.rows[0] ? rowBytes(t.columns, t.rows[0]) : 0);
  }
  await finish(ctx, tran, auto);
  if (presetRows) { ctx.b.rowcount = presetRows.length; yield doneOf(ctx, presetRows.length); }
}

async function* dropTable(s: Stmt & { k: 'dropTable' }, ctx: RunCtx): Gen {
  const name = s.table[s.table.length - 1]!;
  const db = tableDb(ctx, s.table);
  const map = name.startsWith('#') ? ctx.b.session.temp : db.tables;
  const t = map.get(name.toLowerCase());
  if (!t) {
    if (s.ifExists) return;
    throw errors.cannotDropTable(name, s.line);
  }
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  map.delete(name.toLowerCase());
  tran.undo.push(() => map.set(name.toLowerCase(), t));
  log(ctx, tran, db, 800 + 40 * Math.ceil(t.rows.length / 50), 6);
  await finish(ctx, tran, auto);
}

async function* insert(s: Stmt & { k: 'insert' }, ctx: RunCtx): Gen {
  const t = requireTable(ctx, s.table, s.line);
  const db = tableDb(ctx, s.table);
  const targetIdx = s.columns
    ? s.columns.map((c) => {
        const i = t.columns.findIndex((x) => x.name.toLowerCase() === c.toLowerCase());
        if (i < 0) throw errors.invalidColumn(c, s.line);
        if (t.columns[i]!.identity) throw new SqlError(544, 16, `Cannot insert explicit value for identity column in table '${t.name}' when IDENTITY_INSERT is set to OFF.`, s.line);
        return i;
      })
    : t.columns.map((c, i) => (c.identity ? -1 : i)).filter((i) => i >= 0);
  const ev: EvalCtx = { batch: ctx.b, scope: null };
  const makeRow = (values: SqlValue[] | null): SqlValue[] => {
    const row: SqlValue[] = new Array(t.columns.length);
    for (let i = 0; i < t.columns.length; i++) {
      const k = targetIdx.indexOf(i);
      const v = values && k >= 0 ? values[k]! : undefined;
      row[i] = v === undefined || v === DEFAULT ? defaultValue(ctx, t, i) : coerce(v, t.columns[i]!.type, s.line);
      if (row[i] === null && !t.columns[i]!.nullable) {
        throw new SqlError(515, 16, `Cannot insert the value NULL into column '${t.columns[i]!.name}', table '${db.name}.dbo.${t.name}'; column does not allow nulls. INSERT fails.`, s.line);
      }
    }
    return row;
  };
  const source: Iterable<SqlValue[] | null> = s.defaultValues
    ? [null]
    : s.values
      ? s.values.map((r) => {
          if (r.length !== targetIdx.length) throw new SqlError(213, 16, 'Column name or number of supplied values does not match table definition.', s.line);
          return r.map((e) => (e.k === 'call' && e.name === '$DEFAULT' ? DEFAULT : evaluate(e, ev)));
        })
      : planSelect(s.select!, ctx.b, null).rows;
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  const start = t.rows.length;
  tran.undo.push(() => { t.rows.length = Math.min(t.rows.length, start); retireKeyIndex(t); });
  const pk = t.columns.findIndex((c) => c.primaryKey);
  const keys = pk >= 0 ? primaryKeys(t, pk) : null;
  let n = 0;
  let bytes = 0;
  for (const values of source) {
    if (values && values.length !== targetIdx.length) throw new SqlError(213, 16, 'Column name or number of supplied values does not match table definition.', s.line);
    const row = makeRow(values);
    if (keys) {
      const key = keyOf(row[pk]!);
      if (keys.has(key)) throw duplicateKey(t, row[pk]!, s.line);
      keys.add(key);
      t.rows.push(row);
      primaryKeys(t, pk); // counts the pushed row as indexed (its key is in already)
    } else {
      t.rows.push(row);
    }
    const rb = rowBytes(t.columns, row);
    bytes += rb;
    log(ctx, tran, db, RECORD.rowOverhead + rb);
    n++;
    if (n % 4096 === 0 && ctx.exec.signal.aborted) break;
  }
  if (n) { t.rowBytes = bytes / n; ctx.interp.durability.dirtyRows(db, n, bytes / n); }
  await finish(ctx, tran, auto);
  ctx.b.rowcount = n;
  yield doneOf(ctx, n);
}

const DEFAULT = Symbol('default') as unknown as SqlValue;

/** Msg 2627, level 14, then 3621 "The statement has been terminated." (as the THROW page's example output shows them,
 *  https://learn.microsoft.com/sql/t-sql/language-elements/throw-transact-sql). The constraint name is the model's. */
function duplicateKey(t: Table, value: SqlValue, line: number): SqlError {
  const name = `PK__${t.name.replace(/^#+/, '').slice(0, 8)}__${(t.objectId >>> 0).toString(16).toUpperCase().padStart(16, '0')}`;
  return new SqlError(2627, 14, `Violation of PRIMARY KEY constraint '${name}'. Cannot insert duplicate key in object 'dbo.${t.name}'. The duplicate key value is (${String(value)}).`, line, 1, [
    new SqlError(3621, 0, 'The statement has been terminated.', line),
  ]);
}

function matching(ctx: RunCtx, t: Table, where: Expr | undefined, top: number): number[] {
  const cols = scopeOf(t);
  const out: number[] = [];
  for (let i = 0; i < t.rows.length && out.length < top; i++) {
    if (!where || truthy(evaluate(where, { batch: ctx.b, scope: { cols, row: t.rows[i]!, outer: null } }))) out.push(i);
  }
  return out;
}

async function* update(s: Stmt & { k: 'update' }, ctx: RunCtx): Gen {
  const t = requireTable(ctx, s.table, s.line);
  const db = tableDb(ctx, s.table);
  const top = s.top ? toNumber(evaluate(s.top, { batch: ctx.b, scope: null })) : Infinity;
  const setIdx = s.sets.map((x) => {
    const i = t.columns.findIndex((c) => c.name.toLowerCase() === x.column.toLowerCase());
    if (i < 0) throw errors.invalidColumn(x.column, s.line);
    return i;
  });
  const rows = matching(ctx, t, s.where, top);
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  const cols = scopeOf(t);
  retireKeyIndex(t); // rows change in place (a key may change); the next INSERT rebuilds the index once
  tran.undo.push(() => retireKeyIndex(t));
  let bytes = 0;
  for (const i of rows) {
    const old = t.rows[i]!;
    const ev: EvalCtx = { batch: ctx.b, scope: { cols, row: old, outer: null } };
    const next = old.slice();
    s.sets.forEach((x, k) => { next[setIdx[k]!] = coerce(evaluate(x.e, ev), t.columns[setIdx[k]!]!.type, s.line); });
    t.rows[i] = next;
    tran.undo.push(() => { t.rows[i] = old; });
    const rb = rowBytes(t.columns, next);
    bytes += rb;
    log(ctx, tran, db, RECORD.rowOverhead + rb);
  }
  if (rows.length) ctx.interp.durability.dirtyRows(db, rows.length, bytes / rows.length);
  await finish(ctx, tran, auto);
  ctx.b.rowcount = rows.length;
  yield doneOf(ctx, rows.length);
}

async function* del(s: Stmt & { k: 'delete' }, ctx: RunCtx): Gen {
  const t = requireTable(ctx, s.table, s.line);
  const db = tableDb(ctx, s.table);
  const top = s.top ? toNumber(evaluate(s.top, { batch: ctx.b, scope: null })) : Infinity;
  const rows = matching(ctx, t, s.where, top);
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  const before = t.rows;
  const drop = new Set(rows);
  t.rows = before.filter((_, i) => !drop.has(i));
  tran.undo.push(() => { t.rows = before; });
  for (const i of rows) log(ctx, tran, db, RECORD.rowOverhead + rowBytes(t.columns, before[i]!));
  if (rows.length) ctx.interp.durability.dirtyRows(db, rows.length, 60);
  await finish(ctx, tran, auto);
  ctx.b.rowcount = rows.length;
  yield doneOf(ctx, rows.length);
}

async function* truncate(s: Stmt & { k: 'truncate' }, ctx: RunCtx): Gen {
  const t = requireTable(ctx, s.table, s.line);
  const db = tableDb(ctx, s.table);
  const { tran, auto } = ensureTran(ctx.b.session, db, ctx);
  const before = t.rows;
  const ident = t.nextIdentity;
  t.rows = [];
  t.nextIdentity = t.columns.find((c) => c.identity)?.identity?.seed ?? 1;
  tran.undo.push(() => { t.rows = before; t.nextIdentity = ident; });
  // TRUNCATE logs page/extent deallocations, not rows (modelled: one record per 8 pages).
  const pages = Math.ceil((before.length * Math.max(t.rowBytes, 20)) / 8060);
  log(ctx, tran, db, 300 + 120 * Math.ceil(pages / 8), 2 + Math.ceil(pages / 8));
  await finish(ctx, tran, auto);
}

async function* beginTran(ctx: RunCtx): Gen {
  const session = ctx.b.session;
  session.trancount++;
  if (session.trancount === 1) {
    session.tran = { id: ctx.b.server.nextTranId++, db: session.db, begin: new Date(), logBytes: 0, logRecords: 0, undo: [], savepoints: new Map(), explicit: true };
    yield { kind: 'envChange', change: { type: 'beginTransaction', descriptor: BigInt(session.tran.id) } };
  }
}

async function* commit(s: Stmt & { k: 'commit' }, ctx: RunCtx): Gen {
  const session = ctx.b.session;
  if (session.trancount === 0) throw errors.commitNoBegin(s.line);
  session.trancount--;
  if (session.trancount > 0) return;
  const tran = session.tran!;
  session.tran = null;
  yield* commitTransaction(ctx, tran, s.delayed);
}

export async function* commitTransaction(ctx: RunCtx, tran: Transaction, delayed: 'ON' | 'OFF' | null): AsyncGenerator<Output, void> {
  await ctx.interp.durability.commit(ctx.b.session, tran.db, tran.logBytes > 0, delayed, ctx.exec.signal);
  yield { kind: 'envChange', change: { type: 'commitTransaction', descriptor: BigInt(tran.id) } };
}

export function rollbackAll(ctx: { interp: RunCtx['interp']; b: { session: Session } }): Transaction | null {
  const session = ctx.b.session;
  const tran = session.tran;
  session.trancount = 0;
  session.tran = null;
  if (!tran) return null;
  for (let i = tran.undo.length - 1; i >= 0; i--) tran.undo[i]!();
  if (tran.logBytes > 0) ctx.interp.durability.appendLog(tran.db, RECORD.abort + tran.logRecords * 40, tran.logRecords + 1, session);
  return tran;
}

async function* rollback(s: Stmt & { k: 'rollback' }, ctx: RunCtx): Gen {
  const session = ctx.b.session;
  if (session.trancount === 0) throw errors.rollbackNoBegin(s.line);
  const sp = s.savepoint ? session.tran?.savepoints.get(s.savepoint.toLowerCase()) : undefined;
  if (s.savepoint && sp !== undefined) {
    const tran = session.tran!;
    while (tran.undo.length > sp) tran.undo.pop()!();
    return;
  }
  const tran = rollbackAll(ctx);
  if (tran) yield { kind: 'envChange', change: { type: 'rollbackTransaction', descriptor: BigInt(tran.id) } };
}

async function* saveTran(s: Stmt & { k: 'saveTran' }, ctx: RunCtx): Gen {
  const tran = ctx.b.session.tran;
  if (!tran || ctx.b.session.trancount === 0) throw new SqlError(628, 16, 'Cannot issue SAVE TRANSACTION when there is no active transaction.', s.line);
  tran.savepoints.set(s.name.toLowerCase(), tran.undo.length);
}

async function* checkpoint(ctx: RunCtx): Gen {
  await ctx.interp.durability.checkpoint(ctx.b.session, ctx.b.session.db, ctx.exec.signal);
}
