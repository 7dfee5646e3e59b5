// Does a batch change data or schema? Decided from the structure the analyzer already has (src/tsql): every statement
// of the batch must be one that only reads or controls the session (SELECT without INTO, DECLARE, SET, PRINT,
// transaction control, IF/WHILE/TRY blocks…), and no word that can change something may appear anywhere in it (an
// EXEC inside an IF, OPENQUERY, NEXT VALUE FOR). Anything else — or anything the analyzer could not place — counts as
// a change: when unsure, the user is asked. Used by the extension's consent gate and the CLI's `profile`. Words are
// read as SQL Server may read them (classify-tokens.ts): `SELECT$x` is a name, not SELECT; `1eDELETE` holds DELETE.
import { analyze } from './analyze';
import { lex, TokenKind, type TokenStream } from './lexer';
import { beginTransactionReaches, isNextValueFor, leadingWords, oddlyBrokenLineComments, raiserrorWrites, tokenIndexAt, wordReadings } from './classify-tokens';
import { identifierText } from './tokenText';
import { Kw, keywordOf } from './keywords';
import { LineIndex } from './lines';
import type { StatementKind } from './types';

/** A statement that changes (or may change) data or schema, at its 0-based document line. */
export interface ChangingStatement {
  line: number;
  /** "DELETE", "CREATE TABLE", "EXEC (runs a procedure: may change data)". */
  what: string;
}

export interface BatchClass {
  readOnly: boolean;
  changes: ChangingStatement[];
}

/** Statement kinds that change nothing by themselves (their nested statements are classified on their own). */
const SAFE_KINDS: ReadonlySet<StatementKind> = new Set<StatementKind>([
  'block', 'if', 'while', 'try-catch', 'atomic-block', 'begin-transaction', 'commit', 'rollback', 'save-transaction',
  // CHECKPOINT writes dirty pages: no change of data or schema ('flush-log' too, when it is sys.sp_flush_log: below).
  'checkpoint', 'set-implicit-transactions',
]);

/** First words of 'other' statements that only read, declare or control the session. */
const SAFE_FIRST_WORDS: ReadonlySet<string> = new Set([
  'SELECT', 'DECLARE', 'SET', 'PRINT', 'RAISERROR', 'THROW', 'RETURN', 'BREAK', 'CONTINUE', 'GOTO',
  'OPEN', 'FETCH', 'CLOSE', 'DEALLOCATE', 'WAITFOR',
]);

/**
 * Words that can change something wherever they stand (a nested EXEC, a linked-server query, a sequence advancing,
 * a Service Broker message taken off a queue). Seeing one makes the batch "changes", even inside a block the
 * statement scan classified as safe. An identifier spelt like one (a column named `send`) is a false alarm: the user is
 * asked, which is the safe side.
 */
const CHANGING_WORDS: ReadonlySet<string> = new Set([
  'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'EXEC', 'EXECUTE', 'GRANT', 'DENY',
  'REVOKE', 'BACKUP', 'RESTORE', 'DBCC', 'KILL', 'SHUTDOWN', 'RECEIVE', 'SEND', 'BULK', 'RECONFIGURE', 'ENABLE',
  'DISABLE', 'OPENQUERY', 'OPENROWSET', 'OPENDATASOURCE', 'WRITETEXT', 'UPDATETEXT', 'MOVE',
]);

/** What a BEGIN TRANSACTION that reaches beyond the session is called in the consent view. */
const REACHES = {
  mark: 'BEGIN TRANSACTION WITH MARK (writes msdb.dbo.logmarkhistory)',
  distributed: 'BEGIN DISTRIBUTED TRANSACTION (MS DTC, other servers)',
} as const;

/** What a RAISERROR that writes the server's error log is called in the consent view. */
const RAISERROR_LOGS = {
  log: 'RAISERROR WITH LOG (writes the server\'s error log)',
  number: 'RAISERROR with a message number (one added WITH LOG writes the server\'s error log)',
} as const;

export interface ClassifyOptions {
  /**
   * Classify a routine's body only: its CREATE/ALTER header is not counted (what a procedure call runs is the body;
   * the header only matters when the batch itself is sent, as a deploy).
   */
  bodyOnly?: boolean;
}

/**
 * The analyzer takes any `EXEC …sp_flush_log` for the log flush; only the system procedure reads only. Learn ("Execute a
 * stored procedure"): a user-defined procedure may carry a system procedure's name, and the calling database's
 * collation matches the name. So only `sp_flush_log`, `sys.sp_flush_log` and `db.sys.sp_flush_log`, spelt exactly so,
 * count as the flush (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sys-sp-flush-log-transact-sql);
 * `dbo.sp_flush_log`, `[evil].[sp_flush_log]` or `SP_FLUSH_LOG` in a case-sensitive database may be any procedure.
 */
