// Extended properties on the database itself (class 0): sys.sp_addextendedproperty / sp_updateextendedproperty /
// sp_dropextendedproperty with every level type and name NULL, and their rows in sys.extended_properties. Durability
// Lens keeps its ownership marker there (src/profile/ownershipMarker.ts), so this models exactly that and refuses
// properties on objects (levels 0–2) as not modelled.
//
// Sources (Learn):
// - sp_addextendedproperty: https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-addextendedproperty-transact-sql
//   "If all object types and names are null, the property belongs to the current database itself"; @name sysname,
//   not NULL; @value sql_variant, at most 7,500 bytes; return code 0 (success) or 1 (failure); not allowed "on system
//   objects, objects outside the scope of a user-defined database". Permissions: db_owner; "db_ddladmin cannot add
//   properties to the database itself"; "Users can add extended properties to objects they own or have ALTER or
//   CONTROL permissions on".
// - sp_updateextendedproperty / sp_dropextendedproperty: the same arguments and permissions; "if all object types and
//   names are null and a property exists on the current database, that property is deleted".
// - Errors (Database engine events and errors, 15000–15999): 15233 "Property cannot be added. Property '%.*ls'
//   already exists for '%.*ls'."; 15217 "Property cannot be updated or deleted. Property '%.*ls' does not exist for
//   '%.*ls'."; 15247 "User does not have permission to perform this action."
// - sys.extended_properties: https://learn.microsoft.com/sql/relational-databases/system-catalog-views/extended-properties-catalog-views-sys-extended-properties
//   class 0 = Database, class_desc DATABASE, major_id and minor_id 0 for the database, name sysname, value sql_variant.
// NOT CONFIRMED (MODEL.md "Extended properties"): `value` is sent as nvarchar(3750), not sql_variant (the stand-in has
// no sql_variant; our client CASTs it to nvarchar); the object text of 15233/15217 ('object specified') and which error
// a refused permission raises (15247 here); every login with access to the database sees class-0 rows; the property
// is not transactional here (a ROLLBACK does not undo it); properties on system databases answer 15247.
import type { SqlValue } from '../engine';
import { register, type VRow } from './catalog';
import type { BatchContext } from './eval';
import { SqlError } from './errors';
import type { Database } from './state';

const PROPERTIES = new WeakMap<Database, Map<string, string | null>>();

/** Properties of the database itself, by name (binary-compared here: NOT CONFIRMED, sysname follows the collation). */
function propertiesOf(db: Database): Map<string, string | null> {
  let map = PROPERTIES.get(db);
  if (!map) PROPERTIES.set(db, (map = new Map()));
  return map;
}

const NAMES = ['name', 'value', 'level0type', 'level0name', 'level1type', 'level1name', 'level2type', 'level2name'];
const DROP_NAMES = ['name', 'level0type', 'level0name', 'level1type', 'level1name', 'level2type', 'level2name'];

function argsOf(names: readonly string[], args: ReadonlyArray<{ name: string | null; value: SqlValue }>): Map<string, SqlValue> {
  const out = new Map<string, SqlValue>();
  args.forEach((a, i) => {
    const key = a.name ? a.name.replace(/^@/, '').toLowerCase() : names[i];
    if (key) out.set(key, a.value);
  });
  return out;
}

/** The value as text, or the 7,500-byte limit's refusal (UTF-16: 2 bytes per code unit). */
function valueText(v: SqlValue, line: number): string | null {
  if (v === null || v === undefined) return null;
  const text = v instanceof Date ? v.toISOString() : String(v);
  if (text.length * 2 > 7500) throw new SqlError(15097, 16, 'The size associated with an extended property cannot be more than 7,500 bytes.', line);
  return text;
}

export type ExtendedPropertyProcedure = 'sp_addextendedproperty' | 'sp_updateextendedproperty' | 'sp_dropextendedproperty';

export function isExtendedPropertyProcedure(name: string): name is ExtendedPropertyProcedure {
  return name === 'sp_addextendedproperty' || name === 'sp_updateextendedproperty' || name === 'sp_dropextendedproperty';
}

/** Runs one of the three procedures on the session's database; returns the documented return code (0). */
export function runExtendedPropertyProcedure(b: BatchContext, proc: ExtendedPropertyProcedure, args: ReadonlyArray<{ name: string | null; value: SqlValue }>, line: number): number {
  const a = argsOf(proc === 'sp_dropextendedproperty' ? DROP_NAMES : NAMES, args);
  const name = a.get('name');
  if (name === null || name === undefined || String(name) === '') throw new SqlError(15600, 15, `An invalid parameter or option was specified for procedure '${proc}'.`, line);
  for (const level of ['level0type', 'level0name', 'level1type', 'level1name', 'level2type', 'level2name']) {
    if (a.get(level) !== null && a.get(level) !== undefined) throw new SqlError(50000, 16, `stand-in: ${proc} on objects (level types) is not modelled; only properties of the database itself are.`, line);
  }
  const { server, session } = b;
  const db = session.db;
  const may = !db.system && (server.hasDatabasePermission(session.login, db, 'ALTER') || server.hasDatabasePermission(session.login, db, 'CONTROL'));
  if (!may) throw new SqlError(15247, 16, 'User does not have permission to perform this action.', line);
  const props = propertiesOf(db);
  const key = String(name);
  if (proc === 'sp_addextendedproperty') {
    if (props.has(key)) throw new SqlError(15233, 16, `Property cannot be added. Property '${key}' already exists for 'object specified'.`, line);
    props.set(key, valueText(a.get('value') ?? null, line));
  } else {
    if (!props.has(key)) throw new SqlError(15217, 16, `Property cannot be updated or deleted. Property '${key}' does not exist for 'object specified'.`, line);
    if (proc === 'sp_updateextendedproperty') props.set(key, valueText(a.get('value') ?? null, line));
    else props.delete(key);
  }
  return 0;
}

/** Test control: the database's own properties (name → value), as the model holds them. */
export function databaseProperties(db: Database): ReadonlyMap<string, string | null> {
  return propertiesOf(db);
}

export function registerExtendedPropertyTables(): void {
  register({
    name: 'sys.extended_properties',
    columns: 'class tinyint, class_desc nvarchar(60), major_id int, minor_id int, name sysname, value nvarchar(3750)',
    rows: (b: BatchContext): VRow[] =>
      [...propertiesOf(b.session.db)].map(([name, value]) => ({ class: 0, class_desc: 'DATABASE', major_id: 0, minor_id: 0, name, value })),
  });
}
