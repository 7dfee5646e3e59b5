// The tables a script declares, for the loop rules: what a loop's DML writes when the same script says so.
// - A memory-optimized table created WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_ONLY) is not logged: "SCHEMA_ONLY
//   durability avoids transaction logging" (Learn, "Defining Durability for Memory-Optimized Objects",
//   https://learn.microsoft.com/sql/relational-databases/in-memory-oltp/defining-durability-for-memory-optimized-objects),
//   so its commits wait for no log flush. The default SCHEMA_AND_DATA gives "the same durability guarantee ... similar to
//   a disk-based table": a fully durable commit waits as for any table.
// - Declared keys (PRIMARY KEY, UNIQUE constraints, unfiltered unique indexes; Learn, "CREATE TABLE", "CREATE INDEX",
//   "ALTER TABLE") tell a statement that pins one row (`WHERE key = @v`) from one that picks every row sharing a value.
// Built by one pass over the script's tokens before the structural scan: a procedure may be defined before the table it
// writes, and runs after the whole script has.

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';
import { upperIsAt } from './tokenText';

export interface DeclaredTable {
  /** Lower-case schema as written, or null when the name has none. */
  schema: string | null;
  /** MEMORY_OPTIMIZED = ON with DURABILITY = SCHEMA_ONLY: changes are not logged. */
  schemaOnly: boolean;
  /** Column sets (lower case) each of which identifies one row. */
  keys: string[][];
  /** Offset of the declaration (CREATE TABLE), for choosing among several of the same name. */
  at: number;
}

/** Lower-case identifier text of a name token, brackets and quotes removed. */
export function namePart(t: TokenStream, i: number): string {
  const text = t.text.slice(t.starts[i]!, t.ends[i]!);
  const k = t.kinds[i];
  return (k === TokenKind.BracketId || k === TokenKind.QuotedId ? text.slice(1, -1) : text).toLowerCase();
}

function isName(t: TokenStream, i: number): boolean {
  const k = t.kinds[i];
  return k === TokenKind.Word || k === TokenKind.BracketId || k === TokenKind.QuotedId;
}

/** `[db.][schema.]name` at i (`db..name` too): its parts and the index after it, or null. */
export function objectName(t: TokenStream, i: number): { parts: string[]; next: number } | null {
  if (i >= t.count || !isName(t, i)) return null;
  const parts = [namePart(t, i)];
  let j = i + 1;
  while (j + 1 < t.count && t.kinds[j] === TokenKind.Dot && parts.length < 4) {
    if (t.kinds[j + 1] === TokenKind.Dot) { parts.push(''); j++; continue; } // db..name
    if (!isName(t, j + 1)) break;
    parts.push(namePart(t, j + 1));
    j += 2;
  }
  return { parts, next: j };
}

/** How many parts the object name at i has (`a.b.c.d` → 4, `db..t` → 3), without building strings; 0 if none. */
export function namePartCount(t: TokenStream, i: number): number {
  if (i >= t.count || !isName(t, i)) return 0;
  let parts = 1;
  for (let j = i + 1; j + 1 < t.count && t.kinds[j] === TokenKind.Dot && parts < 4; ) {
    if (t.kinds[j + 1] === TokenKind.Dot) { parts++; j++; continue; }
    if (!isName(t, j + 1)) break;
    parts++;
    j += 2;
  }
  return parts;
}

/** Word token i spelled `upper` in any case (no string built for an ASCII token: this pass visits every key clause). */
function word(t: TokenStream, i: number, upper: string): boolean {
  if (t.kinds[i] !== TokenKind.Word || t.ends[i]! - t.starts[i]! !== upper.length) return false;
  return upperIsAt(t, i, upper);
}

/**
 * Index just past the parenthesis group opening at i (or `limit`). An unclosed group ends at the next CREATE or GO:
 * neither can stand inside a declaration, and stopping there keeps the pass linear on broken text (a script of
 * thousands of unclosed `CREATE TABLE t (` would otherwise scan to its end once per declaration).
 */
function skipGroup(t: TokenStream, i: number, limit: number): number {
  let depth = 0;
  for (; i < limit; i++) {
    if (t.kinds[i] === TokenKind.LParen) depth++;
    else if (t.kinds[i] === TokenKind.RParen && --depth === 0) return i + 1;
    else if (depth > 0 && (t.keywords[i] === Kw.CREATE || t.keywords[i] === Kw.GO)) return i;
  }
  return limit;
}

