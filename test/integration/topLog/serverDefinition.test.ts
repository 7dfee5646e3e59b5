// "Open definition from server" (issue 30, item 2) reads OBJECT_DEFINITION of the module a Query Store row names: the
// whole text (nvarchar(max), never cut at 4,000 characters), null when the module is encrypted or the login may not
// see it (Learn, OBJECT_DEFINITION: "Returns NULL on error or if a caller does not have permission to view the
// object"), and nothing to read for an ad hoc row. The object_id comes from `top-log --json`, as the view's click does.
import { strict as assert } from 'node:assert';
import { loadDriver } from '../../../src/db/loadDriver';
import type { TediousSession } from '../../../src/db';
import { readServerDefinition } from '../../../src/probes/queryStore';
import { captureServerIdentity, grantContextOf } from '../../../src/probes/serverInfo';
import { useTestServer, type TestServer } from '../support';
import { documentOf, topLogCli } from './cli';

const READER = { name: 'lens_def_reader', password: 'Reader-Def-1' };

async function asLogin(t: TestServer, login: { name: string; password: string }): Promise<TediousSession> {
  return (await loadDriver()).connect({ ...t.profile, authentication: { type: 'sql', user: login.name } }, login.password, { role: 'monitor' });
}

async function definitionAs(session: TediousSession, database: string, objectId: number) {
  const identity = await captureServerIdentity(session);
  return readServerDefinition(session, grantContextOf(identity, database), objectId);
}

describe('integration: top-log opens a routine\'s definition from the server (OBJECT_DEFINITION)', function () {
  this.timeout(60_000);
  const t = useTestServer({
    standinOnly: 'creates a login without VIEW DEFINITION on the stand-in',
    logins: [{ name: READER.name, password: READER.password, databases: ['lab'], databasePermissions: { lab: ['VIEW DATABASE PERFORMANCE STATE'] } }],
  });
  let plain: string;
  let hidden: string;
  let table: string;
  /** A body longer than 4,000 characters: the read must return all of it. */
  const filler = `-- ${'x'.repeat(120)}\n`.repeat(40);

  before(async () => {
    plain = t.procedure('def_plain');
    hidden = t.procedure('def_hidden');
    table = t.table('def_rows');
    const s = await t.connect('workload');
    try {
      await s.execute(`CREATE TABLE ${table} (id int IDENTITY(1,1) PRIMARY KEY, v int NOT NULL);`);
      await s.execute(`CREATE PROCEDURE ${plain} @rows int AS\nBEGIN\n${filler}  DECLARE @i int = 0;\n  WHILE @i < @rows\n  BEGIN\n    INSERT INTO ${table} (v) VALUES (@i);\n    SET @i += 1;\n  END\nEND`);
      await s.execute(`CREATE PROCEDURE ${hidden} @rows int WITH ENCRYPTION AS\nBEGIN\n  INSERT INTO ${table} (v) VALUES (@rows);\nEND`);
      await s.execute(`EXEC ${plain} @rows = 5;`);
      await s.execute(`EXEC ${hidden} @rows = 7;`);
      await s.execute(`INSERT INTO ${table} (v) VALUES (42);`);
    } finally {
      await s.close();
    }
  });

  const rowsByName = async () => {
    const doc = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json', '--hours', '1'));
    assert.equal(doc.queryStore.outcome, 'ready');
    const named = (p: string) => doc.rows.find((r) => r.object?.name?.toLowerCase() === p.split('.').pop()!.toLowerCase());
    return { doc, plainRow: named(plain), hiddenRow: named(hidden), adHoc: doc.rows.find((r) => r.object === null && /VALUES \(42\)/.test(r.text)) };
  };

  it('reads the whole definition of the module a row names, past 4,000 characters', async () => {
    const { plainRow } = await rowsByName();
    assert.ok(plainRow?.object, 'the procedure\'s INSERT is a row with its object');
    const s = await t.connect('monitor');
    try {
      const m = await definitionAs(s, t.database, plainRow.object.objectId);
      assert.equal(m.status, 'ok', m.status === 'ok' ? '' : m.reason);
      const def = m.status === 'ok' ? m.value : null;
      assert.equal(def?.objectName?.toLowerCase(), plain.split('.').pop()!.toLowerCase());
      assert.equal(def?.schemaName, 'dbo');
      assert.ok((def?.definition?.length ?? 0) > 4000, `length ${def?.definition?.length}`);
      assert.ok(def!.definition!.startsWith(`CREATE PROCEDURE ${plain}`), def!.definition!.slice(0, 80));
      assert.ok(def!.definition!.endsWith('END'), def!.definition!.slice(-40));
    } finally {
      await s.close();
    }
  });

  it('gives null (never an empty text) for an encrypted module and for a login without VIEW DEFINITION', async () => {
    const { plainRow, hiddenRow } = await rowsByName();
    assert.ok(plainRow?.object && hiddenRow?.object, 'both procedures are rows');
    const admin = await t.connect('monitor');
    try {
      const m = await definitionAs(admin, t.database, hiddenRow.object.objectId);
      assert.ok(m.status === 'ok' && m.value.definition === null, JSON.stringify(m));
    } finally {
      await admin.close();
    }
    const reader = await asLogin(t, READER);
    try {
      const m = await definitionAs(reader, t.database, plainRow.object.objectId);
      assert.ok(m.status === 'ok' && m.value.definition === null, JSON.stringify(m));
    } finally {
      await reader.close();
    }
  });

  it('an ad hoc row has no module: not applicable, nothing sent to the server', async () => {
    const { adHoc } = await rowsByName();
    assert.ok(adHoc, 'the ad hoc INSERT is a row');
    const s = await t.connect('monitor');
    try {
      const identity = await captureServerIdentity(s);
      t.standinServer!.resetConnectionStats();
      const m = await readServerDefinition(s, grantContextOf(identity, t.database), 0);
      assert.equal(m.status, 'unavailable');
      assert.match(m.status === 'unavailable' ? m.reason : '', /An ad hoc query belongs to no module/);
      const open = t.standinServer!.connectionStats().filter((c) => c.open);
      assert.ok(open.length >= 1, 'the monitor connection is counted');
      assert.equal(open.reduce((n, c) => n + c.requests, 0), 0, 'no request');
    } finally {
      await s.close();
    }
  });
});
