// A probe's row mapper as data: for each field of the row type, the result column it is read from and the converter
// (values.ts) that turns the value tedious delivers into the field. One reader applies any table, and a test holds
// every table to its probe's SQL text (test/unit/probes/columns.test.ts), so a renamed column cannot go unnoticed.
import { num, text } from './values';

/** A field's source: the column's name as the SQL text spells it (alias or DMV name) and its converter. */
export type ColumnRead<V> = readonly [column: string, convert: (value: unknown) => V];

/** Every field of `Row`, each with its column. */
export type ColumnTable<Row> = { readonly [Field in keyof Row]-?: ColumnRead<Row[Field]> };

/** The mapper a table describes: reads each field's column, in the table's order (the order JSON exports keep). */
export function rowMapper<Row>(table: ColumnTable<Row>): (row: Record<string, unknown>) => Row {
  const reads = Object.entries(table) as [string, ColumnRead<unknown>][];
  return (row) => {
    const mapped: Record<string, unknown> = {};
    for (const [field, [column, convert]] of reads) mapped[field] = convert(row[column]);
    return mapped as Row;
  };
}

/** The columns a table reads (for holding it to its SQL text). */
export function columnsOf<Row>(table: ColumnTable<Row>): string[] {
  return Object.values<ColumnRead<unknown>>(table as Record<string, ColumnRead<unknown>>).map(([column]) => column);
}

/** An integer that is 0 when the server sent NULL (an id or a type code every row has). */
export function intOrZero(value: unknown): number {
  return num(value) ?? 0;
}

/** Text that is '' when the server sent NULL (a name every row has). */
export function textOrEmpty(value: unknown): string {
  return text(value) ?? '';
}
