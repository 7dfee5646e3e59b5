import assert from 'node:assert/strict';
import { columnsOf, rowMapper, type ColumnTable } from '../../../src/probes/columns';
import { FILE_STATS_COLUMNS, FILE_STATS_CURRENT_DB_SQL, FILE_STATS_SQL, VOLUME_COLUMNS, VOLUME_CURRENT_DB_SQL, VOLUME_SQL } from '../../../src/probes/fileStats';
import { COUNTER_COLUMNS, LOG_COUNTERS_SQL } from '../../../src/probes/perfCounters';
import { QUERY_STORE_OPTIONS_COLUMNS } from '../../../src/probes/queryStore';
import { queryStoreOptionsSql } from '../../../src/probes/queryStoreSql';
import { IN_FLIGHT_WAIT_COLUMNS, IN_FLIGHT_WAITS_SQL, SERVER_WAITS_SQL, SESSION_WAITS_SQL, WAIT_COLUMNS } from '../../../src/probes/waitStats';
import { counter, text } from '../../../src/probes/values';

/** Columns a table reads that its SQL text does not name as a whole word (select-list name or alias). */
function unnamedColumns<Row>(sql: string, table: ColumnTable<Row>): string[] {
  return columnsOf(table).filter((column) => !new RegExp(`(?<![\\w$])${column}(?![\\w$])`).test(sql));
}

describe('probe column tables', () => {
  const probes: [string, ColumnTable<never>, string][] = [
    ['file stats (server)', FILE_STATS_COLUMNS as ColumnTable<never>, FILE_STATS_SQL],
    ['file stats (current database)', FILE_STATS_COLUMNS as ColumnTable<never>, FILE_STATS_CURRENT_DB_SQL],
    ['volumes (server)', VOLUME_COLUMNS as ColumnTable<never>, VOLUME_SQL],
    ['volumes (current database)', VOLUME_COLUMNS as ColumnTable<never>, VOLUME_CURRENT_DB_SQL],
    ['server waits', WAIT_COLUMNS as ColumnTable<never>, SERVER_WAITS_SQL],
    ['session waits', WAIT_COLUMNS as ColumnTable<never>, SESSION_WAITS_SQL],
    ['in-flight waits', IN_FLIGHT_WAIT_COLUMNS as ColumnTable<never>, IN_FLIGHT_WAITS_SQL],
    ['log counters', COUNTER_COLUMNS as ColumnTable<never>, LOG_COUNTERS_SQL],
    ['Query Store options (2017+)', QUERY_STORE_OPTIONS_COLUMNS as ColumnTable<never>, queryStoreOptionsSql({ logBytes: true, waits: true })],
    ['Query Store options (2016)', QUERY_STORE_OPTIONS_COLUMNS as ColumnTable<never>, queryStoreOptionsSql({ logBytes: false, waits: false })],
  ];
  for (const [name, table, sql] of probes) {
    it(`every column the ${name} mapper reads is one its SQL text selects`, () => {
      assert.deepEqual(unnamedColumns(sql, table), []);
    });
  }

  it('names a column the SQL text does not select (a renamed column cannot pass)', () => {
    const table: ColumnTable<{ bytes: string | null; name: string | null }> = { bytes: ['num_of_bytes_written', counter], name: ['logical_name', text] };
    assert.deepEqual(unnamedColumns('SELECT num_of_bytes_written_total, logical_name FROM x', table), ['num_of_bytes_written']);
  });

  it('maps each field from its column with its converter, in the table\'s order, NULL and absent alike', () => {
    const map = rowMapper<{ id: string | null; label: string | null; missing: string | null }>({ id: ['file_id', counter], label: ['name', text], missing: ['not_sent', text] });
    const row = map({ name: 'lab_log   ', file_id: 2n, extra: 'ignored' });
    assert.deepEqual(row, { id: '2', label: 'lab_log', missing: null });
    assert.deepEqual(Object.keys(row), ['id', 'label', 'missing']);
    assert.equal(JSON.stringify(map({ file_id: null })), '{"id":null,"label":null,"missing":null}');
  });
});
