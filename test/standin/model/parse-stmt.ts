// Statement parser: batches of T-SQL statements (no GO; the client splits) into the syntax tree of ast.ts.
import type { ColumnDef, Expr, Stmt } from './ast';
import { tokenize } from './lexer';
import { Cursor, parseExpr, parseSelect, parseType } from './parse-expr';
import { parseCreateEventSession } from './parse-xe';

export function parseBatch(sql: string): Stmt[] {
  const c = new Cursor(tokenize(sql), sql);
  const out: Stmt[] = [];
  while (c.tok.kind !== 'eof') {
    if (c.acceptOp(';')) continue;
    out.push(parseStatement(c));
  }
  return out;
}

/** Statements up to `END <word>` (consumed); nested BEGIN … END blocks are parsed by parseStatement. */
function parseUntilEnd(c: Cursor, word: 'TRY' | 'CATCH'): Stmt[] {
  const body: Stmt[] = [];
  while (!(c.isKw('END') && c.isKw(word, c.peek()))) {
    if (c.tok.kind === 'eof') throw c.unexpected();
    if (c.acceptOp(';')) continue;
    body.push(parseStatement(c));
  }
  c.next(); c.next();
  return body;
}

function parseStatement(c: Cursor): Stmt {
  const line = c.tok.line;
  const offset = c.tok.offset;
  const s = parseStatementBody(c, line);
  // Character span in the batch text: statement-completed events report it (xe-statements.ts).
  s.offset = offset;
  s.end = c.tokens[c.pos - 1]?.end ?? offset;
  return s;
}

