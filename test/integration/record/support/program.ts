// The separate program the recording suites run (support/insert_rows.py over python-tds), its table and the
// environment that points it at the suite's server (useTestServer): host, port, login, database, table, password.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { connect } from '../../../../src/db/connect';
import type { ConnectionProfile } from '../../../../src/db/types';
import { TEST_PASSWORD_ENV, type TestServer } from '../../support';

export const INSERT_ROWS = join(__dirname, 'insert_rows.py');
export const pytdsAvailable = spawnSync('python3', ['-c', 'import pytds'], { encoding: 'utf8' }).status === 0;

const PROGRAM_ENV = ['LENS_TEST_HOST', 'LENS_TEST_USER', 'LENS_TEST_DATABASE', 'LENS_TEST_TABLE', TEST_PASSWORD_ENV] as const;

/**
 * Creates the program's table with a connection of ours (before any recording starts) and puts the program's
 * configuration into this process's environment, which the recorded program inherits; returns the table and port.
 */
export async function prepareProgram(t: TestServer): Promise<{ table: string; port: number }> {
  const table = t.table('recorded');
  const s = await t.connect();
  try {
    await s.execute(`IF OBJECT_ID(N'${table}', N'U') IS NOT NULL DROP TABLE ${table}; CREATE TABLE ${table} (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL);`);
  } finally {
    await s.close();
  }
  const p = t.profile;
  if (p.authentication.type !== 'sql') throw new Error('the recorded program connects with a SQL login');
  Object.assign(process.env, { LENS_TEST_HOST: p.server, LENS_TEST_USER: p.authentication.user, LENS_TEST_DATABASE: p.database, LENS_TEST_TABLE: table, [TEST_PASSWORD_ENV]: t.secret });
  t.onCleanup(() => { for (const k of PROGRAM_ENV) delete process.env[k]; });
  return { table, port: p.port ?? 1433 };
}

/** For the extension's unit tests on an in-process stand-in (test/unit/extension): the program's default table. */
export async function createRecordedRows(h: { profile: ConnectionProfile; secret: string }): Promise<void> {
  const s = await connect(h.profile, h.secret, { role: 'monitor' });
  try {
    await s.execute("IF OBJECT_ID(N'dbo.RecordedRows', N'U') IS NOT NULL DROP TABLE dbo.RecordedRows; CREATE TABLE dbo.RecordedRows (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL);");
  } finally {
    await s.close();
  }
}