function callsSystemFlushLog(tokens: TokenStream, at: number): boolean {
  let i = tokenIndexAt(tokens, at) + 1; // past EXEC / EXECUTE
  const isEquals = (k: number) => tokens.kinds[k] === TokenKind.Operator && tokens.text.slice(tokens.starts[k]!, tokens.ends[k]!) === '=';
  if (tokens.kinds[i] === TokenKind.Variable && isEquals(i + 1)) i += 2;
  const parts = nameParts(tokens, i);
  const [name, schema, database] = [...parts].reverse();
  if (name !== 'sp_flush_log' || parts.length > 3) return false;
  return parts.length === 1 || (schema === 'sys' && database !== '');
}

/** What a statement of this kind is called in the consent view, from its first words. */
function describe(kind: StatementKind, words: string[], dmlKind: string | undefined, name: () => string): string {
  if (kind === 'dml') return dmlKind ?? words[0] ?? 'DML';
  if (kind === 'alter-database') return 'ALTER DATABASE';
  const [a = '', b = '', c = '', d = ''] = words;
  if (kind === 'routine') return a === 'CREATE' && b === 'OR' ? `CREATE OR ALTER ${d}` : `${a} ${b}`;
  if (a === 'EXEC' || a === 'EXECUTE') return `${a} (runs a procedure or dynamic SQL: may change data)`;
  if (a === 'WAITFOR') return 'WAITFOR (RECEIVE)';
  // Not a change itself, but what follows changes another database than the one the consent view names.
  if (a === 'USE') return 'USE (switches database: what follows runs there, not in the connection\'s database)';
  if (['CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'UPDATE', 'ENABLE', 'DISABLE', 'BULK'].includes(a)) {
    return a === 'CREATE' && (b === 'UNIQUE' || b === 'CLUSTERED' || b === 'NONCLUSTERED') ? `${a} ${b} ${c}`.trim() : `${a} ${b}`.trim();
  }
  if (a === '') return 'a statement the analyzer could not read';
  // Service Broker and impersonation statements the keyword table does not hold: named by their own words.
  if (a === 'BEGIN' || a === 'END' || a === 'GET') return `${a} ${b}`.trim();
  if (a === 'SETUSER') return a;
  // A word that starts no statement the analyzer knows: as a batch's first statement, a name alone runs that procedure
  // (Learn, EXECUTE: "You don't have to specify the EXECUTE keyword when you execute stored procedures when the
  // statement is the first one in a batch", https://learn.microsoft.com/sql/t-sql/language-elements/execute-transact-sql).
  return keywordOf(a) === Kw.None && !CHANGING_WORDS.has(a) ? `${name()} (a name alone, first in its batch, runs that procedure)` : a;
}

/** The parts of the multi-part name starting at token `i`, as SQL Server reads them (`[dbo].x` is dbo, x; an omitted part ''). */
function nameParts(tokens: TokenStream, i: number): string[] {
  const parts: string[] = [''];
  for (; i < tokens.count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Dot) parts.push('');
    else if ((kind === TokenKind.Word || kind === TokenKind.BracketId || kind === TokenKind.QuotedId) && parts[parts.length - 1] === '') parts[parts.length - 1] = identifierText(tokens, i);
    else break;
  }
  return parts;
}

/** The (multi-part) name at `offset` as SQL Server reads it, `dbo.usp_wipe` for `[dbo].usp_wipe`; at most 128 characters. */
function dottedName(tokens: TokenStream, offset: number): string {
  const name = nameParts(tokens, tokenIndexAt(tokens, offset)).join('.');
  return name.length > 128 ? `${name.slice(0, 127)}…` : name;
}

/**
 * Classifies one batch's text. `firstLine` is the document line of its first line: the changes carry document lines.
 * A batch with nothing but comments and whitespace is read-only.
 */
