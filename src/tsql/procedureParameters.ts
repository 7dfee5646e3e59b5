// Reads a CREATE/ALTER PROCEDURE's parameter list, so a lens can prompt for values and send them as typed RPC
// parameters. Grammar (Learn, CREATE PROCEDURE, https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql):
//   { @parameter_name [ type_schema_name. ] data_type } [ VARYING ] [ NULL ] [ = default ] [ OUT | OUTPUT | [ READONLY ] ]
// separated by commas, optionally inside parentheses, ending at WITH <procedure_option>, FOR REPLICATION or AS.
// `@p AS int` is accepted as well (the header reader allows it too). Comments never reach here (the lexer keeps them apart).

import { Kw } from './keywords';
import { TokenKind, lex, type TokenStream } from './lexer';
import { identifierText } from './tokenText';
import { kindAt, kwAt, routineHeader } from './routines';
import type { ProcedureParameter, ProcedureParameterDefault, ProcedureParameterType, ProcedureSignature } from './types';

/**
 * Scalar system types a value can be typed in for, by name. Everything else (cursor, table types, alias/CLR types,
 * sql_variant, xml, hierarchyid, geography, text/ntext/image) is not promptable: the reason says why.
 */
export const PROMPTABLE_TYPES: ReadonlySet<string> = new Set([
  'bit', 'tinyint', 'smallint', 'int', 'bigint', 'decimal', 'numeric', 'money', 'smallmoney', 'float', 'real',
  'char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary', 'uniqueidentifier',
  'date', 'time', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset',
]);

/** The procedure parameter list of a routine header's text (from CREATE/ALTER to at least its AS); null when not a procedure. */
export function procedureSignature(headerText: string): ProcedureSignature | null {
  const t = lex(headerText);
  const header = routineHeader(t, 0, t.count);
  if (!header || header.kind !== 'PROCEDURE') return null;
  return { ...signatureOf(t, header.nameEnd, Math.max(header.nameEnd, header.headerEnd)), nameParts: header.nameParts };
}

/** The token's text upper-cased when it is a word before `end`, else ''. */
function wordAt(t: TokenStream, end: number, i: number): string {
  return i < end && t.kinds[i] === TokenKind.Word ? t.text.slice(t.starts[i]!, t.ends[i]!).toUpperCase() : '';
}

/** The source text of tokens a..b-1 ('' when empty). */
function rawText(t: TokenStream, a: number, b: number): string {
  return a < b ? t.text.slice(t.starts[a]!, t.ends[b - 1]!) : '';
}

const DEFAULT_STOP = new Set(['OUT', 'OUTPUT', 'READONLY']);

/** Parameters between token `from` (just after the name) and `end` (the header's AS, exclusive). */
export function signatureOf(t: TokenStream, from: number, end: number): Omit<ProcedureSignature, 'nameParts'> {

  // The list stops at WITH <procedure_option> or FOR REPLICATION at the top level.
  let stop = from;
  for (let depth = 0; stop < end; stop++) {
    const k = kindAt(t, end, stop);
    if (k === TokenKind.LParen) depth++;
    else if (k === TokenKind.RParen) depth = Math.max(0, depth - 1);
    else if (depth === 0 && (kwAt(t, end, stop) === Kw.WITH || (kwAt(t, end, stop) === Kw.FOR && wordAt(t, end, stop + 1) === 'REPLICATION'))) break;
  }
  let p = from;
  let last = stop;
  // `CREATE PROCEDURE p (@a int, @b int) AS`: the whole list in one pair of parentheses.
  if (kindAt(t, end, p) === TokenKind.LParen && kindAt(t, end, stop - 1) === TokenKind.RParen) { p++; last = stop - 1; }

  const parameters: ProcedureParameter[] = [];
  const problems: string[] = [];
  while (p < last) {
    // One parameter: up to the next comma outside parentheses.
    let q = p;
    for (let depth = 0; q < last; q++) {
      const k = kindAt(t, end, q);
      if (k === TokenKind.LParen) depth++;
      else if (k === TokenKind.RParen) depth = Math.max(0, depth - 1);
      else if (depth === 0 && k === TokenKind.Comma) break;
    }
    const parsed = parameterOf(t, p, q, end);
    if (typeof parsed === 'string') problems.push(parsed);
    else parameters.push(parsed);
    p = q + 1;
  }
  const blocking = parameters.filter((x) => x.notPromptable !== null);
  const notPromptable = problems.length > 0
    ? `the parameter list could not be read (${problems.join('; ')})`
    : blocking.length > 0 ? blocking.map((x) => `${x.name}: ${x.notPromptable}`).join('; ') : null;
  return { parameters, notPromptable };
}