function parseStatementBody(c: Cursor, line: number): Stmt {
  const t = c.tok;
  if (t.kind === 'op' && t.value === '(' ) {
    // (SELECT ...) as a statement is not valid T-SQL either
    throw c.unexpected();
  }
  if (t.kind !== 'ident' || t.quoted) throw c.unexpected();
  const w = t.value.toUpperCase();
  switch (w) {
    case 'SELECT': return { line, k: 'select', q: parseSelect(c) };
    case 'WITH': throw c.unexpected(); // CTEs are outside the supported forms (MODEL.md)
    case 'DECLARE': {
      c.next();
      const vars: Array<{ name: string; type: ReturnType<typeof parseType>['type']; typeName: string; init?: Expr }> = [];
      do {
        if (c.tok.kind !== 'var') throw c.unexpected();
        const name = c.next().value;
        c.acceptKw('AS');
        const { type, typeName } = parseType(c);
        const v: (typeof vars)[number] = { name, type, typeName };
        if (c.acceptOp('=')) v.init = parseExpr(c);
        vars.push(v);
      } while (c.acceptOp(','));
      return { line, k: 'declare', vars };
    }
    case 'SET': {
      c.next();
      if (c.tok.kind === 'var') {
        const name = c.next().value;
        const op = c.tok;
        if (op.kind !== 'op' || !['=', '+=', '-=', '*=', '/='].includes(op.value)) throw c.unexpected();
        c.next();
        return { line, k: 'setVar', name, op: op.value, e: parseExpr(c) };
      }
      const option = c.name().toUpperCase();
      if (option === 'TRANSACTION') {
        // SET TRANSACTION ISOLATION LEVEL x y
        const words: string[] = [];
        while (c.tok.kind === 'ident' && !['SELECT', 'SET', 'DECLARE'].includes(c.tok.value.toUpperCase()) && words.length < 5) words.push(c.next().value.toUpperCase());
        return { line, k: 'setOption', option, value: words.join(' ') };
      }
      if (option === 'STATISTICS' || option === 'IDENTITY_INSERT') {
        const what = c.multipart().join('.').toUpperCase();
        return { line, k: 'setOption', option: option + ' ' + what, value: c.name().toUpperCase() };
      }
      const v = c.tok;
      if (v.kind === 'eof') throw c.unexpected();
      c.next();
      if (v.kind === 'op' && v.value === '-' && c.tok.kind === 'number') return { line, k: 'setOption', option, value: '-' + c.next().value };
      return { line, k: 'setOption', option, value: v.value.toUpperCase() };
    }
    case 'USE': c.next(); return { line, k: 'use', db: c.name() };
    case 'BEGIN': {
      c.next();
      if (c.acceptKw('TRAN') || c.acceptKw('TRANSACTION')) {
        const s: Stmt = { line, k: 'beginTran' };
        if (c.isName() || c.tok.kind === 'var') s.name = c.next().value;
        return s;
      }
      if (c.acceptKw('TRY')) {
        // "A TRY block must be immediately followed by an associated CATCH block" (TRY...CATCH page): anything else
        // between END TRY and BEGIN CATCH is a syntax error; the CATCH block may be empty.
        const body = parseUntilEnd(c, 'TRY');
        if (!c.isKw('BEGIN') || !c.isKw('CATCH', c.peek())) throw c.unexpected();
        c.next(); c.next();
        return { line, k: 'try', body, handler: parseUntilEnd(c, 'CATCH') };
      }
      const body: Stmt[] = [];
      while (!c.isKw('END')) {
        if (c.tok.kind === 'eof') throw c.unexpected();
        if (c.acceptOp(';')) continue;
        body.push(parseStatement(c));
      }
      c.next();
      return { line, k: 'block', body };
    }
    case 'IF': {
      c.next();
      const cond = parseExpr(c);
      const then = parseStatement(c);
      while (c.acceptOp(';'));
      const s: Stmt = { line, k: 'if', cond, then };
      if (c.acceptKw('ELSE')) s.otherwise = parseStatement(c);
      return s;
    }
    case 'WHILE': {
      c.next();
      const cond = parseExpr(c);
      return { line, k: 'while', cond, body: parseStatement(c) };
    }
    case 'BREAK': c.next(); return { line, k: 'break' };
    case 'CONTINUE': c.next(); return { line, k: 'continue' };
    case 'RETURN': c.next(); return { line, k: 'return' };
    case 'COMMIT': {
      c.next();
      if (!c.acceptKw('TRAN') && !c.acceptKw('TRANSACTION')) c.acceptKw('WORK');
      if ((c.isName() && !c.isKw('WITH')) || c.tok.kind === 'var') c.next();
      let delayed: 'ON' | 'OFF' | null = null;
      if (c.isKw('WITH') && c.isOp('(', c.peek())) {
        c.next(); c.next();
        c.expectKw('DELAYED_DURABILITY');
        c.expectOp('=');
        const v = c.name().toUpperCase();
        if (v !== 'ON' && v !== 'OFF') throw c.unexpected();
        delayed = v;
        c.expectOp(')');
      }
      return { line, k: 'commit', delayed };
    }
    case 'ROLLBACK': {
      c.next();
      if (!c.acceptKw('TRAN') && !c.acceptKw('TRANSACTION')) c.acceptKw('WORK');
      const s: Stmt = { line, k: 'rollback' };
      if (c.isName() || c.tok.kind === 'var') s.savepoint = c.next().value;
      return s;
    }
    case 'SAVE': {
      c.next();
      if (!c.acceptKw('TRAN')) c.expectKw('TRANSACTION');
      return { line, k: 'saveTran', name: c.next().value };
    }
    case 'CHECKPOINT': c.next(); if (c.tok.kind === 'number') c.next(); return { line, k: 'checkpoint' };
    case 'PRINT': c.next(); return { line, k: 'print', e: parseExpr(c) };
    case 'RAISERROR': {
      c.next();
      c.expectOp('(');
      const args: Expr[] = [];
      do args.push(parseExpr(c)); while (c.acceptOp(','));
      c.expectOp(')');
      let nowait = false;
      if (c.acceptKw('WITH')) {
        do { const o = c.name().toUpperCase(); if (o === 'NOWAIT') nowait = true; } while (c.acceptOp(','));
      }
      return { line, k: 'raiserror', args, nowait };
    }
    case 'WAITFOR': {
      c.next();
      if (!c.acceptKw('DELAY')) throw c.unexpected();
      return { line, k: 'waitfor', delay: parseExpr(c) };
    }
    case 'INSERT': return parseInsert(c, line);
    case 'UPDATE': {
      c.next();
      let top: Expr | undefined;
      if (c.acceptKw('TOP')) { c.expectOp('('); top = parseExpr(c); c.expectOp(')'); }
      const table = c.multipart();
      c.expectKw('SET');
      const sets: Array<{ column: string; e: Expr }> = [];
      do {
        const col = c.multipart();
        const op = c.tok;
        if (op.kind !== 'op' || !['=', '+=', '-='].includes(op.value)) throw c.unexpected();
        c.next();
        let e = parseExpr(c);
        const column = col[col.length - 1]!;
        if (op.value !== '=') e = { k: 'bin', op: op.value[0] as '+', l: { k: 'col', parts: [column], line }, r: e, line };
        sets.push({ column, e });
      } while (c.acceptOp(','));
      const s: Stmt = { line, k: 'update', table, sets };
      if (c.acceptKw('WHERE')) s.where = parseExpr(c);
      if (top) s.top = top;
      return s;
    }
    case 'DELETE': {
      c.next();
      let top: Expr | undefined;
      if (c.acceptKw('TOP')) { c.expectOp('('); top = parseExpr(c); c.expectOp(')'); }
      c.acceptKw('FROM');
      const s: Stmt = { line, k: 'delete', table: c.multipart() };
      if (c.acceptKw('WHERE')) s.where = parseExpr(c);
      if (top) s.top = top;
      return s;
    }
    case 'TRUNCATE': c.next(); c.expectKw('TABLE'); return { line, k: 'truncate', table: c.multipart() };
    case 'CREATE': {
      c.next();
      if (c.acceptKw('TABLE')) return parseCreateTable(c, line);
      if (c.acceptKw('EVENT', 'SESSION')) return parseCreateEventSession(c, line);
      if (c.acceptKw('LOGIN')) return parseCreateLogin(c, line);
      if (c.acceptKw('USER')) {
        const name = c.name();
        let login: string | null = null;
        if (c.acceptKw('FOR', 'LOGIN') || c.acceptKw('FROM', 'LOGIN')) login = c.name();
        else c.acceptKw('WITHOUT', 'LOGIN');
        if (c.acceptKw('WITH')) parseWithList(c);
        return { line, k: 'createUser', name, login };
      }
      throw c.unexpected();
    }
    case 'GRANT': case 'DENY': case 'REVOKE': return parsePermission(c, line);
    case 'DROP': {
      c.next();
      if (c.acceptKw('TABLE')) {
        const ifExists = c.acceptKw('IF', 'EXISTS');
        return { line, k: 'dropTable', table: c.multipart(), ifExists };
      }
      if (c.acceptKw('PROCEDURE') || c.acceptKw('PROC')) {
        const ifExists = c.acceptKw('IF', 'EXISTS');
        return { line, k: 'dropProcedure', proc: c.multipart(), ifExists };
      }
      if (c.acceptKw('EVENT', 'SESSION')) {
        const name = c.name();
        c.expectKw('ON');
        return { line, k: 'dropEventSession', name, scope: parseScope(c) };
      }
      if (c.isKw('LOGIN') || c.isKw('USER')) {
        const what = c.next().value.toUpperCase() as 'LOGIN' | 'USER';
        const ifExists = c.acceptKw('IF', 'EXISTS');
        return { line, k: 'dropPrincipal', what, name: c.name(), ifExists };
      }
      throw c.unexpected();
    }
    case 'ALTER': {
      c.next();
      if (c.acceptKw('DATABASE')) return parseAlterDatabase(c, line);
      // ALTER SERVER ROLE r ADD|DROP MEMBER login; ALTER ROLE r ADD|DROP MEMBER user (database roles)
      if (c.acceptKw('SERVER', 'ROLE') || c.acceptKw('ROLE')) {
        const server = c.tokens[c.pos - 2]?.value.toUpperCase() === 'SERVER';
        const role = c.name();
        const add = c.acceptKw('ADD');
        if (!add) c.expectKw('DROP');
        c.expectKw('MEMBER');
        return { line, k: 'alterRole', server, role, add, member: c.name() };
      }
      if (c.acceptKw('EVENT', 'SESSION')) {
        const name = c.name();
        c.expectKw('ON');
        const scope = parseScope(c);
        c.expectKw('STATE');
        c.expectOp('=');
        const st = c.name().toUpperCase();
        if (st !== 'START' && st !== 'STOP') throw c.unexpected();
        return { line, k: 'alterEventSession', name, scope, state: st };
      }
      throw c.unexpected();
    }
    case 'EXEC': case 'EXECUTE': {
      c.next();
      if (c.acceptOp('(')) {
        const e = parseExpr(c);
        c.expectOp(')');
        return { line, k: 'execString', e };
      }
      let returnVar: string | undefined;
      if (c.tok.kind === 'var' && c.isOp('=', c.peek())) { returnVar = c.next().value; c.next(); }
      const proc = c.multipart();
      const args: Array<{ name?: string; e: Expr }> = [];
      if (!atStatementEnd(c)) {
        do {
          if (c.tok.kind === 'var' && c.isOp('=', c.peek())) {
            const name = c.next().value; c.next();
            args.push({ name, e: parseExpr(c) });
          } else args.push({ e: parseExpr(c) });
          c.acceptKw('OUTPUT');
        } while (c.acceptOp(','));
      }
      const s: Stmt = { line, k: 'exec', proc, args };
      if (returnVar) s.returnVar = returnVar;
      return s;
    }
    case 'KILL': {
      // KILL session_id [WITH STATUSONLY] (Learn: kill-transact-sql); the UOW forms are not modelled.
      c.next();
      const spid = parseExpr(c);
      const statusOnly = c.acceptKw('WITH', 'STATUSONLY');
      return { line, k: 'kill', spid, statusOnly };
    }
    case 'DBCC': {
      c.next();
      const command = c.name().toUpperCase();
      const args: Expr[] = [];
      if (c.acceptOp('(')) {
        if (!c.isOp(')')) do args.push(parseExpr(c)); while (c.acceptOp(','));
        c.expectOp(')');
      }
      const withOpts: string[] = [];
      if (c.acceptKw('WITH')) withOpts.push(...parseWithList(c));
      return { line, k: 'dbcc', command, args, with: withOpts };
    }
    case 'BACKUP': {
      // BACKUP DATABASE db TO DISK = N'...' [, DISK = ...] [WITH opt [= value], ...]; LOG backups are not modelled.
      c.next();
      c.expectKw('DATABASE');
      // The database is a name or a variable holding one (BACKUP DATABASE @db ...).
      const db: string | Expr = c.tok.kind === 'var' ? { k: 'var', name: c.next().value, line } : c.name();
      c.expectKw('TO');
      const disks: Expr[] = [];
      do { c.expectKw('DISK'); c.expectOp('='); disks.push(parseExpr(c)); } while (c.acceptOp(','));
      const withOpts = c.acceptKw('WITH') ? parseWithList(c) : [];
      return { line, k: 'backup', db, disks, with: withOpts };
    }
    default:
      throw c.unexpected();
  }
}