/** `(col [ASC|DESC], ...)` at i: the column names. */
function columnList(t: TokenStream, i: number, limit: number): string[] {
  const out: string[] = [];
  if (t.kinds[i] !== TokenKind.LParen) return out;
  const end = skipGroup(t, i, limit) - 1;
  let expectName = true;
  for (let j = i + 1; j < end; j++) {
    if (t.kinds[j] === TokenKind.Comma) { expectName = true; continue; }
    if (expectName && isName(t, j)) { out.push(namePart(t, j)); expectName = false; }
  }
  return out;
}

/** After PRIMARY KEY / UNIQUE at i: skips CLUSTERED, NONCLUSTERED, HASH; the index of what follows. */
function afterKeyKind(t: TokenStream, i: number): number {
  while (word(t, i, 'CLUSTERED') || word(t, i, 'NONCLUSTERED') || word(t, i, 'HASH')) i++;
  return i;
}

/** `PRIMARY KEY` or `UNIQUE` at i: the index after it, or -1. */
function keyConstraint(t: TokenStream, i: number): number {
  if (word(t, i, 'PRIMARY') && word(t, i + 1, 'KEY')) return i + 2;
  if (word(t, i, 'UNIQUE')) return i + 1;
  return -1;
}

export class TableCatalog {
  /** Declarations by lower-case table name (the last part of the name). */
  private readonly byName = new Map<string, DeclaredTable[]>();

  get size(): number {
    return this.byName.size;
  }

  /** Every CREATE TABLE, CREATE UNIQUE INDEX and ALTER TABLE ... ADD PRIMARY KEY|UNIQUE in the script. */
  static of(t: TokenStream): TableCatalog {
    const catalog = new TableCatalog();
    const keywords = t.keywords;
    for (let i = 0; i + 2 < t.count; i++) {
      const k = keywords[i];
      if (k === Kw.CREATE) {
        if (keywords[i + 1] === Kw.TABLE) catalog.createTable(t, i, i + 2);
        else if (word(t, i + 1, 'UNIQUE')) catalog.uniqueIndex(t, i + 2);
      } else if (k === Kw.ALTER && keywords[i + 1] === Kw.TABLE) catalog.alterTable(t, i + 2);
    }
    return catalog;
  }

  /**
   * The declaration of the table `parts` ([db.][schema.]name) a statement at `offset` writes: the last one before it,
   * else the first after it (a procedure defined before its table). Schemas must agree when both are written.
   */
  lookup(parts: readonly string[], offset: number): DeclaredTable | null {
    const list = this.byName.get(parts[parts.length - 1]!);
    if (list === undefined) return null;
    const schema = parts.length >= 2 ? parts[parts.length - 2]! || null : null;
    let before: DeclaredTable | null = null, after: DeclaredTable | null = null;
    for (const d of list) {
      if (schema !== null && d.schema !== null && schema !== d.schema) continue;
      if (d.at <= offset) before = d;
      else if (after === null) after = d;
    }
    return before ?? after;
  }

  private declare(parts: string[], at: number): DeclaredTable {
    const name = parts[parts.length - 1]!;
    const d: DeclaredTable = { schema: parts.length >= 2 ? parts[parts.length - 2]! || null : null, schemaOnly: false, keys: [], at };
    const list = this.byName.get(name);
    if (list) list.push(d); else this.byName.set(name, [d]);
    return d;
  }

  /** The most recent declaration of a table named by an index or ALTER TABLE (created earlier in the script). */
  private latest(parts: string[]): DeclaredTable | null {
    const list = this.byName.get(parts[parts.length - 1]!);
    if (list === undefined) return null;
    const schema = parts.length >= 2 ? parts[parts.length - 2]! || null : null;
    for (let i = list.length - 1; i >= 0; i--) {
      const d = list[i]!;
      if (schema === null || d.schema === null || schema === d.schema) return d;
    }
    return null;
  }

