import assert from 'node:assert/strict';
import { diffFileStats, mapFileStatsRow, type FileStatsRow } from '../../../src/probes/fileStats';

/** A row as tedious delivers it: bigint columns as strings, smallint/tinyint as numbers. */
function tediousRow(fileId: number, type: number, counters: Partial<Record<string, string>>): Record<string, unknown> {
  return {
    file_id: fileId,
    sample_ms: '1000',
    num_of_reads: '0',
    num_of_bytes_read: '0',
    io_stall_read_ms: '0',
    num_of_writes: '0',
    num_of_bytes_written: '0',
    io_stall_write_ms: '0',
    io_stall: '0',
    size_on_disk_bytes: '8388608',
    type,
    type_desc: type === 1 ? 'LOG' : 'ROWS',
    logical_name: type === 1 ? 'Sales_log' : 'Sales',
    physical_name: type === 1 ? '/var/opt/mssql/data/Sales_log.ldf' : '/var/opt/mssql/data/Sales.mdf',
    ...counters,
  };
}

describe('probes/fileStats: per-file deltas', () => {
  it('maps a tedious row and labels data vs log by sys.master_files.type', () => {
    const log = mapFileStatsRow(tediousRow(2, 1, { num_of_writes: '10694' }));
    assert.equal(log.kind, 'log');
    assert.equal(log.writes, '10694');
    assert.equal(mapFileStatsRow(tediousRow(1, 0, {})).kind, 'data');
    assert.equal(mapFileStatsRow(tediousRow(65537, 2, {})).kind, 'filestream');
  });

  it('computes writes, bytes and averages per file (S1 figures: 10,694 log writes, 42.41 MB)', () => {
    const before: FileStatsRow[] = [
      mapFileStatsRow(tediousRow(1, 0, { sample_ms: '5000', num_of_writes: '100', num_of_bytes_written: '819200', io_stall_write_ms: '50' })),
      mapFileStatsRow(tediousRow(2, 1, { sample_ms: '5000', num_of_writes: '1000', num_of_bytes_written: '4096000', io_stall_write_ms: '900' })),
    ];
    const after: FileStatsRow[] = [
      mapFileStatsRow(tediousRow(1, 0, { sample_ms: '65000', num_of_writes: '1182', num_of_bytes_written: '9900032', io_stall_write_ms: '1132' })),
      mapFileStatsRow(tediousRow(2, 1, { sample_ms: '65000', num_of_writes: '11694', num_of_bytes_written: '48566272', io_stall_write_ms: '11594' })),
    ];
    const diff = diffFileStats(before, after);
    const log = diff.files.find((f) => f.kind === 'log')!;
    assert.equal(log.writes, 10694);
    assert.equal(log.bytesWritten, 44470272);
    assert.equal(log.intervalMs, 60000);
    assert.equal(log.avgBytesPerWrite, 44470272 / 10694);
    assert.equal(log.msPerWrite, 1);
    assert.equal(log.avgBytesPerRead, null, 'no reads → no average, not NaN');
    const data = diff.totals.find((t) => t.kind === 'data')!;
    assert.equal(data.writes, 1082);
    assert.equal(data.bytesWritten, 9080832);
  });

  it('reports a null interval when sample_ms went backwards (int wrap on 2014) and lists unmatched files', () => {
    const before = [mapFileStatsRow(tediousRow(1, 0, { sample_ms: '2147480000' })), mapFileStatsRow(tediousRow(3, 0, {}))];
    const after = [mapFileStatsRow(tediousRow(1, 0, { sample_ms: '1000' })), mapFileStatsRow(tediousRow(4, 0, {}))];
    const diff = diffFileStats(before, after);
    assert.equal(diff.files[0]!.intervalMs, null);
    assert.deepEqual(diff.unmatchedFileIds.sort(), [3, 4]);
  });
});
