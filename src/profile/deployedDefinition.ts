// The deployed definition of a procedure vs the editor's text: read with OBJECT_DEFINITION (parameterised name),
// compared after normalising what a deploy may change without changing the procedure (line endings, trailing
// whitespace, leading comments before the header, CREATE / ALTER / CREATE OR ALTER), and the explicit
// `CREATE OR ALTER` that deploys the editor's version when the user asks for it.
import type { SqlClient } from '../db/types';

/**
 * One round trip. OBJECT_DEFINITION "Returns NULL on error or if a caller does not have permission to view the object"
 * (https://learn.microsoft.com/sql/t-sql/functions/object-definition-transact-sql); OBJECTPROPERTY 'IsEncrypted' tells
 * an encrypted module from a missing VIEW DEFINITION (https://learn.microsoft.com/sql/t-sql/functions/objectproperty-transact-sql).
 * OBJECT_ID(name, 'P') keeps a table or view of the same name out.
 */
export const DEPLOYED_DEFINITION_SQL = `SELECT OBJECT_ID(@name, N'P') AS object_id,
       OBJECT_DEFINITION(OBJECT_ID(@name, N'P')) AS definition,
       OBJECTPROPERTY(OBJECT_ID(@name, N'P'), 'IsEncrypted') AS is_encrypted`;

export type DeployedDefinition =
  | { status: 'found'; objectId: number; definition: string }
  /** OBJECT_ID is NULL: no such procedure in this database — or one the login may not even see (metadata visibility). */
  | { status: 'missing' }
  /** The procedure exists but its text can't be read: encrypted, or no VIEW DEFINITION. */
  | { status: 'hidden'; objectId: number; reason: 'encrypted' | 'no-permission' }
  /** The lens does not read this kind of procedure's definition (see notComparable); nothing was asked of the server. */
  | { status: 'not-comparable'; reason: 'numbered' | 'temporary' };

/**
 * Procedures whose definition OBJECT_ID/OBJECT_DEFINITION can't find by the call name, so the lens must not call them
 * "not deployed": a numbered procedure `p;2` (number ≥ 2) has its text in sys.numbered_procedures, not sys.sql_modules
 * ("does not show a row for the base (number = 1) stored procedure",
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-numbered-procedures-transact-sql), and
 * OBJECT_ID(N'[dbo].[p];2') is NULL; a temporary procedure (#p, ##p) lives in tempdb, not the database the lens
 * connects to, and a local #p only in the session that created it (CREATE PROCEDURE, "Temporary procedures").
 */
export function notComparable(quotedName: string): 'numbered' | 'temporary' | null {
  const number = /\];(\d+)$/.exec(quotedName);
  if (number && Number(number[1]) >= 2) return 'numbered';
  if (/(?:^|\.)\[#/.test(quotedName)) return 'temporary';
  return null;
}

export async function readDeployedDefinition(client: SqlClient, quotedName: string): Promise<DeployedDefinition> {
  const reason = notComparable(quotedName);
  if (reason) return { status: 'not-comparable', reason };
  // `p;1` is the group's base procedure: its definition is the object's own (sys.sql_modules), found by the bare name.
  const name = quotedName.replace(/\];1$/, ']');
  const [row] = await client.query(DEPLOYED_DEFINITION_SQL, [{ name: 'name', type: 'nvarchar', value: name }]);
  const id = row?.object_id;
  if (id === null || id === undefined) return { status: 'missing' };
  const objectId = Number(id);
  const definition = row!.definition;
  if (typeof definition === 'string') return { status: 'found', objectId, definition };
  return { status: 'hidden', objectId, reason: Number(row!.is_encrypted) === 1 ? 'encrypted' : 'no-permission' };
}

/** Offset of the CREATE/ALTER that opens the definition, past leading whitespace and comments; -1 when none. */
function headerStart(text: string): number {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith('--', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith('/*', i)) {
      // T-SQL block comments nest.
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) { depth++; i += 2; } else if (text.startsWith('*/', i)) { depth--; i += 2; } else i++;
      } while (depth > 0 && i < text.length);
    } else break;
  }
  return /^(create|alter)\b/i.test(text.slice(i, i + 7)) ? i : -1;
}

const HEADER = /^(?:create\s+or\s+alter|create|alter)\s+proc(?:edure)?\b/i;

/**
 * The text a comparison looks at: from the header on, the header keyword made `CREATE PROCEDURE`, CRLF/CR → LF,
 * trailing whitespace of each line and trailing blank lines dropped. Everything else counts, comments and case included.
 */
export function normaliseDefinition(text: string): string {
  const at = headerStart(text);
  let body = at >= 0 ? text.slice(at) : text;
  body = body.replace(HEADER, 'CREATE PROCEDURE');
  return body.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t]+$/, '')).join('\n').replace(/\s+$/, '');
}

export interface DefinitionComparison {
  same: boolean;
  /** 1-based line (of the normalised editor text, from its header) where they first differ; null when the same. */
  firstDifferentLine: number | null;
}

export function compareDefinitions(deployed: string, editor: string): DefinitionComparison {
  const a = normaliseDefinition(deployed);
  const b = normaliseDefinition(editor);
  if (a === b) return { same: true, firstDifferentLine: null };
  const la = a.split('\n');
  const lb = b.split('\n');
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  return { same: false, firstDifferentLine: i + 1 };
}

/**
 * `CREATE OR ALTER PROCEDURE …` from the editor's statement: only the header keyword changes, so what gets deployed is
 * the text the user sees (CREATE OR ALTER: SQL Server 2016 SP1 and later, https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql).
 * Throws when the text does not open with a procedure header.
 */
export function deployStatement(editorText: string): string {
  const at = headerStart(editorText);
  const rest = at >= 0 ? editorText.slice(at) : '';
  if (!HEADER.test(rest)) throw new Error('The editor text does not start with CREATE/ALTER PROCEDURE; nothing was deployed.');
  return rest.replace(HEADER, 'CREATE OR ALTER PROCEDURE').replace(/\s+$/, '');
}

/** Plain words for a status the user must act on (null for a matching definition). */
export function definitionStatusText(name: string, quotedName: string, deployed: DeployedDefinition, comparison: DefinitionComparison | null): string | null {
  switch (deployed.status) {
    case 'missing':
      return `${name} is not deployed in this database (OBJECT_ID is NULL — or the login has no permission on it, which hides it the same way).`;
    case 'hidden':
      return deployed.reason === 'encrypted'
        ? `${name} is deployed WITH ENCRYPTION: its definition can't be read, so it can't be compared with the editor.`
        : `${name} is deployed, but its definition can't be read: the login needs VIEW DEFINITION on it (GRANT VIEW DEFINITION ON OBJECT::${quotedName} TO <user>), so it can't be compared with the editor.`;
    case 'not-comparable':
      return deployed.reason === 'numbered'
        ? `${name} is a numbered procedure: the deployed definition can't be compared with the editor (number 2 and up are kept in sys.numbered_procedures, which the lens does not read). It may or may not be deployed; the run uses whatever is deployed.`
        : `${name} is a temporary procedure: the deployed definition can't be compared with the editor (it lives in tempdb, and a #local one only in the session that created it — the lens's own connections can't see that one). The run uses whatever its connection can call.`;
    case 'found':
      return comparison && !comparison.same
        ? `The deployed ${name} differs from the editor's text (first at line ${comparison.firstDifferentLine} of the definition).`
        : null;
  }
}
