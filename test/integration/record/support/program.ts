// The separate program the recording suites run (support/insert_rows.py over python-tds) and its table.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { connect } from '../../../../src/db/connect';
import type { StandinHarness } from '../../profile/standin';

export const INSERT_ROWS = join(__dirname, 'insert_rows.py');
export const pytdsAvailable = spawnSync('python3', ['-c', 'import pytds'], { encoding: 'utf8' }).status === 0;

/** Creates the program's table with a connection of ours, before any recording starts. */
export async function createRecordedRows(h: StandinHarness): Promise<void> {
  const s = await connect(h.profile, h.secret, { role: 'monitor' });
  try {
    await s.execute("IF OBJECT_ID(N'dbo.RecordedRows', N'U') IS NOT NULL DROP TABLE dbo.RecordedRows; CREATE TABLE dbo.RecordedRows (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL);");
  } finally {
    await s.close();
  }
}