export function classifyBatch(text: string, firstLine: number, options: ClassifyOptions = {}): BatchClass {
  const analysis = analyze(text);
  const lines = new LineIndex(text); // the analyzer's line breaks (\r\n, \n, \r)
  const offsetOf = (p: { line: number; character: number }) => (lines.lineStarts[p.line] ?? text.length) + p.character;
  const changes: ChangingStatement[] = [];
  const dmlAt = new Map(analysis.dml.map((d) => [`${d.range.start.line}:${d.range.start.character}`, d.kind]));
  const routines = options.bodyOnly ? (analysis.routines ?? []) : [];
  const headerOf = (line: number, character: number) => routines.some((r) => r.range.start.line === line && r.range.start.character === character);
  const statements = analysis.statements ?? [];
  // Where a change was already named (a word inside it is part of it), and where a safe statement starts (the EXEC
  // of `EXEC sys.sp_flush_log` is that statement's own).
  const flagged: { start: number; end: number }[] = [];
  const safeStarts = new Set<number>();
  const tokens = lex(text);
  for (const s of statements) {
    const at = offsetOf(s.range.start);
    const end = offsetOf(s.range.end);
    const safe = s.kind === 'flush-log' ? callsSystemFlushLog(tokens, at) : SAFE_KINDS.has(s.kind);
    // BEGIN TRAN … WITH MARK writes msdb; BEGIN DISTRIBUTED TRAN reaches other servers (classify-tokens.ts).
    const reaches = s.kind === 'begin-transaction' ? beginTransactionReaches(tokens, at, end) : null;
    if ((safe && !reaches) || (s.kind === 'routine' && headerOf(s.range.start.line, s.range.start.character))) {
      safeStarts.add(at);
      continue;
    }
    const words = leadingWords(tokens, at, 4);
    let what: string | undefined = reaches ? REACHES[reaches] : undefined;
    if (s.kind === 'other' && SAFE_FIRST_WORDS.has(words[0] ?? '')) {
      const logs = words[0] === 'RAISERROR' ? raiserrorWrites(tokens, at, end) : null;
      // WAITFOR DELAY/TIME only waits; WAITFOR (RECEIVE …) takes messages off a queue.
      if (!logs && (words[0] !== 'WAITFOR' || words[1] === 'DELAY' || words[1] === 'TIME')) continue;
      if (logs) what = RAISERROR_LOGS[logs];
    }
    flagged.push({ start: at, end });
    changes.push({ line: firstLine + s.range.start.line, what: what ?? describe(s.kind, words, dmlAt.get(`${s.range.start.line}:${s.range.start.character}`), () => dottedName(tokens, at)) });
  }
  const insideFlagged = coverage(flagged);
  const seen = new Set<number>();
  const header = options.bodyOnly ? routines.map((r) => ({ start: offsetOf(r.range.start), end: offsetOf(r.bodyRange.start) })) : [];
  let sawToken = false;
  for (let i = 0; i < tokens.count; i++) {
    sawToken = true;
    if (tokens.kinds[i] !== TokenKind.Word) continue;
    const start = tokens.starts[i]!;
    if (header.some((h) => start >= h.start && start < h.end)) continue;
    if (safeStarts.has(start) || insideFlagged(start)) continue;
    const sequence = isNextValueFor(tokens, i);
    const readings = sequence ? [] : wordReadings(tokens, i);
    // INTO as written is the analyzer's (SELECT … INTO is a change; FETCH … INTO @x reads); spelt so that it may only
    // read as INTO (glued to a number, a full-width form), it may make a SELECT create a table: asked.
    const oddInto = readings[0] !== 'INTO' && readings.includes('INTO') ? 'INTO (spelt so that it may read as SELECT … INTO, which creates a table)' : undefined;
    const word = sequence ? 'NEXT' : (readings.find((w) => CHANGING_WORDS.has(w)) ?? oddInto);
    if (!word) continue;
    const line = firstLine + lines.lineOf(start);
    if (seen.has(line)) continue;
    seen.add(line);
    changes.push({ line, what: sequence ? 'NEXT VALUE FOR (advances a sequence)' : word });
  }
  for (const at of oddlyBrokenLineComments(tokens)) {
    changes.push({ line: firstLine + lines.lineOf(at), what: 'a -- comment with a line break other than CR/LF (what follows the break may run)' });
  }
  // Text the statement scan found no statement in (something it cannot read): unsure, so it counts as a change.
  if (sawToken && statements.length === 0) changes.push({ line: firstLine, what: 'a statement the analyzer could not read' });
  changes.sort((a, b) => a.line - b.line);
  return { readOnly: changes.length === 0, changes };
}

/** A test "does some span hold this offset?" in O(log n): spans sorted by start, with the furthest end so far. */
function coverage(spans: readonly { start: number; end: number }[]): (offset: number) => boolean {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const starts = sorted.map((s) => s.start);
  const maxEnd: number[] = [];
  for (const s of sorted) maxEnd.push(Math.max(s.end, maxEnd[maxEnd.length - 1] ?? -1));
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found >= 0 && maxEnd[found]! > offset;
  };
}

/**
 * At most this many characters of one change's description. A name in it is at most 128 (Learn, "Database
 * identifiers"), but the words after DROP or ALTER are the script's as written: `DROP xxxx…` 200,000 long would make
 * one line of 200,000 characters.
 */
const WHAT_MAX = 160;

function boundedWhat(what: string): string {
  if (what.length <= WHAT_MAX) return what;
  const cut = /[\uD800-\uDBFF]/.test(what[WHAT_MAX - 2]!) ? WHAT_MAX - 2 : WHAT_MAX - 1; // never half a surrogate pair
  return `${what.slice(0, cut)}…`;
}

/** "DELETE (line 3), CREATE TABLE (line 5)" with 1-based lines, at most `max` named, each description bounded. */
export function changesText(changes: readonly ChangingStatement[], max = 6): string {
  const named = changes.slice(0, max).map((c) => `${boundedWhat(c.what)} (line ${c.line + 1})`);
  const more = changes.length > max ? `, and ${changes.length - max} more` : '';
  return `${named.join(', ')}${more}`;
}
