// Every state `top-log` can meet has a clear outcome (issue 30, item 4), each tested with its message: Query Store off
// (the exact ALTER and its cost — and running that ALTER fixes it), read-only (why, and the way back), in error, wait
// statistics not captured (2017+), no permission (the GRANT, which then works), SQL Server 2016 (no waits, no log bytes),
// Azure SQL Database and Managed Instance. States are set up on the stand-in (its logins, versions and platforms), so
// these suites skip on a given server.
import { strict as assert } from 'node:assert';
import { EXIT } from '../../../src/cli/commands/shared';
import { queryStoreOf } from '../../standin/model/queryStore';
import { useTestServer, type TestServer } from '../support';
import { documentOf, topLogCli } from './cli';

const READER = { name: 'lens_qs_reader', password: 'Reader-1' };

/** A small per-row workload so there is history to read. */
async function workload(t: TestServer, table: string, rows = 20): Promise<void> {
  const s = await t.connect('workload');
  try {
    await s.execute(`IF OBJECT_ID(N'${table}', N'U') IS NULL CREATE TABLE ${table} (id int IDENTITY(1,1) PRIMARY KEY, v int NOT NULL);`);
    await s.execute(`DECLARE @i int = 0; WHILE @i < ${rows} BEGIN INSERT INTO ${table} (v) VALUES (@i); SET @i += 1; END`);
  } finally {
    await s.close();
  }
}

/** Runs a statement as the stand-in's sa (what a DBA would do with the printed fix). */
async function asAdmin(t: TestServer, sql: string): Promise<void> {
  const s = await t.connect('monitor');
  try {
    await s.execute(sql);
  } finally {
    await s.close();
  }
}

function asLogin(t: TestServer, login: { name: string; password: string }): { connection: string[]; env: Record<string, string> } {
  const p = t.profile;
  return {
    connection: ['--server', p.server, '--port', String(p.port), '--database', t.database, '--user', login.name, '--password-env', 'LENS_QS_PW', '--encrypt', 'false'],
    env: { LENS_QS_PW: login.password },
  };
}

