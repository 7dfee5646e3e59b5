// Expression evaluation and static result-type inference over one row scope: column refs, variables,
// @@functions, operators, CASE/CAST and the built-in functions listed in MODEL.md.
import type { Column, ColumnType, SqlValue } from '../engine';
import type { Expr, Select } from './ast';
import { errors, SqlError } from './errors';
import { builtinType, callBuiltin, isAggregate } from './functions';
import type { Server } from './server';
import type { Session } from './state';
import { arith, coerce, compare, isString, like, promote, toText, truthy } from './values';

export interface Variable {
  type: ColumnType;
  value: SqlValue;
}

export interface BatchContext {
  server: Server;
  session: Session;
  vars: Map<string, Variable>;
  rowcount: number;
  identity: SqlValue;
  error: number;
  runSelect(q: Select, outer: Scope | null): { columns: Column[]; rows: SqlValue[][] };
}

export interface ScopeCol {
  qualifier: string | null;
  name: string;
  type: ColumnType;
}

export interface Scope {
  cols: ScopeCol[];
  row: SqlValue[];
  outer?: Scope | null;
}

export interface EvalCtx {
  batch: BatchContext;
  scope: Scope | null;
  /** Aggregate values of the current group, keyed by the aggregate call node. */
  agg?: Map<Expr, SqlValue>;
  /** 1-based position of the row being projected (ROW_NUMBER() OVER (...) in the order rows are produced). */
  rowNumber?: number;
}

const resolveCache = new WeakMap<Expr, { cols: ScopeCol[]; idx: number; depth: number }>();

export function resolveColumn(scope: Scope | null, e: Expr & { k: 'col' }): { scope: Scope; idx: number } {
  const cached = resolveCache.get(e);
  let s = scope;
  let depth = 0;
  if (cached) {
    for (let i = 0; i < cached.depth && s; i++) s = s.outer ?? null;
    if (s && s.cols === cached.cols) return { scope: s, idx: cached.idx };
    s = scope;
  }
  const name = e.parts[e.parts.length - 1]!.toLowerCase();
  const qual = e.parts.length > 1 ? e.parts[e.parts.length - 2]!.toLowerCase() : null;
  while (s) {
    let found = -1;
    for (let i = 0; i < s.cols.length; i++) {
      const c = s.cols[i]!;
      if (c.name.toLowerCase() !== name) continue;
      if (qual !== null && c.qualifier !== qual) continue;
      if (found >= 0) throw errors.ambiguousColumn(e.parts.join('.'), e.line);
      found = i;
    }
    if (found >= 0) {
      resolveCache.set(e, { cols: s.cols, idx: found, depth });
      return { scope: s, idx: found };
    }
    s = s.outer ?? null;
    depth++;
  }
  if (qual !== null && !hasQualifier(scope, qual)) {
    throw new SqlError(4104, 16, `The multi-part identifier "${e.parts.join('.')}" could not be bound.`, e.line);
  }
  throw errors.invalidColumn(e.parts[e.parts.length - 1]!, e.line);
}

function hasQualifier(scope: Scope | null, q: string): boolean {
  for (let s = scope; s; s = s.outer ?? null) if (s.cols.some((c) => c.qualifier === q)) return true;
  return false;
}

export function getVar(ctx: EvalCtx, name: string, line: number): Variable {
  const v = ctx.batch.vars.get(name.toLowerCase());
  if (!v) throw errors.mustDeclare(name, line);
  return v;
}

