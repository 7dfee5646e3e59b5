// Evaluates a parsed SELECT over virtual tables (catalog/DMVs) and user tables: joins, APPLY, WHERE,
// GROUP BY with aggregates, DISTINCT, ORDER BY, TOP. Plain scans stream lazily (generators) so huge
// tables never become arrays.
import type { Column, ColumnType, SqlValue } from '../engine';
import type { Expr, FromItem, Select } from './ast';
import { findVirtualTable } from './catalog';
import { errors, SqlError } from './errors';
import { type BatchContext, evaluate, type EvalCtx, type Scope, type ScopeCol, typeOf } from './eval';
import { isAggregate } from './functions';
import type { Table } from './state';
import { coerce, compare, toNumber, truthy } from './values';

interface Source {
  cols: ScopeCol[];
  rows(outer: Scope | null): Iterable<SqlValue[]>;
}

export interface QueryResult {
  columns: Column[];
  rows: Iterable<SqlValue[]>;
  /** Variable assignments (SELECT @v = ...) produce no result set. */
  assigns?: Array<{ name: string; index: number }>;
}

export function findUserTable(b: BatchContext, parts: string[]): Table | undefined {
  const name = parts[parts.length - 1]!.toLowerCase();
  if (name.startsWith('#')) return b.session.temp.get(name);
  if (parts.length >= 3 && parts[parts.length - 3]) {
    const db = b.server.dbByName(parts[parts.length - 3]!);
    return db?.tables.get(name);
  }
  return b.session.db.tables.get(name);
}

function buildSource(item: FromItem, b: BatchContext, outerForTypes: Scope | null): Source {
  if (item.k === 'table') {
    const qualifier = (item.alias ?? item.parts[item.parts.length - 1]!).toLowerCase();
    const vt = findVirtualTable(item.parts, b.server);
    if (vt) {
      const isFn = vt.argCount !== undefined;
      if (isFn && !item.args) throw new SqlError(216, 16, `Parameters were not supplied for the function '${item.parts.join('.')}'.`, item.line);
      if (!isFn && item.args) throw errors.invalidObject(item.parts.join('.'), item.line);
      if (isFn && item.args!.length !== vt.argCount)
        throw new SqlError(216, 16, `An insufficient number of arguments were supplied for the procedure or function ${item.parts.join('.')}.`, item.line);
      vt.check?.(b, item.line);
      const cols = vt.columns.map((c) => ({ qualifier, name: c.name, type: c.type }));
      return {
        cols,
        rows(outer) {
          const ctx: EvalCtx = { batch: b, scope: outer };
          const args = (item.args ?? []).map((a) => evaluate(a, ctx));
          if (vt.name === 'sys.fn_xe_file_target_read_file') requireBlobPath(b, args[0] ?? null, item.line);
          const out: SqlValue[][] = [];
          for (const r of vt.rows(b, args, item.line)) out.push(vt.columns.map((c) => coerce(r[c.name] ?? null, c.type)));
          return out;
        },
      };
    }
    const t = findUserTable(b, item.parts);
    if (!t) throw errors.invalidObject(item.parts.join('.'), item.line);
    return {
      cols: t.columns.map((c) => ({ qualifier, name: c.name, type: c.type })),
      rows: () => t.rows,
    };
  }
  if (item.k === 'derived') {
    const r = runSelect(item.q, b, outerForTypes, true);
    const cols = r.columns.map((c) => ({ qualifier: item.alias.toLowerCase(), name: c.name, type: c.type }));
    return { cols, rows: (outer) => runSelect(item.q, b, outer, true).rows };
  }
  const left = buildSource(item.left, b, outerForTypes);
  const right = buildSource(item.right, b, { cols: left.cols, row: [], outer: outerForTypes });
  const cols = [...left.cols, ...right.cols];
  const nullRight = right.cols.map(() => null);
  const on = item.on;
  const type = item.type;
  return {
    cols,
    *rows(outer) {
      // Right sides that do not depend on the left row are read once.
      let cached: SqlValue[][] | null = null;
      const rightRows = (l: SqlValue[]): Iterable<SqlValue[]> => {
        if (type === 'crossApply' || type === 'outerApply') return right.rows({ cols: left.cols, row: l, outer });
        cached ??= [...right.rows(outer)];
        return cached;
      };
      for (const l of left.rows(outer)) {
        let matched = false;
        for (const r of rightRows(l)) {
          const row = l.concat(r);
          if (on && !truthy(evaluate(on, { batch: b, scope: { cols, row, outer } }))) continue;
          matched = true;
          yield row;
        }
        if (!matched && (type === 'left' || type === 'outerApply')) yield l.concat(nullRight);
      }
    },
  };
}

