// Parser for SELECT: select list (aliases, @var =, *), TOP, INTO, FROM with joins/APPLY/derived tables/TVF
// arguments, WHERE, GROUP BY, HAVING, ORDER BY, OPTION (...) (accepted and ignored).
import type { Expr, FromItem, Select, SelectItem } from './ast';
import { type Cursor, parseExpr, parsePrimary } from './parse-expr';

export function parseSelect(c: Cursor): Select {
  const line = c.tok.line;
  c.expectKw('SELECT');
  const q: Select = { line, distinct: false, items: [], groupBy: [], orderBy: [] };
  if (c.acceptKw('DISTINCT')) q.distinct = true;
  else c.acceptKw('ALL');
  if (c.acceptKw('TOP')) {
    q.top = c.acceptOp('(') ? (() => { const e = parseExpr(c); c.expectOp(')'); return e; })() : parsePrimary(c);
    c.acceptKw('PERCENT'); // accepted, treated as a row count (documented gap)
  }
  do q.items.push(parseSelectItem(c)); while (c.acceptOp(','));
  if (c.acceptKw('INTO')) q.into = c.multipart();
  if (c.acceptKw('FROM')) q.from = parseFrom(c);
  if (c.acceptKw('WHERE')) q.where = parseExpr(c);
  if (c.acceptKw('GROUP', 'BY')) {
    do q.groupBy.push(parseExpr(c)); while (c.acceptOp(','));
  }
  if (c.acceptKw('HAVING')) q.having = parseExpr(c);
  if (c.acceptKw('ORDER', 'BY')) {
    do {
      const e = parseExpr(c);
      const desc = c.acceptKw('DESC');
      if (!desc) c.acceptKw('ASC');
      q.orderBy.push({ e, desc });
    } while (c.acceptOp(','));
  }
  if (c.acceptKw('OPTION')) {
    // query hints such as OPTION (RECOMPILE) are accepted and ignored
    c.expectOp('(');
    let depth = 1;
    while (depth > 0) {
      if (c.tok.kind === 'eof') throw c.unexpected();
      const t = c.next();
      if (t.kind === 'op' && t.value === '(') depth++;
      if (t.kind === 'op' && t.value === ')') depth--;
    }
  }
  return q;
}

function parseSelectItem(c: Cursor): SelectItem {
  if (c.isOp('*')) { c.next(); return { k: 'star' }; }
  // @v = expr
  if (c.tok.kind === 'var' && c.isOp('=', c.peek())) {
    const name = c.next().value;
    c.next();
    return { k: 'expr', e: parseExpr(c), assignVar: name };
  }
  // alias = expr
  if ((c.tok.kind === 'ident' && c.isName()) && c.isOp('=', c.peek()) && !c.isOp('.', c.peek())) {
    const alias = c.next().value;
    c.next();
    return { k: 'expr', e: parseExpr(c), alias };
  }
  if (c.tok.kind === 'string' && c.isOp('=', c.peek())) {
    const alias = c.next().value;
    c.next();
    return { k: 'expr', e: parseExpr(c), alias };
  }
  const e = parseExpr(c);
  if (e.k === 'star') return e.qualifier ? { k: 'star', qualifier: e.qualifier } : { k: 'star' };
  const alias = parseAlias(c);
  return alias !== undefined ? { k: 'expr', e, alias } : { k: 'expr', e };
}

function parseAlias(c: Cursor): string | undefined {
  if (c.acceptKw('AS')) {
    if (c.tok.kind === 'string') return c.next().value;
    return c.name();
  }
  if (c.isName() || c.tok.kind === 'string') return c.next().value;
  return undefined;
}

function parseFrom(c: Cursor): FromItem {
  let left = parseTableRef(c);
  for (;;) {
    if (c.acceptOp(',')) { left = { k: 'join', type: 'cross', left, right: parseTableRef(c) }; continue; }
    if (c.acceptKw('CROSS', 'JOIN')) { left = { k: 'join', type: 'cross', left, right: parseTableRef(c) }; continue; }
    if (c.acceptKw('CROSS', 'APPLY')) { left = { k: 'join', type: 'crossApply', left, right: parseTableRef(c) }; continue; }
    if (c.acceptKw('OUTER', 'APPLY')) { left = { k: 'join', type: 'outerApply', left, right: parseTableRef(c) }; continue; }
    let type: 'inner' | 'left' | null = null;
    if (c.acceptKw('JOIN') || c.acceptKw('INNER', 'JOIN')) type = 'inner';
    else if (c.acceptKw('LEFT', 'JOIN') || c.acceptKw('LEFT', 'OUTER', 'JOIN')) type = 'left';
    if (!type) return left;
    const right = parseTableRef(c);
    c.expectKw('ON');
    left = { k: 'join', type, left, right, on: parseExpr(c) };
  }
}

function parseTableRef(c: Cursor): FromItem {
  if (c.acceptOp('(')) {
    const q = parseSelect(c);
    c.expectOp(')');
    const alias = parseAlias(c);
    if (!alias) throw c.unexpected();
    return { k: 'derived', q, alias };
  }
  const line = c.tok.line;
  const parts = c.multipart();
  const item: FromItem = { k: 'table', parts, line };
  if (c.acceptOp('(')) {
    const args: Expr[] = [];
    if (!c.isOp(')')) do args.push(c.acceptKw('DEFAULT') ? { k: 'lit', v: null, t: { kind: 'int' } } : parseExpr(c)); while (c.acceptOp(','));
    c.expectOp(')');
    item.args = args;
  }
  const alias = parseAlias(c);
  if (alias !== undefined) item.alias = alias;
  if (c.acceptKw('WITH')) {
    // table hints: WITH (NOLOCK) — accepted, ignored
    c.expectOp('(');
    while (!c.acceptOp(')')) { if (c.tok.kind === 'eof') throw c.unexpected(); c.next(); }
  }
  return item;
}