/** CREATE LOGIN name WITH PASSWORD = N'...' [MUST_CHANGE] [, DEFAULT_DATABASE = db, CHECK_POLICY = OFF, ...]. */
function parseCreateLogin(c: Cursor, line: number): Stmt {
  const name = c.name();
  c.expectKw('WITH');
  c.expectKw('PASSWORD');
  c.expectOp('=');
  const password = parseExpr(c);
  c.acceptKw('MUST_CHANGE');
  const options: Record<string, string> = {};
  while (c.acceptOp(',')) {
    const key = c.name().toUpperCase();
    c.expectOp('=');
    options[key] = c.next().value;
  }
  return { line, k: 'createLogin', name, password, options };
}

/**
 * GRANT | DENY | REVOKE [GRANT OPTION FOR] perm [, perm] [ON class::securable] TO|FROM principal [, principal]
 * [WITH GRANT OPTION] [CASCADE] [AS grantor]. A permission is the words up to the next ',' / ON / TO / FROM.
 */
function parsePermission(c: Cursor, line: number): Stmt {
  const verb = c.next().value.toUpperCase() as 'GRANT' | 'DENY' | 'REVOKE';
  if (verb === 'REVOKE') c.acceptKw('GRANT', 'OPTION', 'FOR');
  const permissions: string[] = [];
  do {
    const words: string[] = [];
    while (c.tok.kind === 'ident' && !c.isKw('ON') && !c.isKw('TO') && !c.isKw('FROM')) words.push(c.next().value.toUpperCase());
    if (!words.length) throw c.unexpected();
    permissions.push(words.join(' '));
  } while (c.acceptOp(','));
  let on: { cls: string; name: string } | null = null;
  if (c.acceptKw('ON')) {
    const first = c.name();
    if (c.acceptOp('::')) on = { cls: first.toUpperCase(), name: c.multipart().join('.') };
    else {
      const rest = [first];
      while (c.acceptOp('.')) rest.push(c.name());
      on = { cls: 'OBJECT', name: rest.join('.') };
    }
  }
  if (!c.acceptKw('TO')) c.expectKw('FROM');
  const principals: string[] = [];
  do principals.push(c.name()); while (c.acceptOp(','));
  c.acceptKw('WITH', 'GRANT', 'OPTION');
  c.acceptKw('CASCADE');
  if (c.acceptKw('AS')) c.name();
  return { line, k: 'permission', verb, permissions, on, principals };
}