function collectAggregates(e: Expr | undefined, out: Array<Expr & { k: 'call' }>, windows: Array<Expr & { k: 'call' }> = []): void {
  if (!e) return;
  if (e.k === 'call' && isAggregate(e.name)) { (e.over ? windows : out).push(e); return; }
  for (const v of Object.values(e)) {
    if (v && typeof v === 'object') {
      if (Array.isArray(v)) for (const x of v) { if (Array.isArray(x)) x.forEach((y) => collectAggregates(y as Expr, out, windows)); else if (x && typeof x === 'object' && 'k' in x) collectAggregates(x as Expr, out, windows); }
      else if ('k' in v && !('items' in v)) collectAggregates(v as Expr, out, windows);
    }
  }
}

function aggregate(call: Expr & { k: 'call' }, rows: SqlValue[][], cols: ScopeCol[], b: BatchContext, outer: Scope | null): SqlValue {
  const arg = call.args[0];
  const star = !arg || arg.k === 'star';
  let values: SqlValue[] = star ? rows.map(() => 1) : rows.map((row) => evaluate(arg, { batch: b, scope: { cols, row, outer } })).filter((v) => v !== null);
  if (call.distinct) {
    const seen: SqlValue[] = [];
    for (const v of values) if (!seen.some((s) => compare(s, v) === 0)) seen.push(v);
    values = seen;
  }
  switch (call.name) {
    case 'COUNT': return values.length;
    case 'COUNT_BIG': return BigInt(values.length);
    case 'SUM': case 'AVG': {
      if (!values.length) return null;
      if (values.some((v) => typeof v === 'bigint')) {
        const s = values.reduce<bigint>((a, v) => a + BigInt(Math.trunc(toNumber(v))), 0n);
        return call.name === 'SUM' ? s : s / BigInt(values.length);
      }
      const s = values.reduce<number>((a, v) => a + toNumber(v), 0);
      return call.name === 'SUM' ? s : s / values.length;
    }
    case 'MIN': case 'MAX': {
      if (!values.length) return null;
      let best: SqlValue = values[0]!;
      for (const v of values) if (call.name === 'MIN' ? compare(v, best) < 0 : compare(v, best) > 0) best = v;
      return best;
    }
  }
  return null;
}

/**
 * Runs a SELECT. `stream` = rows may stay lazy; otherwise they are materialised (subqueries, IN lists).
 * `outer` is the enclosing row for correlated subqueries and APPLY.
 */
export function runSelect(q: Select, b: BatchContext, outer: Scope | null, stream = false): QueryResult & { rows: SqlValue[][] } {
  const r = planSelect(q, b, outer);
  return { ...r, rows: stream ? (r.rows as SqlValue[][]) : [...r.rows] };
}

