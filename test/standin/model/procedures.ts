// User stored procedures: CREATE [OR ALTER] | ALTER PROC[EDURE] stores the definition; EXEC and RPC calls run its body
// with the parameters bound (by name or position, converted to the declared types, defaults for the ones left out);
// OBJECT_ID / OBJECT_DEFINITION / OBJECTPROPERTY see them. Rules and their Learn pages are listed in MODEL.md.
import type { Output, SqlValue } from '../engine';
import type { ColumnType } from '../engine';
import { SqlError } from './errors';
import { evaluate, type Variable } from './eval';
import type { RunCtx } from './interpreter';
import { tokenize, type Token } from './lexer';
import { Cursor, parseExpr, parseType } from './parse-expr';
import { parseBatch } from './parse-stmt';
import type { Database, Login, Session } from './state';
import type { Server } from './server';
import { coerce } from './values';
import { enterModule, leaveModule } from './queryStore';

export interface ProcedureParameter {
  name: string;
  type: ColumnType;
  typeName: string;
  default: SqlValue | undefined;
  output: boolean;
}

export interface StoredProcedure {
  objectId: number;
  schema: string;
  name: string;
  /** The batch text as sent (leading comments included), what OBJECT_DEFINITION returns. NOT CONFIRMED for ALTER. */
  definition: string;
  parameters: ProcedureParameter[];
  /** The definition with its header (up to AS) blanked in place: line numbers and offsets are the definition's. */
  body: string;
  encrypted: boolean;
  /** Login that created it: the owner, who may always see the definition. */
  owner: string;
}

const BY_DATABASE = new WeakMap<Database, Map<string, StoredProcedure>>();
/** Object ids for procedures, apart from the tables' counter so they never collide. NOT CONFIRMED as real ids. */
let nextProcedureId = 1_600_000_000;

function proceduresOf(db: Database): Map<string, StoredProcedure> {
  let map = BY_DATABASE.get(db);
  if (!map) BY_DATABASE.set(db, (map = new Map()));
  return map;
}

/** The procedure a one- to three-part name denotes (`dbo.p`, `[db].[dbo].[p]`), in the session's database by default. */
export function findProcedure(server: Server, session: Session, parts: readonly string[]): StoredProcedure | null {
  const named = parts.filter((p, i) => p !== '' || i === parts.length - 1);
  const name = named[named.length - 1]?.toLowerCase().replace(/;\d+$/, '');
  if (!name) return null;
  const db = parts.length >= 3 && parts[parts.length - 3] ? server.dbByName(parts[parts.length - 3]!) : session.db;
  return db ? proceduresOf(db).get(name) ?? null : null;
}

/** Splits `[dbo].[p]`, `dbo.p` or `p` (OBJECT_ID's argument, an RPC procedure name) into parts. */
export function nameParts(text: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:\[((?:[^\]]|\]\])*)\]|"((?:[^"]|"")*)"|([^.[\]"]*))\s*(\.|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    parts.push(m[1] !== undefined ? m[1].replaceAll(']]', ']') : m[2] !== undefined ? m[2].replaceAll('""', '"') : m[3]!.trim());
    if (m[4] === '' || re.lastIndex >= text.length) break;
  }
  return parts;
}

/** OBJECT_ID for a procedure (the table lookup comes first in functions.ts). Type filter: 'P' or none. */
export function procedureObjectId(server: Server, session: Session, name: string): number | null {
  return findProcedure(server, session, nameParts(name))?.objectId ?? null;
}

function byId(session: Session, id: number): StoredProcedure | null {
  for (const p of proceduresOf(session.db).values()) if (p.objectId === id) return p;
  return null;
}

/**
 * OBJECT_DEFINITION: the text, or NULL when encrypted ("sys.sql_modules ... NULL = Encrypted") or when the caller
 * neither owns it nor holds VIEW DEFINITION (Learn: OBJECT_DEFINITION "Returns NULL ... if a caller does not have
 * permission to view the object"; "Viewing Object Definitions").
 */
export function procedureDefinition(server: Server, session: Session, id: number): string | null {
  const p = byId(session, id);
  if (!p || p.encrypted) return null;
  return canViewDefinition(server, session.login, session.db, p) ? p.definition : null;
}

function canViewDefinition(server: Server, login: Login, db: Database, p: StoredProcedure): boolean {
  return p.owner === login.name || server.hasDatabasePermission(login, db, 'VIEW DEFINITION') || server.hasDatabasePermission(login, db, 'CONTROL');
}

/**
 * OBJECT_NAME / OBJECT_SCHEMA_NAME of a procedure in the session's database (Learn: OBJECT_NAME, OBJECT_SCHEMA_NAME —
 * metadata visibility, which may make them NULL, is not modelled); null when `id` is none of ours.
 */
export function procedureNameParts(session: Session, id: number): { schema: string; name: string } | null {
  const p = byId(session, id);
  return p ? { schema: p.schema, name: p.name } : null;
}