  /** CREATE TABLE name ( elements ) [ON fg] [TEXTIMAGE_ON fg] [WITH ( options )] */
  private createTable(t: TokenStream, createAt: number, nameAt: number): void {
    const name = objectName(t, nameAt);
    if (name === null || t.kinds[name.next] !== TokenKind.LParen) return; // #temp, AS FileTable, AS NODE...
    const d = this.declare(name.parts, t.starts[createAt]!);
    const open = name.next;
    const close = skipGroup(t, open, t.count) - 1;
    // Elements are separated by commas at depth 1; a column's own constraints and table constraints alike.
    let element = open + 1;
    let depth = 0;
    for (let i = open + 1; i <= close; i++) {
      const kind = t.kinds[i];
      if (kind === TokenKind.LParen) { depth++; continue; }
      if (kind === TokenKind.RParen && depth > 0) { depth--; continue; }
      if (depth === 0 && (kind === TokenKind.Comma || i === close)) {
        this.elementKeys(t, d, element, i);
        element = i + 1;
      }
    }
    // Table options: WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_ONLY), possibly after ON filegroup.
    for (let i = close + 1; i < Math.min(t.count, close + 8); i++) {
      if (t.keywords[i] === Kw.WITH && t.kinds[i + 1] === TokenKind.LParen) {
        const end = skipGroup(t, i + 1, t.count);
        let memoryOptimized = false, schemaOnly = false;
        for (let j = i + 2; j + 2 < end; j++) {
          if (word(t, j, 'MEMORY_OPTIMIZED') && t.keywords[j + 2] === Kw.ON) memoryOptimized = true;
          if (word(t, j, 'DURABILITY') && word(t, j + 2, 'SCHEMA_ONLY')) schemaOnly = true;
        }
        d.schemaOnly = memoryOptimized && schemaOnly;
        return;
      }
      if (t.kinds[i] === TokenKind.Semicolon || (t.keywords[i] !== Kw.None && t.keywords[i] !== Kw.ON)) return;
    }
  }

  /** One element [from, to) of a CREATE TABLE list: a column with PRIMARY KEY/UNIQUE, or a table constraint. */
  private elementKeys(t: TokenStream, d: DeclaredTable, from: number, to: number): void {
    // INDEX name [UNIQUE] [CLUSTERED|NONCLUSTERED|HASH] (cols): an inline index, unique only when it says so.
    if (t.keywords[from] === Kw.INDEX) {
      let i = from + 2;
      if (!word(t, i, 'UNIQUE')) return;
      i = afterKeyKind(t, i + 1);
      const cols = columnList(t, i, to);
      if (cols.length > 0) d.keys.push(cols);
      return;
    }
    let depth = 0;
    for (let i = from; i < to; i++) {
      if (t.kinds[i] === TokenKind.LParen) { depth++; continue; }
      if (t.kinds[i] === TokenKind.RParen) { depth--; continue; }
      if (depth !== 0) continue;
      const after = keyConstraint(t, i);
      if (after < 0) continue;
      const at = afterKeyKind(t, after);
      // PRIMARY KEY (a, b): a table constraint (even written after a column without a comma); else the column's own.
      const cols = t.kinds[at] === TokenKind.LParen ? columnList(t, at, to)
        : t.keywords[from] !== Kw.CONSTRAINT && isName(t, from) ? [namePart(t, from)] : [];
      if (cols.length > 0) d.keys.push(cols);
      i = at;
    }
  }

  /** CREATE UNIQUE [CLUSTERED|NONCLUSTERED] INDEX name ON table (cols) — unfiltered only (a WHERE makes it partial). */
  private uniqueIndex(t: TokenStream, i: number): void {
    i = afterKeyKind(t, i);
    if (t.keywords[i] !== Kw.INDEX || t.keywords[i + 2] !== Kw.ON) return;
    const table = objectName(t, i + 3);
    if (table === null) return;
    const cols = columnList(t, table.next, t.count);
    const after = skipGroup(t, table.next, t.count);
    const filtered = word(t, after, 'WHERE') || (word(t, after, 'INCLUDE') && word(t, skipGroup(t, after + 1, t.count), 'WHERE'));
    if (cols.length === 0 || filtered) return;
    this.latest(table.parts)?.keys.push(cols);
  }

  /** ALTER TABLE name ADD [CONSTRAINT c] PRIMARY KEY|UNIQUE [CLUSTERED|NONCLUSTERED] (cols) */
  private alterTable(t: TokenStream, nameAt: number): void {
    const table = objectName(t, nameAt);
    if (table === null || !word(t, table.next, 'ADD')) return;
    let i = table.next + 1;
    if (t.keywords[i] === Kw.CONSTRAINT) i += 2;
    const after = keyConstraint(t, i);
    if (after < 0) return;
    const cols = columnList(t, afterKeyKind(t, after), t.count);
    if (cols.length > 0) this.latest(table.parts)?.keys.push(cols);
  }
}
