// Syntax tree of the T-SQL subset: expressions, SELECT, DML/DDL, control flow and the server statements
// (ALTER DATABASE, event sessions, DBCC) the probes and the published workloads use.
import type { ColumnType, SqlValue } from '../engine';

export type Expr =
  | { k: 'lit'; v: SqlValue; t: ColumnType }
  | { k: 'col'; parts: string[]; line: number }
  | { k: 'var'; name: string; line: number }
  | { k: 'sysvar'; name: string; line: number }
  | { k: 'star'; qualifier?: string }
  | { k: 'unary'; op: '-' | '+' | '~'; e: Expr }
  | { k: 'bin'; op: '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^'; l: Expr; r: Expr; line: number }
  | { k: 'cmp'; op: '=' | '<>' | '<' | '>' | '<=' | '>='; l: Expr; r: Expr }
  | { k: 'and' | 'or'; l: Expr; r: Expr }
  | { k: 'not'; e: Expr }
  | { k: 'isnull'; e: Expr; not: boolean }
  | { k: 'in'; e: Expr; list: Expr[] | Select; not: boolean }
  | { k: 'like'; e: Expr; pattern: Expr; not: boolean }
  | { k: 'between'; e: Expr; lo: Expr; hi: Expr; not: boolean }
  | { k: 'call'; name: string; args: Expr[]; distinct?: boolean; over?: boolean; line: number }
  | { k: 'case'; operand?: Expr; whens: Array<[Expr, Expr]>; otherwise?: Expr }
  | { k: 'cast'; e: Expr; type: ColumnType; typeName: string; style?: Expr; line: number }
  | { k: 'exists'; q: Select }
  | { k: 'subq'; q: Select };

export type SelectItem =
  | { k: 'star'; qualifier?: string }
  | { k: 'expr'; e: Expr; alias?: string; assignVar?: string };

export type FromItem =
  | { k: 'table'; parts: string[]; alias?: string; args?: Expr[]; line: number }
  | { k: 'derived'; q: Select; alias: string }
  | { k: 'join'; type: 'inner' | 'left' | 'cross' | 'crossApply' | 'outerApply'; left: FromItem; right: FromItem; on?: Expr };

export interface Select {
  line: number;
  distinct: boolean;
  top?: Expr;
  items: SelectItem[];
  into?: string[];
  from?: FromItem;
  where?: Expr;
  groupBy: Expr[];
  having?: Expr;
  orderBy: Array<{ e: Expr; desc: boolean }>;
}

export interface ColumnDef {
  name: string;
  type: ColumnType;
  typeName: string;
  identity?: { seed: number; increment: number };
  /** Column-level PRIMARY KEY: duplicate values raise 2627 (stmt-dml.ts). */
  primaryKey?: boolean;
  default?: Expr;
  nullable: boolean;
}

export type XeEventDef = { pkg: string; name: string; predicate?: string; predicateExpr?: Expr; actions: string[] };
export type XeTargetDef = { pkg: string; name: string; settings: Record<string, SqlValue> };

export type Stmt = { line: number; offset?: number; end?: number } & (
  | { k: 'select'; q: Select }
  | { k: 'declare'; vars: Array<{ name: string; type: ColumnType; typeName: string; init?: Expr }> }
  | { k: 'setVar'; name: string; op: string; e: Expr }
  | { k: 'setOption'; option: string; value: string }
  | { k: 'use'; db: string }
  | { k: 'block'; body: Stmt[] }
  /** BEGIN TRY … END TRY BEGIN CATCH … END CATCH (model/trycatch.ts). */
  | { k: 'try'; body: Stmt[]; handler: Stmt[] }
  | { k: 'if'; cond: Expr; then: Stmt; otherwise?: Stmt }
  | { k: 'while'; cond: Expr; body: Stmt }
  | { k: 'break' }
  | { k: 'continue' }
  | { k: 'return' }
  | { k: 'beginTran'; name?: string }
  | { k: 'commit'; delayed: 'ON' | 'OFF' | null }
  | { k: 'rollback'; savepoint?: string }
  | { k: 'saveTran'; name: string }
  | { k: 'checkpoint' }
  | { k: 'print'; e: Expr }
  | { k: 'raiserror'; args: Expr[]; nowait: boolean }
  | { k: 'waitfor'; delay: Expr }
  | { k: 'insert'; table: string[]; columns?: string[]; values?: Expr[][]; select?: Select; defaultValues?: boolean }
  | { k: 'update'; table: string[]; sets: Array<{ column: string; e: Expr }>; where?: Expr; top?: Expr }
  | { k: 'delete'; table: string[]; where?: Expr; top?: Expr }
  | { k: 'truncate'; table: string[] }
  | { k: 'createTable'; table: string[]; columns: ColumnDef[] }
  | { k: 'dropTable'; table: string[]; ifExists: boolean }
  | { k: 'dropProcedure'; proc: string[]; ifExists: boolean }
  | { k: 'exec'; proc: string[]; args: Array<{ name?: string; e: Expr }>; returnVar?: string }
  | { k: 'execString'; e: Expr }
  | { k: 'alterDatabase'; db: string | null; option: string; value: string; noWait: boolean; termination?: string; settings?: Array<[string, string]> }
  | { k: 'createEventSession'; name: string; scope: 'SERVER' | 'DATABASE'; events: XeEventDef[]; targets: XeTargetDef[]; options: Record<string, string> }
  | { k: 'alterEventSession'; name: string; scope: 'SERVER' | 'DATABASE'; state: 'START' | 'STOP' }
  | { k: 'dropEventSession'; name: string; scope: 'SERVER' | 'DATABASE' }
  | { k: 'dbcc'; command: string; args: Expr[]; with: string[] }
  | { k: 'backup'; db: string | Expr; disks: Expr[]; with: string[] }
  | { k: 'createLogin'; name: string; password: Expr; options: Record<string, string> }
  | { k: 'createUser'; name: string; login: string | null }
  | { k: 'dropPrincipal'; what: 'LOGIN' | 'USER'; name: string; ifExists: boolean }
  | { k: 'permission'; verb: 'GRANT' | 'DENY' | 'REVOKE'; permissions: string[]; on: { cls: string; name: string } | null; principals: string[] }
  | { k: 'alterRole'; server: boolean; role: string; add: boolean; member: string }
  /** KILL session_id [WITH STATUSONLY] (model/kill.ts). */
  | { k: 'kill'; spid: Expr; statusOnly: boolean }
  | { k: 'noop' }
);