export function planSelect(q: Select, b: BatchContext, outer: Scope | null): QueryResult {
  const src: Source = q.from ? buildSource(q.from, b, outer) : { cols: [], rows: () => [[]] };
  const typeCtx: EvalCtx = { batch: b, scope: { cols: src.cols, row: [], outer } };

  // Expand the select list.
  type OutItem = { name: string; expr: Expr; assign?: string };
  const items: OutItem[] = [];
  for (const it of q.items) {
    if (it.k === 'star') {
      const qual = it.qualifier?.toLowerCase();
      const picked = src.cols.map((c, i) => ({ c, i })).filter(({ c }) => !qual || c.qualifier === qual);
      if (!q.from) throw new SqlError(263, 16, 'Must specify table to select from.', q.line);
      if (qual && !picked.length) throw new SqlError(4104, 16, `The multi-part identifier "${it.qualifier}" could not be bound.`, q.line);
      for (const { c } of picked) items.push({ name: c.name, expr: { k: 'col', parts: c.qualifier ? [c.qualifier, c.name] : [c.name], line: q.line } });
    } else {
      const name = it.alias ?? (it.e.k === 'col' ? it.e.parts[it.e.parts.length - 1]! : '');
      items.push(it.assignVar ? { name, expr: it.e, assign: it.assignVar } : { name, expr: it.e });
    }
  }
  const assigning = items.some((i) => i.assign);
  if (assigning && items.some((i) => !i.assign)) throw new SqlError(141, 15, 'A SELECT statement that assigns a value to a variable must not be combined with data-retrieval operations.', q.line);

  const types: ColumnType[] = items.map((i) => typeOf(i.expr, typeCtx));
  const columns: Column[] = items.map((i, k) => ({ name: i.name, type: types[k]!, nullable: true }));

  const aggs: Array<Expr & { k: 'call' }> = [];
  const windows: Array<Expr & { k: 'call' }> = [];
  for (const i of items) collectAggregates(i.expr, aggs, windows);
  collectAggregates(q.having, aggs);
  for (const o of q.orderBy) collectAggregates(o.e, aggs);
  const grouped = q.groupBy.length > 0 || aggs.length > 0;

  const where = q.where;
  const scan = function* (): Iterable<SqlValue[]> {
    for (const row of src.rows(outer)) {
      if (where && !truthy(evaluate(where, { batch: b, scope: { cols: src.cols, row, outer } }))) continue;
      yield row;
    }
  };
  // Window aggregates (OVER ()) see every qualifying row, so those queries read their rows first.
  let windowValues: Map<Expr, SqlValue> | undefined;
  let filtered = scan;
  if (windows.length) {
    if (grouped) throw new SqlError(102, 15, "Incorrect syntax near 'OVER'.", q.line);
    const all = [...scan()];
    windowValues = new Map(windows.map((w) => [w, aggregate(w, all, src.cols, b, outer)]));
    filtered = () => all;
  }

  let rowNumber = 0;
  const project = (row: SqlValue[], groupAgg?: Map<Expr, SqlValue>): SqlValue[] => {
    const agg = groupAgg ?? windowValues;
    const ctx: EvalCtx = agg ? { batch: b, scope: { cols: src.cols, row, outer }, agg } : { batch: b, scope: { cols: src.cols, row, outer } };
    ctx.rowNumber = ++rowNumber;
    return items.map((i, k) => coerce(evaluate(i.expr, ctx), types[k]!, q.line));
  };

  const topN = q.top ? toNumber(evaluate(q.top, { batch: b, scope: outer })) : Infinity;
  const needsMaterialize = grouped || q.orderBy.length > 0 || q.distinct;

  if (!needsMaterialize) {
    const rows = function* (): Iterable<SqlValue[]> {
      if (topN <= 0) return;
      let n = 0;
      for (const row of filtered()) {
        yield project(row);
        if (++n >= topN) return;
      }
    };
    return assigning ? withAssign({ columns, rows: rows() }, items) : { columns, rows: rows() };
  }

  // Materialising path: groups → output rows with their sort keys.
  const outRows: Array<{ out: SqlValue[]; src: SqlValue[]; agg?: Map<Expr, SqlValue> }> = [];
  if (grouped) {
    const groups = new Map<string, SqlValue[][]>();
    for (const row of filtered()) {
      const key = q.groupBy.map((g) => keyOf(evaluate(g, { batch: b, scope: { cols: src.cols, row, outer } }))).join('\u0001');
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(row);
    }
    if (!q.groupBy.length && groups.size === 0) groups.set('', []);
    for (const rows of groups.values()) {
      const agg = new Map<Expr, SqlValue>();
      for (const a of aggs) agg.set(a, aggregate(a, rows, src.cols, b, outer));
      const first = rows[0] ?? src.cols.map(() => null);
      if (q.having && !truthy(evaluate(q.having, { batch: b, scope: { cols: src.cols, row: first, outer }, agg }))) continue;
      outRows.push({ out: project(first, agg), src: first, agg });
    }
  } else {
    for (const row of filtered()) outRows.push({ out: project(row), src: row });
  }

  let result = outRows;
  if (q.distinct) {
    const seen = new Set<string>();
    result = result.filter((r) => { const k = r.out.map(keyOf).join('\u0001'); if (seen.has(k)) return false; seen.add(k); return true; });
  }
  if (q.orderBy.length) {
    const outCols: ScopeCol[] = items.map((i, k) => ({ qualifier: null, name: i.name, type: types[k]! }));
    const keyed = result.map((r) => ({
      r,
      keys: q.orderBy.map((o) => {
        if (o.e.k === 'lit' && typeof o.e.v === 'number') return r.out[o.e.v - 1] ?? null;
        if (o.e.k === 'col' && o.e.parts.length === 1) {
          const idx = items.findIndex((i) => i.name.toLowerCase() === (o.e as { parts: string[] }).parts[0]!.toLowerCase());
          if (idx >= 0) return r.out[idx]!;
        }
        const srcScope: Scope = { cols: src.cols, row: r.src, outer };
        const ctx: EvalCtx = r.agg ? { batch: b, scope: { cols: outCols, row: r.out, outer: srcScope }, agg: r.agg } : { batch: b, scope: { cols: src.cols, row: r.src, outer: { cols: outCols, row: r.out, outer } } };
        return evaluate(o.e, ctx);
      }),
    }));
    keyed.sort((x, y) => {
      for (let i = 0; i < q.orderBy.length; i++) {
        const a = x.keys[i]!;
        const c = y.keys[i]!;
        let d = a === null && c === null ? 0 : a === null ? -1 : c === null ? 1 : compare(a, c);
        if (q.orderBy[i]!.desc) d = -d;
        if (d !== 0) return d;
      }
      return 0;
    });
    result = keyed.map((k) => k.r);
  }
  const rows = result.slice(0, topN === Infinity ? undefined : Math.max(0, topN)).map((r) => r.out);
  return assigning ? withAssign({ columns, rows }, items) : { columns, rows };
}

