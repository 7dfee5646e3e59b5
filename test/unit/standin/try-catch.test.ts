// TRY...CATCH in the stand-in (MODEL.md "TRY...CATCH"): which errors a TRY block catches, ERROR_*() inside and outside
// CATCH, several result sets from one batch, and statement faults that match sp_executesql statements.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec } from './harness';

const ERROR_ROW = 'SELECT ERROR_NUMBER() AS n, ERROR_SEVERITY() AS sev, ERROR_STATE() AS st, ERROR_MESSAGE() AS msg';

describe('stand-in model: TRY...CATCH', () => {
  it('a run-time error inside TRY goes to CATCH with ERROR_*() set, and is not sent to the client', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, `SELECT 1 AS a; BEGIN TRY SELECT 2 AS b; SELECT 1/0 AS c; SELECT 3 AS never; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH; SELECT 4 AS d;`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resultSets.map((x) => x.columns.map((c) => c.name).join(',')), ['a', 'b', 'n,sev,st,msg', 'd']);
    const caught = r.resultSets[2]!.objects[0]!;
    assert.equal(caught.n, 8134);
    assert.equal(caught.sev, 16);
    assert.match(String(caught.msg), /Divide by zero/);
  });

  it('without an error the CATCH block is skipped; ERROR_*() are NULL outside CATCH', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, `BEGIN TRY SELECT 1 AS a; END TRY BEGIN CATCH SELECT 'caught' AS x; END CATCH; ${ERROR_ROW};`);
    assert.deepEqual(r.resultSets.map((x) => x.columns[0]!.name), ['a', 'n']);
    assert.deepEqual(r.resultSets[1]!.objects[0], { n: null, sev: null, st: null, msg: null });
  });

  it('a missing object at the same level is not caught (batch ends with 208), but inside sp_executesql it is', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const same = await exec(s, h, `BEGIN TRY SELECT * FROM dbo.nope; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH; SELECT 1 AS after;`);
    assert.deepEqual(same.errors.map((e) => e.number), [208]);
    assert.deepEqual(same.resultSets, []);
    const lower = await exec(s, h, `BEGIN TRY EXEC sys.sp_executesql N'SELECT * FROM dbo.nope'; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH; SELECT 1 AS after;`);
    assert.deepEqual(lower.errors, []);
    assert.deepEqual(lower.resultSets.map((x) => x.objects[0]), [{ n: 208, sev: 16, st: 1, msg: "Invalid object name 'dbo.nope'." }, { after: 1 }]);
  });

  it('a syntax error inside sp_executesql is caught; severity 10 RAISERROR is not, severity 16 is', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const syntax = await exec(s, h, `BEGIN TRY EXEC sys.sp_executesql N'SELEC 1'; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH;`);
    assert.deepEqual(syntax.errors, []);
    assert.equal(syntax.resultSets[0]!.objects[0]!.n, 102);
    const info = await exec(s, h, `BEGIN TRY RAISERROR('just info', 10, 1); SELECT 1 AS went_on; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH;`);
    assert.deepEqual(info.infos.map((m) => m.message), ['just info']);
    assert.deepEqual(info.resultSets.map((x) => x.columns[0]!.name), ['went_on']);
    const err = await exec(s, h, `BEGIN TRY RAISERROR('bad %s', 16, 3, 'thing'); SELECT 1 AS never; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH;`);
    assert.deepEqual(err.errors, []);
    assert.deepEqual(err.resultSets.map((x) => x.objects[0]), [{ n: 50000, sev: 16, st: 3, msg: 'bad thing' }]);
  });

  it('END TRY must be followed by BEGIN CATCH (syntax error, nothing runs)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, `SELECT 1 AS a; BEGIN TRY SELECT 2 AS b; END TRY SELECT 3 AS c; BEGIN CATCH SELECT 4 AS d; END CATCH;`);
    assert.deepEqual(r.errors.map((e) => e.number), [102]);
    assert.deepEqual(r.resultSets, []);
  });

  it('nested TRY blocks: the inner CATCH handles its error, ERROR_*() in the outer CATCH describe the outer one', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, `BEGIN TRY
      BEGIN TRY SELECT 1/0 AS x; END TRY BEGIN CATCH SELECT ERROR_NUMBER() AS inner_n; END CATCH;
      RAISERROR('outer', 16, 1);
    END TRY BEGIN CATCH SELECT ERROR_NUMBER() AS outer_n, ERROR_MESSAGE() AS m; END CATCH;`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resultSets.map((x) => x.objects[0]), [{ inner_n: 8134 }, { outer_n: 50000, m: 'outer' }]);
  });

  it('a statement fault matching one sp_executesql statement fails that statement only (one probe of a composed batch)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    s.faults.statements.push({ pattern: /sys\.dm_os_wait_stats/i, number: 300, class: 14, message: "VIEW SERVER STATE permission was denied on object 'server', database 'master'." });
    const r = await exec(s, h, `BEGIN TRY EXEC sys.sp_executesql N'SELECT COUNT(*) AS waits FROM sys.dm_os_wait_stats'; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH;
      BEGIN TRY EXEC sys.sp_executesql N'SELECT DB_NAME() AS db'; END TRY BEGIN CATCH ${ERROR_ROW}; END CATCH;`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resultSets.map((x) => x.objects[0]), [{ n: 300, sev: 14, st: 1, msg: "VIEW SERVER STATE permission was denied on object 'server', database 'master'." }, { db: 'lab' }]);
    // The same statement sent on its own still fails as a request.
    const alone = await exec(s, h, 'SELECT COUNT(*) AS waits FROM sys.dm_os_wait_stats');
    assert.deepEqual(alone.errors.map((e) => e.number), [300]);
  });
});
