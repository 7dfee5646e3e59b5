// Where a Query Store row lives in the workspace (issue 30, item 2): the CREATE/ALTER of `schema.name` in a .sql file's
// text (the routines the analyzer already finds), and the statement's line in it found by its text. vscode-free, so the
// rules are unit-tested: names compare case-insensitively (the default collation), a definition without a schema
// matches only dbo (the usual default schema), and whitespace differences between Query Store's text and the file's
// do not matter.
import { analyze } from '../../tsql/index';

export interface RoutineMatch {
  /** 0-based line of the CREATE/ALTER. */
  headerLine: number;
  /** 0-based line of the statement inside it, or null when its text was not found (comments inside it, an edit). */
  statementLine: number | null;
  /** The name as the file writes it. */
  writtenName: string;
}

/** Whether a definition's name parts denote `schema.name` (server and database parts ignored). */
export function sameRoutine(nameParts: readonly string[], schema: string | null, name: string): boolean {
  const written = nameParts[nameParts.length - 1]?.replace(/;\d+$/, '') ?? '';
  if (written.toLowerCase() !== name.toLowerCase()) return false;
  // `db..name` leaves the schema out (an empty part): the default schema, as a schema-less name.
  const writtenSchema = nameParts.length >= 2 && nameParts[nameParts.length - 2] !== '' ? nameParts[nameParts.length - 2]! : null;
  const wanted = (schema ?? 'dbo').toLowerCase();
  return (writtenSchema ?? 'dbo').toLowerCase() === wanted;
}

/** A cheap test before analysing a file: does its text mention the routine's name at all? */
export function mentions(text: string, name: string): boolean {
  return text.toLowerCase().includes(name.toLowerCase());
}

/**
 * The definitions of `schema.name` in `text` (a file may hold several: CREATE, later ALTER), each with the statement's
 * line when `statement` is given.
 */
export function findRoutine(text: string, schema: string | null, name: string, statement?: string): RoutineMatch[] {
  if (!mentions(text, name)) return [];
  const routines = analyze(text).routines ?? [];
  const out: RoutineMatch[] = [];
  for (const r of routines) {
    const parts = r.signature?.nameParts ?? r.name.split('.');
    if (!sameRoutine(parts, schema, name)) continue;
    const start = offsetOfLine(text, r.range.start.line) + r.range.start.character;
    const end = offsetOfLine(text, r.range.end.line) + r.range.end.character;
    const at = statement ? findStatement(text, statement, start, end) : null;
    out.push({ headerLine: r.range.start.line, statementLine: at === null ? null : lineAt(text, at), writtenName: r.name });
  }
  return out;
}

/** Offset in `text` of the statement (whitespace-insensitive, case-insensitive) between `from` and `to`, or null. */
export function findStatement(text: string, statement: string, from = 0, to = text.length): number | null {
  const words = statement.trim().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return null;
  const pattern = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  const re = new RegExp(pattern, 'gi');
  re.lastIndex = from;
  const m = re.exec(text);
  return m && m.index < to ? m.index : null;
}

function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset;
}

function lineAt(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