export function evaluate(e: Expr, ctx: EvalCtx): SqlValue {
  switch (e.k) {
    case 'lit': return e.v;
    case 'col': {
      const { scope, idx } = resolveColumn(ctx.scope, e);
      return scope.row[idx] ?? null;
    }
    case 'var': return getVar(ctx, e.name, e.line).value;
    case 'sysvar': return sysvar(e.name, ctx, e.line);
    case 'star': throw new SqlError(102, 15, "Incorrect syntax near '*'.", 0);
    case 'unary': {
      const v = evaluate(e.e, ctx);
      if (v === null) return null;
      if (e.op === '+') return v;
      if (e.op === '~') return typeof v === 'bigint' ? ~v : ~Number(v);
      return typeof v === 'bigint' ? -v : -Number(v);
    }
    case 'bin': return arith(e.op, evaluate(e.l, ctx), evaluate(e.r, ctx), typeOf(e, ctx), e.line);
    case 'cmp': {
      const l = evaluate(e.l, ctx);
      const r = evaluate(e.r, ctx);
      if (l === null || r === null) return null;
      const c = compare(l, r);
      switch (e.op) {
        case '=': return c === 0;
        case '<>': return c !== 0;
        case '<': return c < 0;
        case '>': return c > 0;
        case '<=': return c <= 0;
        case '>=': return c >= 0;
      }
      return null;
    }
    case 'and': {
      const l = evaluate(e.l, ctx);
      if (l === false) return false;
      const r = evaluate(e.r, ctx);
      if (r === false) return false;
      return l === null || r === null ? null : true;
    }
    case 'or': {
      const l = evaluate(e.l, ctx);
      if (l === true) return true;
      const r = evaluate(e.r, ctx);
      if (r === true) return true;
      return l === null || r === null ? null : false;
    }
    case 'not': {
      const v = evaluate(e.e, ctx);
      return v === null ? null : !truthy(v);
    }
    case 'isnull': {
      const isNull = evaluate(e.e, ctx) === null;
      return e.not ? !isNull : isNull;
    }
    case 'in': {
      const v = evaluate(e.e, ctx);
      if (v === null) return null;
      const values = Array.isArray(e.list) ? e.list.map((x) => evaluate(x, ctx)) : ctx.batch.runSelect(e.list, ctx.scope).rows.map((r) => r[0] ?? null);
      let sawNull = false;
      for (const x of values) {
        if (x === null) { sawNull = true; continue; }
        if (compare(v, x) === 0) return !e.not;
      }
      return sawNull ? null : e.not;
    }
    case 'like': {
      const v = evaluate(e.e, ctx);
      const p = evaluate(e.pattern, ctx);
      if (v === null || p === null) return null;
      const m = like(toText(v), toText(p), likeIsUnicode(e, ctx));
      return e.not ? !m : m;
    }
    case 'between': {
      const v = evaluate(e.e, ctx);
      const lo = evaluate(e.lo, ctx);
      const hi = evaluate(e.hi, ctx);
      if (v === null || lo === null || hi === null) return null;
      const r = compare(v, lo) >= 0 && compare(v, hi) <= 0;
      return e.not ? !r : r;
    }
    case 'case': {
      if (e.operand) {
        const v = evaluate(e.operand, ctx);
        for (const [w, t] of e.whens) {
          const x = evaluate(w, ctx);
          if (v !== null && x !== null && compare(v, x) === 0) return evaluate(t, ctx);
        }
      } else {
        for (const [w, t] of e.whens) if (truthy(evaluate(w, ctx))) return evaluate(t, ctx);
      }
      return e.otherwise ? evaluate(e.otherwise, ctx) : null;
    }
    case 'cast': {
      const v = evaluate(e.e, ctx);
      if (v instanceof Date && isString(e.type)) {
        const iso = v.toISOString();
        return coerce(iso.slice(0, 10) + (e.style && evaluate(e.style, ctx) === 126 ? 'T' : ' ') + iso.slice(11, 23), e.type, e.line);
      }
      if (typeof v === 'boolean' && isString(e.type)) return v ? '1' : '0';
      const out = coerce(v, e.type, e.line);
      // Keep decimals numeric inside expressions; they are formatted on output.
      return e.type.kind === 'decimal' && typeof out === 'string' ? Number(out) : out;
    }
    case 'exists': return ctx.batch.runSelect(e.q, ctx.scope).rows.length > 0;
    case 'subq': {
      const r = ctx.batch.runSelect(e.q, ctx.scope).rows;
      if (r.length > 1) throw new SqlError(512, 16, 'Subquery returned more than 1 value. This is not permitted when the subquery follows =, !=, <, <= , >, >= or when the subquery is used as an expression.', e.q.line);
      return r[0]?.[0] ?? null;
    }
    case 'call': {
      if (isAggregate(e.name)) {
        if (ctx.agg?.has(e)) return ctx.agg.get(e)!;
        throw new SqlError(8120, 16, `Column is invalid in the select list because it is not contained in either an aggregate function or the GROUP BY clause.`, e.line);
      }
      return callBuiltin(e, ctx);
    }
  }
}