describe('integration: top-log when Query Store is off (SQL Server 2019 default)', function () {
  this.timeout(60_000);
  const t = useTestServer({ version: 2019, standinOnly: 'needs a server whose Query Store is off (stand-in SQL Server 2019)' });

  it('refuses with the exact ALTER DATABASE and its cost; running that ALTER makes the history readable', async () => {
    const table = t.table('qs_off');
    await workload(t, table);
    const o = await topLogCli(t.cliConnection(), t.cliEnv(), '--json');
    assert.equal(o.code, EXIT.refused);
    const doc = documentOf(o);
    assert.equal(doc.queryStore.outcome, 'off');
    assert.match(doc.queryStore.message, /^Query Store is OFF for lab: there is no production history to rank\. Nothing was changed: Durability Lens only reads Query Store\.$/);
    assert.equal(doc.queryStore.fix?.statement, 'ALTER DATABASE [lab] SET QUERY_STORE = ON (OPERATION_MODE = READ_WRITE);');
    assert.match(doc.queryStore.fix!.cost, /Needs ALTER on the database\. .*up to MAX_STORAGE_SIZE_MB, 1,000 MB by default here.*every 15 minutes.*clears this database's plan cache, so the next executions recompile/);
    assert.deepEqual(doc.rows, []);
    assert.match(o.err, /Query Store is OFF for lab/);
    // The text report shows the same, with the statement to review.
    const text = await topLogCli(t.cliConnection(), t.cliEnv());
    assert.match(text.out, /To fix it \(not run by Durability Lens — review, then run it yourself\):\n  ALTER DATABASE \[lab\] SET QUERY_STORE = ON \(OPERATION_MODE = READ_WRITE\);/);

    await asAdmin(t, doc.queryStore.fix!.statement);
    await workload(t, table);
    const after = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json'));
    assert.equal(after.queryStore.outcome, 'ready');
    assert.ok(after.rows.some((r) => /INSERT INTO/i.test(r.text) && r.executions === 20), JSON.stringify(after.rows.map((r) => [r.text, r.executions])));
  });
});

describe('integration: top-log in master (Query Store cannot be enabled there)', function () {
  this.timeout(60_000);
  const t = useTestServer({ standinOnly: 'reads the stand-in\'s master, whose Query Store is off' });

  it('refuses without offering an ALTER that cannot work, and points to a user database', async () => {
    const master = t.cliConnection().map((a, i, all) => (all[i - 1] === '--database' ? 'master' : a));
    const o = await topLogCli(master, t.cliEnv(), '--json');
    assert.equal(o.code, EXIT.refused);
    const doc = documentOf(o);
    assert.equal(doc.database, 'master');
    assert.equal(doc.queryStore.outcome, 'off');
    assert.equal(doc.queryStore.fix, null);
    assert.match(doc.queryStore.message, /^Query Store is OFF for master and cannot be turned on there .*Connect to the user database whose workload you want to rank\./);
    const text = await topLogCli(master, t.cliEnv());
    assert.doesNotMatch(text.out, /ALTER DATABASE \[master\]/);
  });
});

describe('integration: top-log when Query Store is read-only, in error, or not capturing waits', function () {
  this.timeout(60_000);
  const t = useTestServer({ standinOnly: 'sets Query Store states on the stand-in' });
  const table = () => t.table('qs_states');

  it('read-only at its size limit: says why, still shows what was kept, and offers more room with READ_WRITE', async () => {
    await workload(t, table());
    const qs = queryStoreOf(t.standin!.state, t.standin!.state.dbByName('lab')!);
    qs.options.actual = 'READ_ONLY';
    qs.options.readonlyReason = 65536;
    try {
      const o = await topLogCli(t.cliConnection(), t.cliEnv(), '--json');
      assert.equal(o.code, EXIT.ok, o.err);
      const doc = documentOf(o);
      assert.equal(doc.queryStore.outcome, 'read-only');
      assert.match(doc.queryStore.message, /^Query Store of lab is READ_ONLY: it was asked to record but is read-only because Query Store reached MAX_STORAGE_SIZE_MB\. It keeps what it recorded, so the figures below stop at the moment it stopped recording/);
      assert.equal(doc.queryStore.fix?.statement, 'ALTER DATABASE [lab] SET QUERY_STORE (OPERATION_MODE = READ_WRITE, MAX_STORAGE_SIZE_MB = 2000);');
      assert.ok(doc.rows.length > 0, 'what was kept is still listed');
      await asAdmin(t, doc.queryStore.fix!.statement);
      assert.equal(documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json')).queryStore.outcome, 'ready');
    } finally {
      qs.options.actual = 'READ_WRITE';
      qs.options.readonlyReason = 0;
    }
  });

  it('in the ERROR state: refuses and names sp_query_store_consistency_check', async () => {
    const qs = queryStoreOf(t.standin!.state, t.standin!.state.dbByName('lab')!);
    qs.options.actual = 'ERROR';
    try {
      const o = await topLogCli(t.cliConnection(), t.cliEnv(), '--json');
      assert.equal(o.code, EXIT.refused);
      const doc = documentOf(o);
      assert.equal(doc.queryStore.outcome, 'error');
      assert.match(doc.queryStore.message, /is in the ERROR state \(an internal error stopped it\): its history cannot be trusted or read\. Nothing was changed/);
      assert.equal(doc.queryStore.fix?.statement, 'USE [lab];\nEXEC sys.sp_query_store_consistency_check;');
    } finally {
      qs.options.actual = 'READ_WRITE';
    }
  });

  it('wait statistics not captured: rows stay, waits read "not measured" with the ALTER, alone falls back to log bytes', async () => {
    await workload(t, table());
    await asAdmin(t, 'ALTER DATABASE [lab] SET QUERY_STORE (WAIT_STATS_CAPTURE_MODE = OFF);');
    try {
      const doc = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json', '--by', 'alone'));
      assert.equal(doc.queryStore.outcome, 'ready');
      assert.equal(doc.queryStore.waitStatsCaptureMode, 'OFF');
      assert.match(doc.waitsNotMeasured ?? '', /^Not measured: waits per query: lab's Query Store does not capture wait statistics \(WAIT_STATS_CAPTURE_MODE = OFF\)\./);
      assert.ok(doc.queryStore.notices.some((n) => n.includes('ALTER DATABASE [lab] SET QUERY_STORE (WAIT_STATS_CAPTURE_MODE = ON);')), doc.queryStore.notices.join('\n'));
      assert.ok(doc.rows.length > 0 && doc.rows.every((r) => r.logWaitMs === null && r.logWaitShare === null), 'waits are null, never 0');
      assert.equal(doc.ranking.used, 'alone');
      assert.match(doc.ranking.note ?? '', /Without wait statistics, .* cannot tell a statement that commits alone from one inside a larger transaction/);
      const byWait = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json', '--by', 'wait'));
      assert.equal(byWait.ranking.used, 'log');
      assert.match(byWait.ranking.note ?? '', /^Asked to rank by log-IO wait time, ranked by total log bytes: wait statistics are not measured here\./);
    } finally {
      await asAdmin(t, 'ALTER DATABASE [lab] SET QUERY_STORE (WAIT_STATS_CAPTURE_MODE = ON);');
    }
  });
});

describe('integration: top-log without permission to read Query Store', function () {
  this.timeout(60_000);
  const t = useTestServer({ standinOnly: 'creates a least-privileged login on the stand-in', logins: [{ name: READER.name, password: READER.password, databases: ['lab'] }] });

  it('refuses with the GRANT (2022: VIEW DATABASE PERFORMANCE STATE), which then lets the login read', async () => {
    await workload(t, t.table('qs_perm'));
    const login = asLogin(t, READER);
    const o = await topLogCli(login.connection, login.env, '--json');
    assert.equal(o.code, EXIT.refused);
    const doc = documentOf(o);
    assert.equal(doc.queryStore.outcome, 'no-permission');
    assert.match(doc.queryStore.message, /^Not measured: lab's Query Store: the login lacks VIEW DATABASE PERFORMANCE STATE in this database \(HAS_PERMS_BY_NAME says no\)\. Nothing was read\. Nothing was changed/);
    assert.equal(doc.queryStore.fix?.statement, `USE [lab];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [${READER.name}];`);
    assert.match(doc.queryStore.fix!.cost, /A read permission on lab only/);
    assert.deepEqual(doc.rows, []);
    await asAdmin(t, doc.queryStore.fix!.statement);
    const granted = await topLogCli(login.connection, login.env, '--json');
    assert.equal(granted.code, EXIT.ok, granted.err);
    assert.equal(documentOf(granted).queryStore.outcome, 'ready');
    assert.ok(documentOf(granted).rows.length > 0);
  });
});

describe('integration: top-log on SQL Server 2016 (Query Store without waits or log bytes)', function () {
  this.timeout(60_000);
  const t = useTestServer({ version: 2016, standinOnly: 'plays SQL Server 2016 on the stand-in' });

  it('ranks by executions and says log bytes and waits are not kept there', async () => {
    await asAdmin(t, 'ALTER DATABASE [lab] SET QUERY_STORE = ON (OPERATION_MODE = READ_WRITE);');
    await workload(t, t.table('qs_2016'), 30);
    const o = await topLogCli(t.cliConnection(), t.cliEnv(), '--json', '--by', 'alone');
    assert.equal(o.code, EXIT.ok, o.err);
    const doc = documentOf(o);
    assert.equal(doc.server.majorVersion, 13);
    assert.equal(doc.ranking.used, 'executions');
    assert.match(doc.logBytesNotMeasured ?? '', /^Not measured: log bytes per query: SQL Server 2016 keeps no log bytes in Query Store/);
    assert.match(doc.waitsNotMeasured ?? '', /^Not measured: waits per query: SQL Server 2016 has no Query Store wait statistics \(sys\.query_store_wait_stats applies to SQL Server 2017 and later\)\./);
    assert.ok(doc.queryStore.notices.some((n) => n.startsWith('SQL Server 2016: Query Store keeps no wait statistics')));
    const insert = doc.rows.find((r) => /INSERT INTO/i.test(r.text))!;
    assert.equal(insert.executions, 30);
    assert.equal(insert.logBytes, null);
    assert.equal(insert.logWaitMs, null);
    assert.equal(doc.queryStore.waitStatsCaptureMode, null);
  });
});

describe('integration: top-log on Azure SQL Database', function () {
  this.timeout(60_000);
  const t = useTestServer({ product: 'azure-sqldb', standinOnly: 'plays Azure SQL Database on the stand-in', logins: [{ name: READER.name, password: READER.password, databases: ['lab'] }] });

  it('reads with VIEW DATABASE STATE, says Query Store is always on there, and grants in the database', async () => {
    await workload(t, t.table('qs_azure'));
    const doc = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json'));
    assert.equal(doc.queryStore.outcome, 'ready');
    assert.equal(doc.server.engineEdition, 5);
    assert.ok(doc.queryStore.notices.some((n) => n.startsWith('Azure SQL Database: Query Store is always on in single databases and elastic pools')));
    assert.equal(doc.waitsNotMeasured, null);
    const login = asLogin(t, READER);
    const refused = documentOf(await topLogCli(login.connection, login.env, '--json'));
    assert.equal(refused.queryStore.outcome, 'no-permission');
    assert.equal(refused.queryStore.fix?.statement, `-- run while connected to [lab]\nGRANT VIEW DATABASE STATE TO [${READER.name}];`);
  });
});

describe('integration: top-log on Azure SQL Managed Instance', function () {
  this.timeout(60_000);
  const t = useTestServer({ product: 'mi', standinOnly: 'plays Managed Instance on the stand-in' });

  it('treats version 12 as current: waits and log bytes measured, the MI notice shown', async () => {
    await workload(t, t.table('qs_mi'));
    const doc = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json'));
    assert.equal(doc.server.majorVersion, 12);
    assert.equal(doc.server.engineEdition, 8);
    assert.equal(doc.queryStore.outcome, 'ready');
    assert.equal(doc.logBytesNotMeasured, null);
    assert.equal(doc.waitsNotMeasured, null);
    assert.ok(doc.queryStore.notices.some((n) => n.startsWith('Azure SQL Managed Instance: Query Store works as on SQL Server 2022')));
    assert.ok(doc.rows.some((r) => (r.logWaitMs ?? 0) > 0));
  });
});

describe('integration: top-log adds up every row of an interval and every interval of the window', function () {
  this.timeout(60_000);
  const t = useTestServer({ standinOnly: 'flushes Query Store and closes intervals through the stand-in\'s control API' });

  it('Σ avg × executions over flushed and in-memory rows and two intervals equals the executions and log that ran', async () => {
    const { flushQueryStore, closeInterval } = await import('../../standin/model/queryStore');
    const table = t.table('qs_sum');
    const server = t.standin!.state;
    const lab = server.dbByName('lab')!;
    const qs = queryStoreOf(server, lab);
    // The server's clock runs from 10:05 UTC, so no 60-minute interval ends during the test on its own: the only new
    // interval is the one closeInterval opens, whenever the suite runs (a run crossing the hour made three).
    const offset = Date.UTC(2026, 10, 25, 10, 5) - Date.now();
    server.clock = () => Date.now() + offset;
    try {
      await workload(t, table, 0); // the table exists before the log is measured
      const start = lab.log.endLsn;
      await workload(t, table, 10);
      flushQueryStore(qs); // the next executions of this interval go to a new, in-memory row
      await workload(t, table, 15);
      closeInterval(qs, server.now()); // and then into a new interval
      await workload(t, table, 25);
      const generated = lab.log.endLsn - start;
      const doc = documentOf(await topLogCli(t.cliConnection(), t.cliEnv(), '--json'));
      const insert = doc.rows.find((r) => /^INSERT INTO/i.test(r.text))!;
      assert.equal(insert.executions, 50);
      assert.equal(doc.window.intervals, 2);
      const planRows = qs.runtime.filter((r) => r.planId === [...qs.queries.values()].find((q) => q.text.startsWith('INSERT INTO'))!.planId);
      assert.equal(planRows.length, 3, 'flushed row + in-memory row in interval 1, one row in interval 2');
      // Everything these workloads logged is their INSERTs (each an autocommit transaction: begin, row, commit).
      assert.ok(Math.abs(insert.logBytes! - generated) <= 0.01 * generated, `Σ ${insert.logBytes} vs ${generated}`);
    } finally {
      server.clock = Date.now;
    }
  });
});

describe('integration: top-log when the connection fails', function () {
  this.timeout(30_000);
  const t = useTestServer({ standinOnly: 'uses a wrong password and drops a connection on the stand-in' });

  it('a connection dropped during the read: exit 1, the outcome "failed" with the driver\'s reason, never rows of 0', async () => {
    t.standinServer!.resetConnectionStats();
    await (await t.connect('monitor')).close();
    await t.connectionsClosed();
    const opening = t.standinServer!.connectionStats()[0]!.requests;
    // The request after the server's identity (the state read) drops the connection.
    t.standin!.faults.dropAtRequest = opening + 2;
    try {
      const o = await topLogCli(t.cliConnection(), t.cliEnv(), '--json');
      assert.equal(o.code, EXIT.unexpected, o.err);
      const doc = documentOf(o);
      assert.equal(doc.queryStore.outcome, 'failed');
      assert.match(doc.queryStore.message, /^Query Store of lab could not be read: .+ Nothing was changed/);
      assert.deepEqual(doc.rows, []);
      assert.equal(doc.totals, null);
    } finally {
      t.standin!.faults.dropAtRequest = null;
    }
    await t.connectionsClosed();
  });

  it('exits 3 with the connection failure, nothing read', async () => {
    const o = await topLogCli(t.cliConnection(), { LENS_TEST_PASSWORD: 'wrong' }, '--json');
    assert.equal(o.code, EXIT.connection);
    assert.match(o.err, /^durability-lens top-log: The server refused the login \(error 18456\)\. Nothing was changed on the server\./m);
    assert.equal(o.out, '');
  });
});
