// The primary-key index of a table: the keys its rows hold, kept between statements so an INSERT checks for a
// duplicate in constant time. Rebuilding the key set from every row on each INSERT made a single-row insert cost
// O(rows) and a 100,000-row loop quadratic (issue 28: S3/S4 slowed as their tables grew). A modelling device, not a
// claim about SQL Server's B-tree: the model only needs "duplicate key → 2627" (stmt-dml.ts) to stay exact.
import type { SqlValue } from '../engine';
import type { Table } from './state';

interface KeyIndex {
  /** The rows array the index was built over (DELETE and TRUNCATE replace it, which retires the index). */
  rows: SqlValue[][];
  /** How many of those rows are indexed: rows pushed since (CREATE TABLE's preset rows) are added on the next use. */
  count: number;
  keys: Set<string>;
}

const indexes = new WeakMap<Table, KeyIndex>();

/** Key equality as = compares: case-insensitive, trailing blanks ignored (values.ts compare). */
export function keyOf(v: SqlValue): string {
  return typeof v === 'string' ? 's:' + v.replace(/ +$/, '').toLowerCase() : `${typeof v}:${String(v)}`;
}

/** The keys of column `pk` over every row of `t`, brought up to date (rebuilt only when something retired it). */
export function primaryKeys(t: Table, pk: number): Set<string> {
  let ix = indexes.get(t);
  if (!ix || ix.rows !== t.rows || ix.count > t.rows.length) {
    ix = { rows: t.rows, count: 0, keys: new Set() };
    indexes.set(t, ix);
  }
  for (; ix.count < t.rows.length; ix.count++) ix.keys.add(keyOf(t.rows[ix.count]![pk]!));
  return ix.keys;
}

/** Forget the index: rows changed in place (UPDATE) or were cut back (a rolled-back INSERT). */
export function retireKeyIndex(t: Table): void {
  indexes.delete(t);
}