/** OBJECTPROPERTY(id, 'IsProcedure' | 'IsEncrypted') for procedures; undefined when `id` is none of ours. */
export function procedureProperty(session: Session, id: number, property: string): number | null | undefined {
  const p = byId(session, id);
  if (!p) return undefined;
  switch (property.toLowerCase()) {
    case 'isprocedure': return 1;
    case 'isencrypted': return p.encrypted ? 1 : 0;
    case 'istable': case 'isusertable': return 0;
    default: return null;
  }
}

/** True when the batch is a CREATE [OR ALTER] / ALTER PROC[EDURE] (which must be the only statement of its batch). */
export function isProcedureDefinition(sql: string): boolean {
  const t = tokenize(sql);
  const c = new Cursor(t, sql);
  if (c.acceptKw('CREATE', 'OR', 'ALTER') || c.acceptKw('CREATE') || c.acceptKw('ALTER')) return c.isKw('PROC') || c.isKw('PROCEDURE');
  return false;
}

/** Runs a CREATE [OR ALTER] / ALTER PROCEDURE batch: checks the syntax of header and body, then stores it. */
export async function* defineProcedure(ctx: RunCtx, sql: string): AsyncGenerator<Output, void> {
  const tokens = tokenize(sql);
  const c = new Cursor(tokens, sql);
  const line = c.tok.line;
  const mode = c.acceptKw('CREATE', 'OR', 'ALTER') ? 'createOrAlter' : c.acceptKw('CREATE') ? 'create' : (c.expectKw('ALTER'), 'alter');
  if (!c.acceptKw('PROC')) c.expectKw('PROCEDURE');
  const parts = c.multipart();
  const name = parts[parts.length - 1]!;
  const schema = parts.length > 1 ? parts[parts.length - 2] || 'dbo' : 'dbo';
  if (c.acceptOp(';')) c.next(); // ;number: numbered procedures share one name here (NOT CONFIRMED)
  const paren = c.acceptOp('(');
  const parameters: ProcedureParameter[] = [];
  while (c.tok.kind === 'var') {
    const pname = c.next().value;
    c.acceptKw('AS');
    const { type, typeName } = parseType(c);
    c.acceptKw('VARYING');
    c.acceptKw('NOT', 'NULL') || c.acceptKw('NULL');
    let def: SqlValue | undefined;
    if (c.acceptOp('=')) def = coerce(evaluate(parseExpr(c), { batch: ctx.b, scope: null }), type, c.tok.line);
    const output = c.acceptKw('OUTPUT') || c.acceptKw('OUT');
    c.acceptKw('READONLY'); // only table types take it, and the stand-in has none: parseType refused the type already
    parameters.push({ name: pname, type, typeName, default: def, output });
    if (!c.acceptOp(',')) break;
  }
  if (paren) c.expectOp(')');
  let encrypted = false;
  if (c.acceptKw('WITH')) {
    do {
      if (c.acceptKw('ENCRYPTION')) encrypted = true;
      else if (c.acceptKw('RECOMPILE')) { /* no plan cache in the stand-in */ }
      else if (c.acceptKw('EXECUTE', 'AS') || c.acceptKw('EXEC', 'AS')) c.next();
      else throw c.unexpected();
    } while (c.acceptOp(','));
  }
  c.acceptKw('FOR', 'REPLICATION');
  const asToken: Token = c.tok;
  c.expectKw('AS');
  const bodyStart = asToken.end;
  // The header blanked in place (line ends kept): the body's line numbers and character offsets are the definition's,
  // as sp_statement_completed reports them in real output (line_number 152 at offset 9014 of a procedure's text,
  // test/fixtures/real-server/xelogstash-sp-statement-completed.xml).
  const body = sql.slice(0, bodyStart).replace(/[^\r\n]/g, ' ') + sql.slice(bodyStart);
  parseBatch(body); // syntax errors surface at CREATE time, as in SQL Server (names resolve at run time)

  const { server, session } = ctx.b;
  const db = session.db;
  // Learn (CREATE PROCEDURE, Permissions): CREATE PROCEDURE permission in the database and ALTER on the schema;
  // ALTER PROCEDURE: ALTER on the procedure. Modelled as CREATE PROCEDURE / ALTER / CONTROL on the database.
  const may = server.hasDatabasePermission(session.login, db, 'CREATE PROCEDURE') || server.hasDatabasePermission(session.login, db, 'ALTER') || server.hasDatabasePermission(session.login, db, 'CONTROL');
  if (!may) throw new SqlError(262, 14, `CREATE PROCEDURE permission denied in database '${db.name}'.`, line);
  const procedures = proceduresOf(db);
  const key = name.toLowerCase();
  const existing = procedures.get(key);
  if (mode === 'create' && (existing || db.tables.has(key))) throw new SqlError(2714, 16, `There is already an object named '${name}' in the database.`, line);
  if (mode === 'alter' && !existing) throw new SqlError(208, 16, `Invalid object name '${parts.filter(Boolean).join('.')}'.`, line);
  procedures.set(key, {
    // ALTER keeps the object id (and permissions), CREATE gives a new one.
    objectId: existing?.objectId ?? nextProcedureId++,
    schema, name, definition: sql, parameters, body, encrypted,
    owner: existing?.owner ?? session.login.name,
  });
  yield { kind: 'done', inProc: ctx.inProc };
}

