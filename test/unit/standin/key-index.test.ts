// The stand-in's primary-key index (test/standin/model/keyIndex.ts) is kept between statements so a single-row
// INSERT does not re-read every row (issue 28). These tests pin that duplicate keys (2627) stay exact whatever
// changed the rows in between: a rolled-back INSERT, an UPDATE of the key, DELETE, TRUNCATE, a preset table.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

describe('stand-in model: primary-key index kept between statements', () => {
  const s = createStandin({ speedFactor: 0 });

  async function errorsOf(h: Awaited<ReturnType<typeof connect>>, sql: string): Promise<number[]> {
    return (await exec(s, h, sql)).errors.map((e) => e.number);
  }

  it('refuses a duplicate key inserted by an earlier statement, and in the same statement', async () => {
    const h = await connect(s);
    await exec(s, h, 'CREATE TABLE dbo.KeyA (id int PRIMARY KEY, v int); INSERT INTO dbo.KeyA VALUES (1, 1); INSERT INTO dbo.KeyA VALUES (2, 2);');
    assert.deepEqual(await errorsOf(h, 'INSERT INTO dbo.KeyA VALUES (2, 9)'), [2627]);
    assert.deepEqual(await errorsOf(h, 'INSERT INTO dbo.KeyA VALUES (3, 3), (3, 4)'), [2627]);
    assert.deepEqual(await rows(s, h, 'SELECT COUNT(*) AS n FROM dbo.KeyA'), [{ n: 2 }], 'the failed statement left no row');
    assert.deepEqual(await errorsOf(h, 'INSERT INTO dbo.KeyA VALUES (3, 3)'), [], 'the key of the undone row is free again');
  });

  it('frees the keys of a rolled-back transaction', async () => {
    const h = await connect(s);
    await exec(s, h, 'CREATE TABLE dbo.KeyB (id int PRIMARY KEY); BEGIN TRAN; INSERT INTO dbo.KeyB VALUES (1); INSERT INTO dbo.KeyB VALUES (2); ROLLBACK;');
    assert.deepEqual(await errorsOf(h, 'INSERT INTO dbo.KeyB VALUES (2); INSERT INTO dbo.KeyB VALUES (1);'), []);
    assert.deepEqual(await errorsOf(h, 'INSERT INTO dbo.KeyB VALUES (1)'), [2627]);
  });

  it('follows an UPDATE of the key, a DELETE and a TRUNCATE', async () => {
    const h = await connect(s);
    await exec(s, h, "CREATE TABLE dbo.KeyC (k varchar(10) PRIMARY KEY); INSERT INTO dbo.KeyC VALUES ('a'); INSERT INTO dbo.KeyC VALUES ('b');");
    await exec(s, h, "UPDATE dbo.KeyC SET k = 'z' WHERE k = 'a'");
    assert.deepEqual(await errorsOf(h, "INSERT INTO dbo.KeyC VALUES ('a')"), [], 'a was renamed to z');
    assert.deepEqual(await errorsOf(h, "INSERT INTO dbo.KeyC VALUES ('Z  ')"), [2627], 'keys compare as = does: case and trailing blanks ignored');
    await exec(s, h, "DELETE FROM dbo.KeyC WHERE k = 'b'");
    assert.deepEqual(await errorsOf(h, "INSERT INTO dbo.KeyC VALUES ('b')"), []);
    await exec(s, h, 'TRUNCATE TABLE dbo.KeyC');
    assert.deepEqual(await errorsOf(h, "INSERT INTO dbo.KeyC VALUES ('a'); INSERT INTO dbo.KeyC VALUES ('b'); INSERT INTO dbo.KeyC VALUES ('z');"), []);
    assert.deepEqual(await errorsOf(h, "INSERT INTO dbo.KeyC VALUES ('b')"), [2627]);
  });

  it('keeps an identity key unique over a long loop (20,000 single-row inserts)', async function () {
    this.timeout(60000);
    const h = await connect(s);
    await exec(s, h, 'CREATE TABLE dbo.KeyD (id int IDENTITY(1, 1) PRIMARY KEY, v int NOT NULL)');
    const r = await exec(s, h, 'SET NOCOUNT ON; DECLARE @i int = 0; WHILE @i < 20000 BEGIN INSERT INTO dbo.KeyD (v) VALUES (@i); SET @i += 1; END');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(await rows(s, h, 'SELECT COUNT(*) AS n, MAX(id) AS top FROM dbo.KeyD'), [{ n: 20000, top: 20000 }]);
  });
});