const unicodeLike = new WeakMap<Expr, boolean>();
/** Unicode LIKE when either side is nchar/nvarchar (the LIKE page: all arguments are then converted to Unicode). */
function likeIsUnicode(e: Expr & { k: 'like' }, ctx: EvalCtx): boolean {
  let u = unicodeLike.get(e);
  if (u === undefined) {
    u = typeOf(e.e, ctx).kind === 'nvarchar' || typeOf(e.pattern, ctx).kind === 'nvarchar';
    unicodeLike.set(e, u);
  }
  return u;
}

function sysvar(name: string, ctx: EvalCtx, line: number): SqlValue {
  const { server, session } = ctx.batch;
  switch (name) {
    case '@@SPID': return session.spid;
    case '@@VERSION': return server.versionString();
    case '@@SERVERNAME': return server.options.serverName;
    case '@@SERVICENAME': return 'MSSQLSERVER';
    case '@@TRANCOUNT': return session.trancount;
    case '@@ROWCOUNT': return ctx.batch.rowcount;
    case '@@IDENTITY': return ctx.batch.identity;
    case '@@ERROR': return ctx.batch.error;
    case '@@LOCK_TIMEOUT': return session.lockTimeout;
    case '@@LANGUAGE': return 'us_english';
    case '@@MICROSOFTVERSION': return server.options.major * 16777216 + server.productBuild();
    case '@@MAX_PRECISION': return 38;
    // "@@MAX_CONNECTIONS (Transact-SQL)": the maximum allowed, not necessarily the configured value (32,767 in Learn's example).
    case '@@MAX_CONNECTIONS': return 32767;
    default: throw errors.syntax(name, line);
  }
}

/** Static result type of an expression (what the column metadata says before any row is read). */
export function typeOf(e: Expr, ctx: EvalCtx): ColumnType {
  switch (e.k) {
    case 'lit': return e.t;
    case 'col': {
      const { scope, idx } = resolveColumn(ctx.scope, e);
      return scope.cols[idx]!.type;
    }
    case 'var': return getVar(ctx, e.name, e.line).type;
    case 'sysvar':
      switch (e.name) {
        case '@@SPID': case '@@LANGUAGE': return e.name === '@@SPID' ? { kind: 'smallint' } : { kind: 'nvarchar', length: 128 };
        case '@@VERSION': return { kind: 'nvarchar', length: 300 };
        case '@@SERVERNAME': case '@@SERVICENAME': return { kind: 'nvarchar', length: 128 };
        case '@@IDENTITY': return { kind: 'decimal', precision: 38, scale: 0 };
        default: return { kind: 'int' };
      }
    case 'star': return { kind: 'int' };
    case 'unary': return typeOf(e.e, ctx);
    case 'bin': {
      const l = typeOf(e.l, ctx);
      const r = typeOf(e.r, ctx);
      if (e.op === '+' && (isString(l) || isString(r))) {
        if (isString(l) && isString(r)) return promote(l, r);
        return isString(l) ? r : l;
      }
      return promote(l, r);
    }
    case 'cmp': case 'and': case 'or': case 'not': case 'isnull': case 'in': case 'like': case 'between': case 'exists':
      return { kind: 'bit' };
    case 'case': {
      let t: ColumnType | null = null;
      for (const [, v] of e.whens) t = t ? promote(t, litTypeOrNull(v, ctx) ?? t) : litTypeOrNull(v, ctx);
      if (e.otherwise) t = t ? promote(t, litTypeOrNull(e.otherwise, ctx) ?? t) : litTypeOrNull(e.otherwise, ctx);
      return t ?? { kind: 'int' };
    }
    case 'cast': return e.type;
    case 'subq': {
      const r = ctx.batch.runSelect({ ...e.q, top: { k: 'lit', v: 0, t: { kind: 'int' } } }, ctx.scope);
      return r.columns[0]?.type ?? { kind: 'int' };
    }
    case 'call': return builtinType(e, ctx);
  }
}

function litTypeOrNull(e: Expr, ctx: EvalCtx): ColumnType | null {
  return e.k === 'lit' && e.v === null ? null : typeOf(e, ctx);
}