/**
 * DROP PROC[EDURE] [IF EXISTS] name (https://learn.microsoft.com/sql/t-sql/statements/drop-procedure-transact-sql):
 * "Requires CONTROL permission on the procedure, or ALTER permission on the schema to which the procedure belongs, or
 * membership in the db_ddladmin fixed server role" — modelled as the owner, or ALTER / CONTROL on the database.
 * A ROLLBACK does not bring the procedure back here (a simplification: SQL Server's DROP is transactional).
 */
export async function* dropProcedure(ctx: RunCtx, s: { line: number; proc: string[]; ifExists: boolean }): AsyncGenerator<Output, void> {
  const { server, session } = ctx.b;
  const found = findProcedure(server, session, s.proc);
  const name = s.proc[s.proc.length - 1]!;
  const may = found && (found.owner === session.login.name || server.hasDatabasePermission(session.login, session.db, 'ALTER') || server.hasDatabasePermission(session.login, session.db, 'CONTROL'));
  if (!found || !may) {
    if (!found && s.ifExists) return;
    // Msg 3701, the text SQL Server gives for a table (errors.cannotDropTable) with "procedure" (NOT CONFIRMED by a Learn page).
    throw new SqlError(3701, 11, `Cannot drop the procedure '${name}', because it does not exist or you do not have permission.`, s.line);
  }
  const db = s.proc.length >= 3 && s.proc[s.proc.length - 3] ? server.dbByName(s.proc[s.proc.length - 3]!) ?? session.db : session.db;
  proceduresOf(db).delete(found.name.toLowerCase());
  yield { kind: 'done', inProc: ctx.inProc };
}

/** Binds call arguments (named or positional) to a procedure's parameters; a parameter left out takes its default. */
export function bindArguments(p: StoredProcedure, args: ReadonlyArray<{ name: string | null; value: SqlValue }>, line: number): Map<string, Variable> {
  const vars = new Map<string, Variable>();
  const given = new Map<string, SqlValue>();
  let named = false;
  args.forEach((a, i) => {
    if (a.name) {
      named = true;
      const target = p.parameters.find((x) => x.name.toLowerCase() === a.name!.toLowerCase());
      // Learn (EXECUTE): error 8145 "... is not a parameter for procedure ..."
      if (!target) throw new SqlError(8145, 16, `${a.name} is not a parameter for procedure ${p.name}.`, line);
      given.set(target.name.toLowerCase(), a.value);
    } else {
      // "@name = value" and positional arguments can't be mixed positional-after-named (Learn: EXECUTE, Remarks).
      if (named) throw new SqlError(119, 15, `Must pass parameter number ${i + 1} and subsequent parameters as '@name = value'. After the form '@name = value' has been used, all subsequent parameters must be passed in the form '@name = value'.`, line);
      const target = p.parameters[i];
      if (!target) throw new SqlError(8144, 16, `Procedure or function ${p.name} has too many arguments specified.`, line);
      given.set(target.name.toLowerCase(), a.value);
    }
  });
  for (const param of p.parameters) {
    const key = param.name.toLowerCase();
    if (given.has(key)) vars.set(key, { type: param.type, value: coerce(given.get(key)!, param.type, line) });
    else if (param.default !== undefined) vars.set(key, { type: param.type, value: param.default });
    else if (param.output) vars.set(key, { type: param.type, value: null });
    // Learn (EXECUTE / CREATE PROCEDURE): a parameter without a default must be supplied — error 201.
    else throw new SqlError(201, 16, `Procedure or function '${p.name}' expects parameter '${param.name}', which was not supplied.`, line);
  }
  return vars;
}

/** Runs a procedure's body with its parameters bound; its messages carry the procedure's name and its own lines. */
export async function* runProcedure(ctx: Pick<RunCtx, 'interp' | 'exec'> & { session: Session }, p: StoredProcedure, vars: Map<string, Variable>): AsyncGenerator<Output, void> {
  // Query Store files the body's statements under the procedure's object_id (queryStore.ts).
  enterModule(ctx.session, p.objectId);
  try {
    for await (const out of ctx.interp.runBatch(ctx.session, p.body, ctx.exec, true, vars, { objectId: p.objectId, name: p.name })) {
      if (out.kind === 'info' || out.kind === 'error') yield { kind: out.kind, message: { ...out.message, procName: p.name } };
      else yield out;
    }
  } finally {
    leaveModule(ctx.session);
  }
}
