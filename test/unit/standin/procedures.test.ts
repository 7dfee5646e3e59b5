// Stand-in procedures: CREATE/ALTER stores the definition, EXEC and RPC run the body with parameters bound,
// OBJECT_ID/OBJECT_DEFINITION/OBJECTPROPERTY see them, and the documented errors come back.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

const DEFINITION = [
  '-- loads rows',
  'CREATE PROCEDURE dbo.load_rows @rows int, @note nvarchar(20) = N\'dflt\'',
  'AS',
  'BEGIN',
  '  DECLARE @i int = 0;',
  '  WHILE @i < @rows',
  '  BEGIN',
  '    INSERT INTO dbo.t (v, note) VALUES (@i, @note);',
  '    SET @i += 1;',
  '  END;',
  '  PRINT @note;',
  'END',
].join('\n');

async function withProcedure() {
  const s = createStandin({ speedFactor: 0 });
  const h = await connect(s);
  await query(s, h, 'CREATE TABLE dbo.t (v int, note nvarchar(20));');
  const r = await exec(s, h, DEFINITION);
  assert.deepEqual(r.errors, []);
  return { s, h };
}

describe('stand-in model: stored procedures', () => {
  it('runs a stored body on EXEC with positional and named arguments, and the default for one left out', async () => {
    const { s, h } = await withProcedure();
    let r = await exec(s, h, "EXEC dbo.load_rows 3, N'pos';");
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.infos.map((m) => [m.message, m.procName, m.lineNumber]), [['pos', 'load_rows', 11]]);
    r = await exec(s, h, 'EXEC dbo.load_rows @rows = 2;');
    assert.deepEqual(r.infos.map((m) => m.message), ['dflt']);
    assert.deepEqual(await rows(s, h, 'SELECT COUNT(*) AS n FROM dbo.t'), [{ n: 5 }]);
  });

  it('binds typed RPC parameters by name to the declared types', async () => {
    const { s, h } = await withProcedure();
    const r = await exec(s, h, { kind: 'rpc', procedure: '[dbo].[load_rows]', statement: null, parameters: [
      { name: '@note', value: 'rpc', typeName: 'nvarchar(20)', output: false },
      { name: '@rows', value: 4, typeName: 'int', output: false },
    ] });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.infos.map((m) => m.message), ['rpc']);
    assert.deepEqual(await rows(s, h, "SELECT COUNT(*) AS n FROM dbo.t WHERE note = N'rpc'"), [{ n: 4 }]);
  });

  it('reports a missing parameter (201), an unknown one (8145) and an unknown procedure (2812)', async () => {
    const { s, h } = await withProcedure();
    assert.deepEqual((await exec(s, h, 'EXEC dbo.load_rows;')).errors.map((e) => e.number), [201]);
    assert.deepEqual((await exec(s, h, 'EXEC dbo.load_rows @rows = 1, @nope = 2;')).errors.map((e) => e.number), [8145]);
    assert.deepEqual((await exec(s, h, 'EXEC dbo.nothing_here;')).errors.map((e) => e.number), [2812]);
  });

  it('returns the definition from OBJECT_DEFINITION(OBJECT_ID(name)), keeps the id across ALTER, and refuses CREATE of an existing one', async () => {
    const { s, h } = await withProcedure();
    const [first] = await rows(s, h, "SELECT OBJECT_ID(N'dbo.load_rows') AS id, OBJECT_DEFINITION(OBJECT_ID(N'[dbo].[load_rows]')) AS def, OBJECTPROPERTY(OBJECT_ID(N'dbo.load_rows'), 'IsEncrypted') AS enc");
    assert.equal(first!.def, DEFINITION);
    assert.equal(first!.enc, 0);
    assert.deepEqual((await exec(s, h, DEFINITION)).errors.map((e) => e.number), [2714]);
    const altered = 'CREATE OR ALTER PROCEDURE dbo.load_rows @rows int AS SELECT @rows AS r;';
    assert.deepEqual((await exec(s, h, altered)).errors, []);
    const [second] = await rows(s, h, "SELECT OBJECT_ID(N'dbo.load_rows') AS id, OBJECT_DEFINITION(OBJECT_ID(N'dbo.load_rows')) AS def");
    assert.deepEqual(second, { id: first!.id, def: altered });
    assert.deepEqual((await exec(s, h, 'ALTER PROCEDURE dbo.missing AS SELECT 1;')).errors.map((e) => e.number), [208]);
    assert.deepEqual(await rows(s, h, "SELECT OBJECT_ID(N'dbo.missing') AS id"), [{ id: null }]);
  });

  it('hides an encrypted definition (NULL, IsEncrypted 1)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    assert.deepEqual((await exec(s, h, 'CREATE PROCEDURE dbo.secret WITH ENCRYPTION AS SELECT 1 AS one;')).errors, []);
    assert.deepEqual(await rows(s, h, "SELECT OBJECT_DEFINITION(OBJECT_ID(N'dbo.secret')) AS def, OBJECTPROPERTY(OBJECT_ID(N'dbo.secret'), 'IsEncrypted') AS enc"), [{ def: null, enc: 1 }]);
  });

  it('refuses CREATE PROCEDURE without the permission (262) and stores nothing', async () => {
    const s = createStandin({ speedFactor: 0, logins: [{ name: 'reader', password: 'Reader-1', databases: ['lab'], databasePermissions: { lab: ['CONNECT'] } }] });
    const h = await connect(s, { user: 'reader', password: 'Reader-1' });
    assert.deepEqual((await exec(s, h, 'CREATE PROCEDURE dbo.p AS SELECT 1;')).errors.map((e) => [e.number, e.message]), [[262, "CREATE PROCEDURE permission denied in database 'lab'."]]);
    assert.deepEqual(await rows(s, h, "SELECT OBJECT_ID(N'dbo.p') AS id"), [{ id: null }]);
  });

  it('refuses a syntax error in the body at CREATE time and stores nothing', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    assert.deepEqual((await exec(s, h, 'CREATE PROCEDURE dbo.bad AS SELEC 1;')).errors.map((e) => e.number), [102]);
    assert.deepEqual(await rows(s, h, "SELECT OBJECT_ID(N'dbo.bad') AS id"), [{ id: null }]);
  });
});
