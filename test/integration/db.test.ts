// The db layer against the stand-in (or a real server): connect, encryption check, error classification,
// workload runner (PRINT, error lines, GO n, cancel, 1,000,000 rows with flat memory).
import assert from 'node:assert/strict';
import { connect } from '../../src/db/connect';
import { ConnectionFailure } from '../../src/db/errors';
import type { TediousSession } from '../../src/db/session';
import type { ConnectionProfile, WorkloadMessage } from '../../src/db/types';
import { runWorkload } from '../../src/db/workload';
import { valueOf } from '../../src/probes/measurement';
import type { GrantContext } from '../../src/probes/permissions';
import { captureInFlightWaits } from '../../src/probes/waitStats';
import { closedPort, useTestServer, waitFor } from './support';

/** The in-flight waits probe needs a grant context for its not-measured text; the figures do not depend on it. */
const GRANT_CONTEXT: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'sa', userName: 'dbo', databaseName: 'lab' };

describe('integration: db connections and workload runner', function () {
  this.timeout(60000);
  // speedFactor 1: the model's own pace, as this suite has always run (WAITFOR and cancels take real time).
  const target = useTestServer({ speedFactor: 1 });
  const sessions: TediousSession[] = [];
  const open = async (overrides: Partial<ConnectionProfile> = {}, role: 'workload' | 'monitor' = 'workload', secret?: string) => {
    const s = await connect({ ...target.profile, ...overrides }, secret ?? target.secret, { role });
    sessions.push(s);
    return s;
  };

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });

  it('connects without encryption and exposes distinct @@SPIDs for workload and monitor', async () => {
    const workload = await open({}, 'workload');
    const monitor = await open({}, 'monitor');
    assert.ok(workload.spid > 0 && monitor.spid > 0);
    assert.notEqual(workload.spid, monitor.spid);
    // A given server's connection string may ask for encryption (the hosted-CI workflow's does): then it is checked.
    if (target.profile.encrypt === false) assert.equal(workload.encrypted, null, 'not requested, not checked');
    const [row] = await monitor.query('SELECT @@SPID AS spid, APP_NAME() AS app;');
    assert.equal(row!.spid, monitor.spid);
    assert.equal(row!.app, 'Durability Lens (monitor)');
    // The monitor is a low-impact session: gives up on locks after 5 s and is the preferred deadlock victim.
    const [options] = await monitor.query('SELECT lock_timeout, deadlock_priority FROM sys.dm_exec_sessions WHERE session_id = @@SPID;');
    assert.equal(options!.lock_timeout, 5000);
    assert.equal(options!.deadlock_priority, -5);
  });

  it('connects with encryption (trusting the certificate) and verifies encrypt_option = TRUE', async () => {
    const s = await open({ encrypt: true, trustServerCertificate: true }, 'monitor');
    assert.equal(s.encrypted, true);
    assert.equal(s.encryptionEvidence, 'server');
  });

  it('runs parameterised queries through sp_executesql with typed values', async () => {
    const s = await open({}, 'monitor');
    const rows = await s.query('SELECT @n + 1 AS next, @name AS name;', [
      { name: 'n', type: 'int', value: 41 },
      { name: 'name', type: 'nvarchar', value: "O'Brien]" },
    ]);
    assert.deepEqual(rows, [{ next: 42, name: "O'Brien]" }]);
  });

  it('refuses an untrusted (self-signed) certificate and offers trustServerCertificate (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // a real server may well have a trusted certificate
    await assert.rejects(open({ encrypt: true, trustServerCertificate: false }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'untrusted-certificate');
      assert.equal(err.info.offerTrustServerCertificate, true);
      return true;
    });
  });

  it('classifies a wrong password as login failed (18456)', async () => {
    await assert.rejects(open({}, 'workload', 'definitely-wrong-password'), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'login-failed');
      assert.equal(err.info.serverErrorNumber, 18456);
      assert.match(err.info.message, /Nothing was changed/);
      return true;
    });
  });

  it('classifies an unknown database (4060)', async () => {
    await assert.rejects(open({ database: 'durability_lens_no_such_db' }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'unknown-database');
      return true;
    });
  });

  it('classifies a closed port as unreachable', async () => {
    const port = await closedPort();
    await assert.rejects(open({ server: '127.0.0.1', port, connectTimeoutMs: 3000 }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'unreachable');
      return true;
    });
  });

  it('forwards PRINT with timestamps and maps an error line to the document line', async () => {
    const s = await open();
    const messages: WorkloadMessage[] = [];
    const text = ["PRINT 'starting';", 'SELECT TOP (2) object_id FROM sys.all_objects;', "RAISERROR('boom', 16, 1);", "PRINT 'after';"].join('\n');
    const report = await runWorkload(s, { text, repeat: 1, firstLine: 20 }, { onMessage: (m) => messages.push(m) }).done;
    const print = messages.find((m) => m.kind === 'info' && m.message === 'starting');
    assert.ok(print, 'PRINT forwarded');
    assert.ok(print.at > 0 && print.elapsedMs >= 0);
    const error = messages.find((m) => m.kind === 'error');
    assert.equal(error?.message, 'boom');
    assert.equal(error?.lineNumber, 3);
    assert.equal(error?.documentLine, 22);
    // Severity 16 ends the statement, not the batch: a statement error, not one that ended the run.
    assert.equal(report.error, null);
    assert.deepEqual(report.statementErrors?.map((e) => [e.number, e.documentLine, e.iteration]), [[50000, 22, 0]]);
    assert.equal(report.rowsReturned, 2);
    assert.equal(report.resultSets, 1);
    assert.equal(report.iterationsCompleted, 1, 'the repetition ran to its end as the server ran it');
    assert.ok(messages.some((m) => m.kind === 'info' && m.message === 'after'), 'severity 16 does not stop the batch');
  });

  it('repeats a batch for GO n and counts rows affected per statement', async () => {
    const s = await open();
    await s.execute('IF OBJECT_ID(N\'dbo.lens_go_n\') IS NOT NULL DROP TABLE dbo.lens_go_n; CREATE TABLE dbo.lens_go_n (id int IDENTITY(1,1) PRIMARY KEY, v int);');
    try {
      const infos: string[] = [];
      const report = await runWorkload(s, { text: "INSERT INTO dbo.lens_go_n (v) VALUES (1), (2);\nPRINT 'tick';", repeat: 3, firstLine: 0 }, {
        onMessage: (m) => m.kind === 'info' && infos.push(m.message),
      }).done;
      assert.equal(report.error, null);
      assert.equal(report.iterationsCompleted, 3);
      assert.equal(report.rowsAffected, 6);
      assert.deepEqual(infos, ['tick', 'tick', 'tick']);
      const [row] = await s.query('SELECT COUNT(*) AS n FROM dbo.lens_go_n;');
      assert.equal(row!.n, 6);
    } finally {
      await s.execute('DROP TABLE dbo.lens_go_n;');
    }
  });

  it('under SET NOCOUNT ON the server sends no row counts: rows affected is not measured (null), never 0', async () => {
    const s = await open();
    await s.execute('IF OBJECT_ID(N\'dbo.lens_nocount\') IS NOT NULL DROP TABLE dbo.lens_nocount; CREATE TABLE dbo.lens_nocount (v int);');
    try {
      const quiet = await runWorkload(s, { text: 'SET NOCOUNT ON;\nINSERT INTO dbo.lens_nocount (v) VALUES (1), (2);\nSET NOCOUNT OFF;', repeat: 1, firstLine: 0 }).done;
      assert.equal(quiet.error, null);
      assert.equal(quiet.rowsAffected, null);
      const counted = await runWorkload(s, { text: 'INSERT INTO dbo.lens_nocount (v) VALUES (3);', repeat: 1, firstLine: 0 }).done;
      assert.equal(counted.rowsAffected, 1);
      const [row] = await s.query('SELECT COUNT(*) AS n FROM dbo.lens_nocount;');
      assert.equal(row!.n, 3, 'the quiet INSERT did run');
    } finally {
      await s.execute('DROP TABLE dbo.lens_nocount;');
    }
  });

  /** True once the monitor sees the workload session inside WAITFOR (sys.dm_exec_requests / dm_os_waiting_tasks). */
  const inWaitfor = (monitor: TediousSession, spid: number) => async () =>
    valueOf(await captureInFlightWaits(monitor, spid, GRANT_CONTEXT))?.some((w) => w.waitType === 'WAITFOR' || w.taskWaitType === 'WAITFOR') ?? false;

  it('cancels a long WAITFOR (ATTENTION → ECANCEL) and the connection stays usable', async () => {
    const s = await open();
    const monitor = await open({}, 'monitor');
    const run = runWorkload(s, { text: "WAITFOR DELAY '00:00:30';", repeat: 5, firstLine: 0 });
    await waitFor(inWaitfor(monitor, s.spid), 'the workload session to wait in WAITFOR', 10000);
    run.cancel();
    const report = await run.done;
    assert.equal(report.cancelled, true);
    assert.equal(report.error, null);
    assert.equal(report.iterationsCompleted, 0);
    assert.ok(report.elapsedMs < 30000, `cancel took ${report.elapsedMs} ms`);
    const [row] = await s.query('SELECT 1 AS one;');
    assert.equal(row!.one, 1);
  });

  it('stops on an AbortSignal', async () => {
    const s = await open();
    const monitor = await open({}, 'monitor');
    const controller = new AbortController();
    const run = runWorkload(s, { text: "WAITFOR DELAY '00:00:30';", repeat: 1, firstLine: 0 }, { signal: controller.signal });
    await waitFor(inWaitfor(monitor, s.spid), 'the workload session to wait in WAITFOR', 10000);
    controller.abort();
    const report = await run.done;
    assert.equal(report.cancelled, true);
    assert.ok(report.elapsedMs < 30000, `abort took ${report.elapsedMs} ms`);
  });

  it('reports a connection dropped mid-batch as the batch error (stand-in only)', async function () {
    if (!target.standin) this.skip(); // fault injection
    const s = await open();
    target.standin.faults.dropAfterMs = 100;
    try {
      const report = await runWorkload(s, { text: "WAITFOR DELAY '00:00:30';", repeat: 3, firstLine: 0 }).done;
      assert.ok(report.error, 'an error is reported');
      assert.equal(report.connectionLost, true, `code ${report.error.code}: ${report.error.message}`);
      assert.equal(report.iterationsCompleted, 0);
      await waitFor(() => s.isClosed, 'tedious to report the connection ended');
    } finally {
      target.standin.faults.reset();
    }
  });

  it('streams a 1,000,000-row result with flat memory (rows counted, never kept)', async () => {
    const s = await open();
    globalThis.gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 20);
    try {
      const report = await runWorkload(s, {
        text: 'SELECT TOP (1000000) a.object_id AS a, b.object_id AS b FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b;',
        repeat: 1,
        firstLine: 0,
      }).done;
      assert.equal(report.error, null);
      assert.equal(report.rowsReturned, 1000000);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    const growthMb = (peak - baseline) / 1024 / 1024;
    // Keeping 1,000,000 rows as objects would need well over 100 MB; streaming measured ~15 MB of garbage between
    // GCs here (the in-process stand-in included).
    assert.ok(growthMb < 48, `heap grew by ${growthMb.toFixed(1)} MB`);
  });

  it('closes every connection it opened (stand-in only)', async function () {
    if (target.kind === 'given') this.skip();
    const s = await open();
    await waitFor(() => target.standinServer!.connections >= 1, 'the connection to register');
    await s.close();
    sessions.splice(sessions.indexOf(s), 1);
    await waitFor(() => target.standinServer!.connections === 0, 'the stand-in to see every socket closed');
  });
});