function withAssign(r: QueryResult, items: Array<{ assign?: string }>): QueryResult {
  return { ...r, assigns: items.map((i, index) => ({ name: i.assign!, index })) };
}

function keyOf(v: SqlValue): string {
  if (v === null) return '\u0000';
  if (typeof v === 'string') return 's' + v.replace(/ +$/, '').toLowerCase();
  if (v instanceof Date) return 'd' + v.getTime();
  if (typeof v === 'object') return 'o' + v.date.getTime();
  return 'n' + String(v);
}

/**
 * Azure SQL Database and Managed Instance read event files from blob storage only: "If you specify wildcard and/or a
 * path for a local file system, you receive an error message similar to: Msg 40538, Level 16, State 3 … A valid URL
 * beginning with 'https://' is required as value for any filepath specified."
 * (https://learn.microsoft.com/sql/relational-databases/system-functions/sys-fn-xe-file-target-read-file-transact-sql)
 */
export function requireBlobPath(b: BatchContext, path: SqlValue, line: number): void {
  if (b.server.options.product === 'sqlserver') return;
  const text = path === null ? '' : String(path);
  if (!/^https:\/\//i.test(text) || text.includes('*')) throw blobUrlRequired(line);
}

export function blobUrlRequired(line: number): SqlError {
  return new SqlError(40538, 16, "A valid URL beginning with 'https://' is required as value for any filepath specified.", line, 3);
}
