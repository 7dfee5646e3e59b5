// The shipped samples (samples/*.sql) as the integration suites run them: scaled down, and with their tables renamed
// to the suite's unique names (useTestServer().table()) so a run on a given server never meets anyone else's table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The text of samples/<file>. */
export function sample(file: string): string {
  return readFileSync(join(__dirname, '../../samples', file), 'utf8');
}

/** Replaces `from` (which must occur) in a sample; a changed sample fails loudly instead of silently running full size. */
export function scaled(text: string, replacements: [string | RegExp, string][], file: string): string {
  let out = text;
  for (const [from, to] of replacements) {
    const occurs = typeof from === 'string' ? out.includes(from) : new RegExp(from.source).test(out);
    if (!occurs) throw new Error(`samples/${file} changed (no ${String(from)}): update this test`);
    out = out.replace(from, to);
  }
  return out;
}

/**
 * Renames tables: every occurrence of each old name (`SingleRowInsert`, also inside constraint names such as
 * DF_SingleRowInsert_col1) becomes the new one's bare name (`dbo.lens_s1_ab12cd` → `lens_s1_ab12cd`).
 */
export function withTables(text: string, tables: Record<string, string>): string {
  let out = text;
  for (const [from, to] of Object.entries(tables)) {
    const bare = to.replace(/^dbo\./, '');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(bare)) throw new Error(`not a plain table name: ${to}`);
    const pattern = new RegExp(`\\b${from}\\b|(?<=_)${from}(?=_)`, 'g');
    if (!pattern.test(out)) throw new Error(`no table ${from} in the script: update this test`);
    out = out.replace(pattern, bare);
  }
  return out;
}

/** The S1 sample (samples/s1-single-row-inserts.sql) scaled down to `rows` inserts, into `table`. */
export function s1Script(rows: number, table = 'dbo.SingleRowInsert'): string {
  const text = scaled(sample('s1-single-row-inserts.sql'), [['WHILE @i < 10000', `WHILE @i < ${rows}`]], 's1-single-row-inserts.sql');
  return table === 'dbo.SingleRowInsert' ? text : withTables(text, { SingleRowInsert: table });
}
