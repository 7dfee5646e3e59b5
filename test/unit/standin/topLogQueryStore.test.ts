// The stand-in's Query Store (issue 30): wait categories as Learn's mapping table gives them, the ALTER DATABASE
// options it follows, and the default state per version and platform. A test instrument's own rules.
import { strict as assert } from 'node:assert';
import { alterQueryStore, queryStoreOf, waitCategoryOf } from '../../standin/model/queryStore';
import { Server } from '../../standin/model/server';
import { createStandin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

describe('stand-in Query Store model', () => {
  it('maps wait types to the categories of sys.query_store_wait_stats (14 = Tran Log IO)', () => {
    for (const t of ['WRITELOG', 'LOGBUFFER', 'LOGMGR_RESERVE_APPEND', 'CHKPT']) assert.equal(waitCategoryOf(t), 14, t);
    assert.equal(waitCategoryOf('LCK_M_X'), 3);
    assert.equal(waitCategoryOf('PAGEIOLATCH_SH'), 6);
    assert.equal(waitCategoryOf('IO_COMPLETION'), 21);
    assert.equal(waitCategoryOf('WAITFOR'), 18);
    assert.equal(waitCategoryOf('HADR_SYNC_COMMIT'), 22);
    assert.equal(waitCategoryOf('SOMETHING_ELSE'), 0);
  });

  it('is on by default from 2022 and on Azure, off before 2022 and for system databases', () => {
    const of = (s: Server, db: string) => queryStoreOf(s, s.dbByName(db)!).options.actual;
    assert.equal(of(new Server({}), 'lab'), 'READ_WRITE');
    assert.equal(of(new Server({}), 'master'), 'OFF');
    assert.equal(of(new Server({ version: 2019 }), 'lab'), 'OFF');
    assert.equal(of(new Server({ version: 2019, product: 'azure-sqldb' }), 'lab'), 'READ_WRITE');
  });

  it('parses SET QUERY_STORE CLEAR [ALL] without "=" (the grammar of ALTER DATABASE SET options) and refuses "= CLEAR"', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const intervals = async () => Number((await rows(s, h, 'SELECT COUNT(*) AS n FROM sys.query_store_runtime_stats_interval'))[0]!.n);
    await exec(s, h, 'CREATE TABLE dbo.qs_t (id int); INSERT INTO dbo.qs_t VALUES (1);');
    assert.ok((await intervals()) > 0, 'the INSERT opened an interval');
    for (const sql of ['ALTER DATABASE [lab] SET QUERY_STORE CLEAR;', 'ALTER DATABASE CURRENT SET QUERY_STORE CLEAR ALL;']) {
      await exec(s, h, 'INSERT INTO dbo.qs_t VALUES (2);');
      assert.deepEqual((await exec(s, h, sql)).errors, [], sql);
      assert.equal(await intervals(), 0, `${sql} empties the history`);
    }
    const refused = await exec(s, h, 'ALTER DATABASE [lab] SET QUERY_STORE = CLEAR;');
    assert.deepEqual(refused.errors.map((e) => e.number), [102]);
    assert.deepEqual((await exec(s, h, 'ALTER DATABASE [lab] SET QUERY_STORE (INTERVAL_LENGTH_MINUTES = 1);')).errors, []);
    assert.equal(queryStoreOf(s.state, s.state.dbByName('lab')!).options.intervalLengthMinutes, 1);
  });

  it('follows SET QUERY_STORE = ON / OFF and ( OPERATION_MODE, WAIT_STATS_CAPTURE_MODE, INTERVAL_LENGTH_MINUTES ), refusing what it does not know', () => {
    const s = new Server({ version: 2019 });
    const lab = s.dbByName('lab')!;
    assert.equal(alterQueryStore(s, lab, 'ON', [['OPERATION_MODE', 'READ_WRITE']]), null);
    assert.equal(queryStoreOf(s, lab).options.actual, 'READ_WRITE');
    assert.equal(alterQueryStore(s, lab, '', [['WAIT_STATS_CAPTURE_MODE', 'OFF'], ['INTERVAL_LENGTH_MINUTES', '15']]), null);
    assert.equal(queryStoreOf(s, lab).options.waitStatsCapture, false);
    assert.equal(queryStoreOf(s, lab).options.intervalLengthMinutes, 15);
    assert.equal(alterQueryStore(s, lab, '', [['INTERVAL_LENGTH_MINUTES', '7']]), '7', 'only 1, 5, 10, 15, 30, 60, 1440');
    assert.equal(alterQueryStore(s, lab, '', [['NOT_AN_OPTION', '1']]), 'NOT_AN_OPTION');
    assert.equal(alterQueryStore(s, lab, 'OFF', []), null);
    assert.equal(queryStoreOf(s, lab).options.actual, 'OFF');
    const y2016 = new Server({ version: 2016 });
    assert.equal(alterQueryStore(y2016, y2016.dbByName('lab')!, '', [['WAIT_STATS_CAPTURE_MODE', 'ON']]), 'WAIT_STATS_CAPTURE_MODE', 'no such option before 2017');
  });
});