/** `WITH A, B = value, C` (DBCC and BACKUP options): the option names, upper-cased; values are skipped. */
function parseWithList(c: Cursor): string[] {
  const out: string[] = [];
  do {
    out.push(c.name().toUpperCase());
    if (c.acceptOp('=')) parseExpr(c);
  } while (c.acceptOp(','));
  return out;
}

function atStatementEnd(c: Cursor): boolean {
  return c.tok.kind === 'eof' || c.isOp(';') || (c.tok.kind === 'ident' && !c.tok.quoted && !c.isName() && !c.isKw('DEFAULT') && !c.isKw('NULL'));
}

export function parseScope(c: Cursor): 'SERVER' | 'DATABASE' {
  if (c.acceptKw('SERVER')) return 'SERVER';
  if (c.acceptKw('DATABASE')) return 'DATABASE';
  throw c.unexpected();
}

function parseInsert(c: Cursor, line: number): Stmt {
  c.next();
  c.acceptKw('INTO');
  const table = c.multipart();
  let columns: string[] | undefined;
  if (c.isOp('(')) {
    c.next();
    columns = [];
    do columns.push(c.name()); while (c.acceptOp(','));
    c.expectOp(')');
  }
  const s: Stmt & { k: 'insert' } = { line, k: 'insert', table };
  if (columns) s.columns = columns;
  if (c.acceptKw('DEFAULT', 'VALUES')) { s.defaultValues = true; return s; }
  if (c.acceptKw('VALUES')) {
    s.values = [];
    do {
      c.expectOp('(');
      const row: Expr[] = [];
      do row.push(c.acceptKw('DEFAULT') ? { k: 'call', name: '$DEFAULT', args: [], line } : parseExpr(c)); while (c.acceptOp(','));
      c.expectOp(')');
      s.values.push(row);
    } while (c.acceptOp(','));
    return s;
  }
  if (c.isKw('SELECT')) { s.select = parseSelect(c); return s; }
  throw c.unexpected();
}

