// A `USE other_db` inside the workload moves the workload session while the monitor keeps measuring the first
// database (tedious reports the move as 'databaseChange'): the run says so — RunResult, Markdown notes, CLI — instead
// of presenting the first database's figures as the workload's (issue 11 finding 8).
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { buildComparisonModel, toMarkdown } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { harnessOf } from './standin';

describe('integration: workload that changes database (stand-in only)', function () {
  this.timeout(60000);
  const h = harnessOf(useTestServer({ databases: [{ name: 'other_db' }], standinOnly: 'needs a second database (other_db)' }));

  it('USE other_db in the workload is reported: RunResult.workloadDatabaseChange, a run note and the Markdown notes', async () => {
    const script = `USE other_db;
IF OBJECT_ID(N'dbo.moved_t') IS NULL CREATE TABLE dbo.moved_t (id int);
INSERT INTO dbo.moved_t VALUES (1);`;
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(script).batches, xe: { enabled: false } });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.deepEqual(run.workloadDatabaseChange?.visited, ['other_db']);
    assert.equal(run.workloadDatabaseChange?.measured, 'lab');
    assert.ok(run.notes.some((n) => /ran in "other_db".*measurements describe "lab"/.test(n)), run.notes.join('\n'));
    assert.match(toMarkdown(buildComparisonModel([run])), /## Notes[\s\S]*ran in "other_db" \(a USE in the workload moved it\)/);
  });

  it('a workload that stays in the measured database carries no such warning', async () => {
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze('SELECT 1;').batches, xe: { enabled: false } });
    assert.equal(run.workloadDatabaseChange, null);
    assert.ok(!run.notes.some((n) => /a USE in the workload moved it/.test(n)));
  });
});
