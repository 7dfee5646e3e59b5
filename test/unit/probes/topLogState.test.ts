// What each Query Store state tells the user (issue 30, item 4): the message, the fix statement with quoted names, and
// what the fix costs — from histories as readQueryStoreHistory returns them.
import { strict as assert } from 'node:assert';
import { ok, type Measurement } from '../../../src/probes/measurement';
import { enableQueryStoreFix, queryStoreOutcome, readonlyReasons } from '../../../src/probes/queryStoreState';
import { grantContext, history, options } from './topLogFixtures';

const refused = (reason: string, grant: string | null): Measurement<never> => ({ status: 'unavailable', measurement: 'queryStore', cause: 'permission', reason, grant, errorNumber: null });

describe('Query Store outcomes', () => {
  it('READ_WRITE is ready and says nothing was changed', () => {
    const o = queryStoreOutcome(history());
    assert.equal(o.kind, 'ready');
    assert.equal(o.readable, true);
    assert.equal(o.fix, null);
    assert.match(o.message, /Nothing was changed: Durability Lens only reads Query Store\.$/);
  });

  it('OFF: the exact ALTER, with a quoted name, and what it costs on this version', () => {
    const o = queryStoreOutcome(history({ options: ok(options({ desiredState: 'OFF', actualState: 'OFF' })) }, { databaseName: 'we]ird\nname', majorVersion: 14 }));
    assert.equal(o.kind, 'off');
    assert.equal(o.readable, false);
    assert.equal(o.fix?.statement, 'ALTER DATABASE [we]]ird\nname] SET QUERY_STORE = ON (OPERATION_MODE = READ_WRITE);');
    assert.match(o.fix!.cost, /100 MB by default here/, '2017 defaults to 100 MB');
    assert.doesNotMatch(o.fix!.cost, /\n/, 'a line break in the name cannot break the text');
    assert.match(o.message, /we\]ird\\u000Aname/);
    assert.match(enableQueryStoreFix(grantContext()).cost, /1,000 MB by default here/);
  });

  it('OFF in master or tempdb: no ALTER offered — Query Store cannot be enabled there — but the way to a user database', () => {
    for (const databaseName of ['master', 'tempdb']) {
      const o = queryStoreOutcome(history({ options: ok(options({ desiredState: 'OFF', actualState: 'OFF' })) }, { databaseName }));
      assert.equal(o.kind, 'off');
      assert.equal(o.fix, null, databaseName);
      assert.match(o.message, new RegExp(`^Query Store is OFF for ${databaseName} and cannot be turned on there \\(Learn: "You cannot enable the query store for the master or tempdb database"\\)\\. Connect to the user database whose workload you want to rank\\. Nothing was changed`));
    }
    // msdb and model can hold a Query Store: the ALTER stays.
    assert.ok(queryStoreOutcome(history({ options: ok(options({ desiredState: 'OFF', actualState: 'OFF' })) }, { databaseName: 'msdb' })).fix);
  });

  it('READ_ONLY: names the reason bits and offers READ_WRITE (with more room at the size limit)', () => {
    assert.deepEqual(readonlyReasons(65536 | 8), ['the database is a secondary replica', 'Query Store reached MAX_STORAGE_SIZE_MB']);
    const full = queryStoreOutcome(history({ options: ok(options({ actualState: 'READ_ONLY', readonlyReason: 65536, maxStorageSizeMb: 1500 })) }));
    assert.equal(full.kind, 'read-only');
    assert.equal(full.readable, true);
    assert.equal(full.fix?.statement, 'ALTER DATABASE [Sales] SET QUERY_STORE (OPERATION_MODE = READ_WRITE, MAX_STORAGE_SIZE_MB = 3000);');
    const set = queryStoreOutcome(history({ options: ok(options({ desiredState: 'READ_ONLY', actualState: 'READ_ONLY' })) }));
    assert.match(set.message, /READ_ONLY: it was set to READ_ONLY\./);
    assert.equal(set.fix?.statement, 'ALTER DATABASE [Sales] SET QUERY_STORE (OPERATION_MODE = READ_WRITE);');
  });

  it('ERROR: sp_query_store_consistency_check from 2017, CLEAR ALL on 2016', () => {
    const e = queryStoreOutcome(history({ options: ok(options({ actualState: 'ERROR' })) }));
    assert.equal(e.fix?.statement, 'USE [Sales];\nEXEC sys.sp_query_store_consistency_check;');
    const e16 = queryStoreOutcome(history({ options: ok(options({ actualState: 'ERROR', waitStatsCaptureMode: null })) }, { majorVersion: 13 }));
    assert.equal(e16.fix?.statement, 'ALTER DATABASE [Sales] SET QUERY_STORE CLEAR ALL;');
    assert.match(e16.fix!.cost, /Deletes every query, plan and statistic/);
  });

  it('no permission: the GRANT as the fix, its reason as the message', () => {
    const m = refused("Not measured: Sales's Query Store: the login lacks VIEW DATABASE PERFORMANCE STATE in this database (HAS_PERMS_BY_NAME says no). Nothing was read.", 'USE [Sales];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [app_reader];');
    const o = queryStoreOutcome(history({ access: m, options: m, rows: m }));
    assert.equal(o.kind, 'no-permission');
    assert.equal(o.fix?.statement, 'USE [Sales];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [app_reader];');
    assert.match(o.message, /lacks VIEW DATABASE PERFORMANCE STATE .* Nothing was changed/);
  });

  it('notices: wait capture off (with its ALTER), SQL Server 2016, Azure SQL Database, Managed Instance', () => {
    const off = queryStoreOutcome(history({ options: ok(options({ waitStatsCaptureMode: 'OFF' })) }));
    assert.ok(off.notices.some((n) => n.includes('ALTER DATABASE [Sales] SET QUERY_STORE (WAIT_STATS_CAPTURE_MODE = ON);')));
    const y2016 = queryStoreOutcome(history({ options: ok(options({ waitStatsCaptureMode: null })) }, { majorVersion: 13 }));
    assert.ok(y2016.notices[0]!.startsWith('SQL Server 2016: Query Store keeps no wait statistics'));
    assert.ok(queryStoreOutcome(history({}, { majorVersion: 12, engineEdition: 5 })).notices.some((n) => n.startsWith('Azure SQL Database:')));
    assert.ok(queryStoreOutcome(history({}, { majorVersion: 12, engineEdition: 8 })).notices.some((n) => n.startsWith('Azure SQL Managed Instance:')));
  });

  it('an unknown state is reported as such, never as ready', () => {
    const o = queryStoreOutcome(history({ options: ok(options({ actualState: 'SOMETHING_NEW' })) }));
    assert.equal(o.kind, 'failed');
    assert.equal(o.readable, false);
  });
});