function parseCreateTable(c: Cursor, line: number): Stmt {
  const table = c.multipart();
  c.expectOp('(');
  const columns: ColumnDef[] = [];
  do {
    if (c.isKw('CONSTRAINT') || c.isKw('PRIMARY')) { skipBalanced(c); continue; }
    const name = c.name();
    const { type, typeName } = parseType(c);
    const col: ColumnDef = { name, type, typeName, nullable: true };
    for (;;) {
      if (c.acceptKw('IDENTITY')) {
        let seed = 1, increment = 1;
        if (c.acceptOp('(')) { seed = Number(c.next().value); c.expectOp(','); increment = Number(c.next().value); c.expectOp(')'); }
        col.identity = { seed, increment };
        col.nullable = false;
      } else if (c.acceptKw('DEFAULT')) col.default = parseExpr(c);
      else if (c.acceptKw('NOT', 'NULL')) col.nullable = false;
      else if (c.acceptKw('NULL')) col.nullable = true;
      else if (c.acceptKw('PRIMARY', 'KEY')) { col.nullable = false; col.primaryKey = true; c.acceptKw('CLUSTERED') || c.acceptKw('NONCLUSTERED'); }
      else if (c.acceptKw('CONSTRAINT')) c.name();
      else if (c.acceptKw('UNIQUE')) continue;
      else break;
    }
    columns.push(col);
  } while (c.acceptOp(','));
  c.expectOp(')');
  return { line, k: 'createTable', table, columns };
}

