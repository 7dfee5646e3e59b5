// The T-SQL words the structural scanner reasons about, recognised by the lexer without building strings.
// Only words that matter for structure are here; any other word is an identifier or an ignored keyword.

/**
 * Keyword identities; 0 means "not one of ours". Order is irrelevant, values only need to be distinct. Use `Kw.X`
 * (and `TokenKind.X`) directly, never through a module-local alias: esbuild, which bundles the extension, the server and
 * the bench, then writes the number in place of the member; through an alias every use is a property load.
 */
export enum Kw {
  None = 0,
  GO, BEGIN, END, TRAN, TRANSACTION, COMMIT, ROLLBACK, SAVE, WORK, WITH, MARK, DELAYED_DURABILITY, ON, OFF,
  WHILE, IF, ELSE, TRY, CATCH, DISTRIBUTED, ATOMIC, DECLARE, CURSOR, FETCH, OPEN, CLOSE, DEALLOCATE,
  INSERT, UPDATE, DELETE, MERGE, SELECT, INTO, BULK, VALUES, DEFAULT, ALTER, DATABASE, SET, CURRENT,
  DISABLED, ALLOWED, FORCED, EXEC, EXECUTE, CHECKPOINT, CREATE, OR, PROCEDURE, PROC, FUNCTION, TRIGGER,
  AS, CASE, RETURN, BREAK, CONTINUE, GOTO, THROW, WAITFOR, PRINT, RAISERROR, TRUNCATE, DROP, USE, DBCC,
  BACKUP, RESTORE, GRANT, DENY, REVOKE, UNION, ALL, EXCEPT, INTERSECT, THEN, FOR, AFTER, OF, ROWS, ROW,
  EXISTS, TABLE, VIEW, INDEX, SCHEMA, SEQUENCE, TYPE, COLUMN, CONSTRAINT, SYNONYM, USER, ROLE, STATISTICS,
  DIALOG, CONVERSATION, IMPLICIT_TRANSACTIONS, JOIN, KILL, RECONFIGURE, SHUTDOWN, SEND, RECEIVE, ENABLE, DISABLE,
}

/** Words that can open a statement in a statement list (WITH only at the start of one; see structure.ts). */
export const STATEMENT_START: ReadonlySet<Kw> = new Set([
  Kw.SELECT, Kw.INSERT, Kw.UPDATE, Kw.DELETE, Kw.MERGE, Kw.BULK, Kw.DECLARE, Kw.SET, Kw.EXEC, Kw.EXECUTE,
  Kw.BEGIN, Kw.COMMIT, Kw.ROLLBACK, Kw.SAVE, Kw.WHILE, Kw.IF, Kw.RETURN, Kw.BREAK, Kw.CONTINUE, Kw.GOTO,
  Kw.THROW, Kw.PRINT, Kw.RAISERROR, Kw.CREATE, Kw.ALTER, Kw.DROP, Kw.TRUNCATE, Kw.USE, Kw.DBCC,
  Kw.CHECKPOINT, Kw.OPEN, Kw.CLOSE, Kw.FETCH, Kw.DEALLOCATE, Kw.WAITFOR, Kw.GRANT, Kw.DENY, Kw.REVOKE,
  Kw.BACKUP, Kw.RESTORE, Kw.KILL, Kw.RECONFIGURE, Kw.SHUTDOWN, Kw.SEND, Kw.RECEIVE, Kw.ENABLE, Kw.DISABLE,
]);

/** Case-folded hash of an ASCII word, the same function the lexer computes incrementally. */
export function foldHashStep(hash: number, code: number): number {
  return (Math.imul(hash, 31) + (code | 0x20)) | 0;
}

const NAMES: string[] = [];
// Open-addressing table from folded hash to keyword, in typed arrays: the lexer looks up every word, and a Map lookup
// was the lexer's most expensive line. Slots hold hash and keyword; an empty slot has keyword 0.
const TABLE_BITS = 10;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
const SLOT_HASH = new Int32Array(1 << TABLE_BITS);
const SLOT_KW = new Uint16Array(1 << TABLE_BITS);
for (const key of Object.keys(Kw)) {
  const value = (Kw as unknown as Record<string, number>)[key];
  if (typeof value !== 'number' || value === Kw.None) continue;
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = foldHashStep(hash, key.charCodeAt(i));
  let slot = hash & TABLE_MASK;
  while (SLOT_KW[slot] !== 0) {
    // A collision would make one keyword invisible; the keyword test guards against adding one.
    if (SLOT_HASH[slot] === hash) throw new Error(`keyword hash collision: ${key} and ${NAMES[SLOT_KW[slot]!]}`);
    slot = (slot + 1) & TABLE_MASK;
  }
  SLOT_HASH[slot] = hash;
  SLOT_KW[slot] = value;
  NAMES[value] = key;
}

// Keyword spellings folded with `| 0x20` (A-Z to a-z, `_` to 127), one flat array, for the lexer's verification.
const NAME_AT = new Uint16Array(NAMES.length);
const NAME_LENGTH = new Uint8Array(NAMES.length);
const NAME_FOLDED = new Uint8Array(NAMES.reduce((sum, name) => sum + (name?.length ?? 0), 0));
{
  let at = 0;
  NAMES.forEach((name, kw) => {
    NAME_AT[kw] = at;
    NAME_LENGTH[kw] = name.length;
    for (let i = 0; i < name.length; i++) NAME_FOLDED[at++] = name.charCodeAt(i) | 0x20;
  });
}

/**
 * keywordAt for a word the lexer scanned: [start, end) holds only identifier characters, and among those `c | 0x20`
 * equals a folded keyword letter exactly when c is that letter in either case (DEL, the other character that folds to
 * `_`'s 127, is never part of a word). One compare per character instead of a case test and a compare.
 */
export function keywordOfWord(text: string, start: number, end: number, hash: number): Kw {
  let slot = hash & TABLE_MASK;
  let kw = SLOT_KW[slot]!;
  while (kw !== 0 && SLOT_HASH[slot] !== hash) {
    slot = (slot + 1) & TABLE_MASK;
    kw = SLOT_KW[slot]!;
  }
  const length = end - start;
  if (kw === 0 || NAME_LENGTH[kw] !== length) return Kw.None;
  const at = NAME_AT[kw]!;
  for (let i = 0; i < length; i++) if ((text.charCodeAt(start + i) | 0x20) !== NAME_FOLDED[at + i]) return Kw.None;
  return kw;
}

// The lexer stores keyword identities in a Uint8Array.
if (NAMES.length > 256) throw new Error(`${NAMES.length - 1} keywords: more than a byte holds`);

/** Longest keyword: words longer than this are never keywords, so the lexer stops hashing them. */
export const MAX_KEYWORD_LENGTH = Math.max(...NAMES.filter(Boolean).map((n) => n.length));

/** Upper-case spelling of a keyword. */
export function keywordName(kw: Kw): string {
  return NAMES[kw] ?? '';
}

/** Keyword identity of a standalone word (for tests and callers holding a string). */
export function keywordOf(word: string): Kw {
  let hash = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    // DEL folds to `_`'s 127 and is never part of a lexed word, the only input keywordOfWord's check is written for.
    if (c === 127) return Kw.None;
    hash = foldHashStep(hash, c);
  }
  return keywordOfWord(word, 0, word.length, hash);
}
