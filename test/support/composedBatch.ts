// For scripted fake servers in unit tests: answers a batch composed by src/db/batch.ts the way SQL Server runs it —
// each sp_executesql statement in order (through the fake's own per-statement answer), its rows then its tag row, a
// failing statement's error in its tag (SQL errors only; anything else fails the whole request like a lost socket),
// and the rest of its TRY block skipped. Returns null for any other text.
import { sqlErrorsOf } from '../../src/db/errors';
import type { QueryParameter, Row } from '../../src/db/types';

const EXEC = /EXEC sys\.sp_executesql N'((?:[^']|'')*)'(?:, N'[^']*', ([^;\n]*))?;\n\s*SELECT (\d+) AS dl_probe/g;

const tag = (index: number, error?: { number: number; class: number; state: number; message: string }): Row => ({
  dl_probe: index,
  dl_error_number: error?.number ?? null,
  dl_error_severity: error?.class ?? null,
  dl_error_state: error?.state ?? null,
  dl_error_message: error?.message ?? null,
});

export function answerComposed(sql: string, params: readonly QueryParameter[] | undefined, run: (sql: string, params: QueryParameter[]) => Row[]): Row[] | null {
  if (!/^BEGIN TRY$/m.test(sql) || !sql.includes('dl_probe')) return null;
  const rows: Row[] = [];
  for (const group of sql.split(/^BEGIN TRY$/m).slice(1)) {
    const body = group.slice(0, group.indexOf('\nEND TRY'));
    for (const m of body.matchAll(EXEC)) {
      const inner = m[1]!.replace(/''/g, "'");
      const index = Number(m[3]);
      const innerParams: QueryParameter[] = (m[2] ?? '')
        .split(', ')
        .filter(Boolean)
        .map((assignment) => {
          const [name, outer] = assignment.split(' = ') as [string, string];
          const value = params?.find((p) => `@${p.name}` === outer);
          if (!value) throw new Error(`composed batch passes ${outer}, which was not sent`);
          return { ...value, name: name.slice(1) };
        });
      try {
        rows.push(...run(inner, innerParams), tag(index));
      } catch (err) {
        const first = sqlErrorsOf(err)[0];
        if (!first) throw err;
        rows.push(tag(index, first));
        break; // the rest of this TRY block does not run
      }
    }
  }
  return rows;
}