function skipBalanced(c: Cursor): void {
  let depth = 0;
  while (c.tok.kind !== 'eof') {
    if (depth === 0 && (c.isOp(',') || c.isOp(')'))) return;
    if (c.isOp('(')) depth++;
    if (c.isOp(')')) depth--;
    c.next();
  }
}

function parseAlterDatabase(c: Cursor, line: number): Stmt {
  const db = c.acceptKw('CURRENT') ? null : c.name();
  c.expectKw('SET');
  const option = c.name().toUpperCase();
  if (option === 'QUERY_STORE') return parseQueryStoreOption(c, line, db);
  let value = '';
  if (c.acceptOp('=')) {
    if (c.isKw('CLEAR')) throw c.unexpected(); // `= CLEAR` is not in the grammar
    value = c.next().value.toUpperCase();
  }
  else value = c.next().value.toUpperCase();
  let noWait = false;
  let termination: string | undefined;
  if (c.acceptKw('WITH')) {
    if (c.acceptKw('NO_WAIT')) noWait = true;
    else if (c.acceptKw('ROLLBACK', 'IMMEDIATE')) termination = 'ROLLBACK IMMEDIATE';
    else if (c.acceptKw('ROLLBACK', 'AFTER')) { termination = 'ROLLBACK AFTER ' + c.next().value; c.acceptKw('SECONDS'); }
    else throw c.unexpected();
  }
  const s: Stmt = { line, k: 'alterDatabase', db, option, value, noWait };
  if (termination) s.termination = termination;
  return s;
}

/**
 * `SET QUERY_STORE { = OFF | [= ON] [( option = value [, …] )] | CLEAR [ALL] }` (ALTER DATABASE SET options,
 * https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options, <query_store_options>):
 * CLEAR takes no `=`. The state goes to `value`, the options to `settings` (a nested list such as
 * CLEANUP_POLICY = (…) is kept as its first value token).
 */
function parseQueryStoreOption(c: Cursor, line: number, db: string | null): Stmt {
  let value = '';
  if (c.acceptKw('CLEAR')) {
    c.acceptKw('ALL');
    return { line, k: 'alterDatabase', db, option: 'QUERY_STORE', value: 'CLEAR', noWait: false, settings: [] };
  }
  if (c.acceptOp('=')) {
    if (c.isKw('CLEAR')) throw c.unexpected(); // `= CLEAR` is not in the grammar
    value = c.next().value.toUpperCase();
  }
  const settings: Array<[string, string]> = [];
  if (c.acceptOp('(')) {
    do {
      const name = c.name().toUpperCase();
      c.expectOp('=');
      if (c.acceptOp('(')) {
        const inner = c.next().value.toUpperCase();
        skipBalanced(c);
        c.expectOp(')');
        settings.push([name, inner]);
      } else settings.push([name, c.next().value.toUpperCase()]);
    } while (c.acceptOp(','));
    c.expectOp(')');
  }
  return { line, k: 'alterDatabase', db, option: 'QUERY_STORE', value, noWait: false, settings };
}