function parameterOf(t: TokenStream, from: number, end: number, listEnd: number): ProcedureParameter | string {
  if (kindAt(t, end, from) !== TokenKind.Variable) return `expected a @parameter at "${rawText(t, from, Math.min(end, from + 3))}"`;
  const name = t.text.slice(t.starts[from]!, t.ends[from]!);
  let i = from + 1;
  if (t.keywords[i] === Kw.AS && i < end) i++;

  // [type_schema_name.] data_type [(length | precision, scale | max)]
  const typeStart = i;
  const parts: string[] = [];
  while (i < end && (kindAt(t, end, i) === TokenKind.Word || kindAt(t, end, i) === TokenKind.BracketId || kindAt(t, end, i) === TokenKind.QuotedId)) {
    parts.push(identifierText(t, i));
    i++;
    if (kindAt(t, end, i) !== TokenKind.Dot) break;
    i++;
  }
  if (parts.length === 0) return `${name} has no data type`;
  const args: string[] = [];
  if (kindAt(t, end, i) === TokenKind.LParen) {
    i++;
    let current = '';
    while (i < end && kindAt(t, end, i) !== TokenKind.RParen) {
      if (kindAt(t, end, i) === TokenKind.Comma) { args.push(current); current = ''; }
      else current += t.text.slice(t.starts[i]!, t.ends[i]!);
      i++;
    }
    args.push(current);
    if (kindAt(t, end, i) !== TokenKind.RParen) return `${name}: unclosed type arguments`;
    i++;
  }
  const type = typeOf(parts, args, rawText(t, typeStart, i));

  let varying = false;
  let nullable: boolean | null = null;
  let defaultValue: ProcedureParameterDefault | null = null;
  let output = false;
  let readonly = false;
  while (i < end) {
    const w = wordAt(t, listEnd, i);
    if (w === 'VARYING') { varying = true; i++; }
    else if (w === 'NOT' && wordAt(t, listEnd, i + 1) === 'NULL') { nullable = false; i += 2; }
    else if (w === 'NULL') { nullable = true; i++; }
    else if (w === 'OUT' || w === 'OUTPUT') { output = true; i++; }
    else if (w === 'READONLY') { readonly = true; i++; }
    else if (kindAt(t, end, i) === TokenKind.Operator && t.text.slice(t.starts[i]!, t.ends[i]!) === '=') {
      // The default runs to the next modifier keyword (OUT/OUTPUT/READONLY) or the end of the parameter.
      let j = i + 1;
      while (j < end && !DEFAULT_STOP.has(wordAt(t, listEnd, j))) j++;
      defaultValue = defaultOf(t, i + 1, j);
      i = j;
    } else return `${name}: unexpected "${rawText(t, i, i + 1)}"`;
  }

  let notPromptable: string | null = null;
  if (readonly) notPromptable = `table-valued parameter (${type.text} READONLY): a table can't be typed in — call the procedure from a batch that fills a table variable of that type`;
  else if (type.name === 'cursor') notPromptable = 'cursor parameter: only a caller inside T-SQL can pass a cursor';
  else if (type.schema !== null || !PROMPTABLE_TYPES.has(type.name)) notPromptable = `type ${type.text} is not a scalar system type the lens can send (alias, CLR and table types aren't resolved here)`;
  return { name, type, varying, nullable, default: defaultValue, output, readonly, notPromptable };
}

/** A type argument as a whole number, or null. */
function wholeNumber(s: string | undefined): number | null {
  return s !== undefined && /^\d+$/.test(s.trim()) ? Number(s.trim()) : null;
}

function typeOf(parts: readonly string[], args: readonly string[], text: string): ProcedureParameterType {
  const name = parts[parts.length - 1]!.toLowerCase();
  const schema = parts.length > 1 ? parts.slice(0, -1).join('.') : null;
  let length: number | 'max' | null = null;
  let precision: number | null = null;
  let scale: number | null = null;
  if (['char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary'].includes(name)) {
    // "When n isn't specified in a data definition or variable declaration statement, the default length is 1"
    // (Learn: char and varchar; nchar and nvarchar; binary and varbinary).
    length = args[0]?.trim().toLowerCase() === 'max' ? 'max' : wholeNumber(args[0]) ?? 1;
  } else if (name === 'decimal' || name === 'numeric') {
    // Defaults: precision 18, scale 0 (Learn: decimal and numeric).
    precision = wholeNumber(args[0]) ?? 18;
    scale = wholeNumber(args[1]) ?? 0;
  } else if (name === 'datetime2' || name === 'time' || name === 'datetimeoffset') {
    // Fractional seconds scale defaults to 7 (Learn: datetime2, time, datetimeoffset).
    scale = wholeNumber(args[0]) ?? 7;
  } else if (name === 'float') {
    precision = wholeNumber(args[0]) ?? 53;
  }
  return { schema, name, length, precision, scale, text };
}

/** One token's source text. */
function tokenTextAt(t: TokenStream, i: number): string {
  return t.text.slice(t.starts[i]!, t.ends[i]!);
}

function defaultOf(t: TokenStream, from: number, end: number): ProcedureParameterDefault {
  const text = rawText(t, from, end);
  const kind = t.kinds[from] as TokenKind;
  if (end - from === 1) {
    if (kind === TokenKind.String) return { kind: 'string', text, value: tokenTextAt(t, from).slice(1, -1).replaceAll("''", "'") };
    if (kind === TokenKind.NString) return { kind: 'string', text, value: tokenTextAt(t, from).slice(2, -1).replaceAll("''", "'") };
    if (kind === TokenKind.Number) return { kind: 'number', text, value: tokenTextAt(t, from) };
    if (kind === TokenKind.Word && tokenTextAt(t, from).toUpperCase() === 'NULL') return { kind: 'null', text, value: null };
  }
  if (end - from === 2 && kind === TokenKind.Operator && (tokenTextAt(t, from) === '-' || tokenTextAt(t, from) === '+') && t.kinds[from + 1] === TokenKind.Number) {
    return { kind: 'number', text, value: `${tokenTextAt(t, from) === '-' ? '-' : ''}${tokenTextAt(t, from + 1)}` };
  }
  // A constant the lens does not evaluate (0x binary, an identifier constant): shown as written, used by omitting it.
  return { kind: 'other', text, value: text };
}
