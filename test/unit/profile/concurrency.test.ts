// The concurrency sweep's core without a server: session levels, the connection-limit check, all-or-nothing opening
// (nothing left open after a failure or a cancel), the barrier (no session starts before all are connected), the
// session-param marker.
import { strict as assert } from 'node:assert';
import type { BatchReport, QueryParameter, Row, SqlSession, WorkloadBatch } from '../../../src/db/types';
import { connectionLimitProblem, openWorkloadSessions, parseSessionLevels, readConnectionLimit, runConcurrent } from '../../../src/profile/concurrency';
import { sessionParamOf, withSessionParam } from '../../../src/profile/sessionParam';
import { SetupMarkerError } from '../../../src/profile/setupMarkers';
import type { WorkloadExecutor } from '../../../src/profile/types';
import type { GrantContext } from '../../../src/probes/permissions';

/** A 2022 SQL Server login context: the GRANT texts and visibility permission these tests see. */
const CTX: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };

function fakeSession(spid: number, log: string[], answer: (sql: string) => Row[] = () => []): SqlSession {
  return {
    role: 'workload',
    spid,
    encrypted: null,
    query: async (sql: string, _p?: readonly QueryParameter[]) => answer(sql),
    execute: async () => undefined,
    close: async () => void log.push(`close ${spid}`),
  };
}

function report(extra: Partial<BatchReport> = {}): BatchReport {
  return { elapsedMs: 1, iterationsCompleted: 1, statements: 2, rowsAffected: 3, rowsReturned: 0, resultSets: 0, messageCount: 0, messages: [], error: null, cancelled: false, connectionLost: false, ...extra };
}

/** Resolves when `n` calls have arrived, each call's answer released by the test. */
function gate() {
  let release!: () => void;
  const opened = new Promise<void>((r) => (release = r));
  return { opened, release };
}

describe('profile: concurrency sweep core', () => {
  it('parses levels: order kept, typed repeats and empty items refused (repeats in a settings list dropped), bounded by the per-level maximum', () => {
    assert.deepEqual(parseSessionLevels('1, 4,16'), [1, 4, 16]);
    assert.equal(parseSessionLevels('1, 4,16,4'), 'sessions: 4 is given twice');
    assert.equal(parseSessionLevels('1,,4'), "sessions: '1,,4' has an empty item; write the levels as 1,4,16");
    assert.deepEqual(parseSessionLevels([8, 2, 8]), [8, 2]);
    assert.equal(parseSessionLevels('1,0'), "sessions: '0' is not a whole number ≥ 1");
    assert.equal(parseSessionLevels('2.5'), "sessions: '2.5' is not a whole number ≥ 1");
    for (const odd of ['0x10', '1e1', '+4', ' 4 4']) assert.equal(parseSessionLevels(odd), `sessions: '${odd.trim()}' is not a whole number ≥ 1`);
    assert.equal(parseSessionLevels('65'), 'sessions: 65 is above the limit of 64 connections per level');
    assert.deepEqual(parseSessionLevels('65', 128), [65]);
    assert.equal(parseSessionLevels(''), 'sessions needs at least one level, e.g. 1,4,16');
  });

  it("reads the limit from 'user connections' when set, else @@MAX_CONNECTIONS, and refuses a level that passes it", async () => {
    const log: string[] = [];
    const configured = fakeSession(1, log, () => [{ max_connections: 32767, user_connections: 20 }]);
    const unset = fakeSession(2, log, () => [{ max_connections: 32767, user_connections: 0 }]);
    const failing: SqlSession = { ...fakeSession(3, log), query: async () => Promise.reject(new Error('denied')) };
    assert.deepEqual(await readConnectionLimit(configured), { limit: 20, source: 'user connections' });
    assert.deepEqual(await readConnectionLimit(unset), { limit: 32767, source: '@@MAX_CONNECTIONS' });
    assert.deepEqual(await readConnectionLimit(failing), { limit: null, source: null, error: 'denied' });
    assert.equal(connectionLimitProblem({ limit: 20, source: 'user connections' }, 18), null);
    assert.match(connectionLimitProblem({ limit: 20, source: 'user connections' }, 19)!, /needs 21 connections .* allows 20 user connections/);
    assert.equal(connectionLimitProblem({ limit: null, source: null }, 64), null);
  });

  it('opens all or nothing: when one connection fails, those already open are closed and the error is thrown', async () => {
    const log: string[] = [];
    let n = 0;
    const open = async () => {
      const i = ++n;
      if (i === 3) throw new Error('login failed for session 3');
      return fakeSession(100 + i, log);
    };
    await assert.rejects(openWorkloadSessions(open, 4), /login failed for session 3/);
    assert.deepEqual(log.sort(), ['close 101', 'close 102', 'close 104']);
  });

  it('closes what it opened when the signal fires while connecting', async () => {
    const log: string[] = [];
    const cancel = new AbortController();
    let n = 0;
    const open = async () => {
      const i = ++n;
      if (i === 2) cancel.abort();
      return fakeSession(200 + i, log);
    };
    await assert.rejects(openWorkloadSessions(open, 3, cancel.signal), { name: 'AbortError' });
    assert.deepEqual(log.sort(), ['close 201', 'close 202', 'close 203']);
  });

  it('releases every session together: none starts before all are connected, and all run at once', async () => {
    const events: string[] = [];
    const log: string[] = [];
    // Connections that become ready one after another, as a real server answers logins.
    const gates = [gate(), gate(), gate(), gate()];
    let n = 0;
    const opening = openWorkloadSessions(async () => {
      const i = n++;
      await gates[i]!.opened;
      events.push(`connected ${i + 1}`);
      return fakeSession(300 + i, log);
    }, 4);
    for (const g of [...gates].reverse()) {
      g.release();
      await new Promise((r) => setImmediate(r));
    }
    const sessions = await opening;
    const seen: Array<{ spid: number; params: readonly QueryParameter[] | undefined }> = [];
    // Each session's batch finishes only once all four have started: sessions run one after another would never get
    // there (the deadline turns that into a failure instead of a hang).
    let everyoneStarted!: () => void;
    const allStarted = new Promise<void>((r) => (everyoneStarted = r));
    const executor: WorkloadExecutor = {
      run(session, batch: WorkloadBatch) {
        events.push(`start ${session.spid}`);
        seen.push({ spid: session.spid, params: batch.parameters });
        if (seen.length === 4) everyoneStarted();
        const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the sessions did not run at once')), 2000).unref());
        return { done: Promise.race([allStarted, deadline]).then(() => report()), cancel: () => undefined };
      },
    };
    const monitor = fakeSession(1, log, () => [{ wait_type: 'WRITELOG', waiting_tasks_count: '0', wait_time_ms: '0', max_wait_time_ms: '0', signal_wait_time_ms: '0' }]);
    const out = await runConcurrent(monitor, { sessions, parameter: '@session' }, [{ text: 'INSERT t VALUES (@session)', repeat: 1, firstLine: 0 }], executor, { signal: new AbortController().signal, grantContext: CTX });
    const lastConnect = Math.max(...events.map((e, i) => (e.startsWith('connected') ? i : -1)));
    const firstStart = events.findIndex((e) => e.startsWith('start'));
    assert.ok(firstStart > lastConnect, events.join(', '));
    assert.equal(events.filter((e) => e.startsWith('start')).length, 4);
    assert.deepEqual(seen.map((s) => [s.spid, s.params]), sessions.map((s, i) => [s.spid, [{ name: 'session', type: 'int', value: i + 1 }]]));
    assert.deepEqual(out.batches, [{ batchIndex: 0, firstLine: 0, repeat: 1, elapsedMs: 1, iterationsCompleted: 4, statements: 8, rowsAffected: 12, rowsReturned: 0 }]);
    assert.deepEqual(out.concurrency.perSession.map((s) => [s.session, s.spid, s.rowsAffected]), sessions.map((s, i) => [i + 1, s.spid, 3]));
    assert.deepEqual(out.concurrency.writelog, { waits: 0, waitTimeMs: 0 });
  });

  it('says why the sessions\' WRITELOG is not measured when their waits cannot be read', async () => {
    const log: string[] = [];
    const monitor: SqlSession = { ...fakeSession(1, log), query: async () => Promise.reject(new Error('VIEW SERVER STATE permission was denied')) };
    const executor: WorkloadExecutor = { run: () => ({ done: Promise.resolve(report()), cancel: () => undefined }) };
    const out = await runConcurrent(monitor, { sessions: [fakeSession(5, log)], parameter: null }, [{ text: 'SELECT 1', repeat: 1, firstLine: 0 }], executor, { signal: new AbortController().signal, grantContext: CTX });
    assert.equal(out.concurrency.writelog, null);
    assert.match(out.concurrency.writelogNotMeasured!, /not measured \(session 5\).*VIEW SERVER STATE.*denied/);
  });

  it("D1: a login that cannot see other sessions gets WRITELOG 'not measured' with the GRANT, never a measured 0", async () => {
    const log: string[] = [];
    const asked: string[] = [];
    // sys.dm_exec_session_wait_stats filters other sessions out silently: no rows, and the visibility check says the
    // login may not see them (HAS_PERMS_BY_NAME 0, its own spid differs).
    const monitor = fakeSession(1, log, (sql) => {
      asked.push(sql);
      return /HAS_PERMS_BY_NAME/.test(sql) ? [{ own_spid: 1, can_see_all: 0 }] : [];
    });
    const executor: WorkloadExecutor = { run: () => ({ done: Promise.resolve(report()), cancel: () => undefined }) };
    const sessions = [fakeSession(5, log), fakeSession(6, log)];
    const out = await runConcurrent(monitor, { sessions, parameter: null }, [{ text: 'SELECT 1', repeat: 1, firstLine: 0 }], executor, { signal: new AbortController().signal, grantContext: CTX });
    assert.equal(out.concurrency.writelog, null);
    assert.match(out.concurrency.writelogNotMeasured!, /not measured \(session 5\).*without VIEW SERVER PERFORMANCE STATE a login sees only its own session's waits.*GRANT VIEW SERVER PERFORMANCE STATE TO \[lens\]/);
    assert.ok(asked.some((q) => /HAS_PERMS_BY_NAME/.test(q)), 'the visibility was asked');
  });

  it('finds the session-param marker, rejects a malformed or conflicting one, and types the value as int', () => {
    const batch = (text: string, firstLine = 0): WorkloadBatch => ({ text, repeat: 1, firstLine });
    assert.equal(sessionParamOf([batch('SELECT 1')]), null);
    assert.equal(sessionParamOf([batch('SELECT 1'), batch('-- durability-lens: session-param @session\nINSERT t VALUES (@session)', 3)]), '@session');
    assert.throws(() => sessionParamOf([batch('x\n-- durability-lens: session-param session', 9)]), (e: unknown) => e instanceof SetupMarkerError && /Line 11: .*needs one variable name such as @session, not 'session'/.test(e.message));
    assert.throws(() => sessionParamOf([batch('-- durability-lens: session-param @a\n-- durability-lens: session-param @b')]), /names @b, but line 1 named @a/);
    assert.deepEqual(withSessionParam([batch('INSERT dbo.t VALUES (@K);')], '@k', 7)[0]!.parameters, [{ name: 'k', type: 'int', value: 7 }]);
    // Only batches that use the variable run through sp_executesql: a #temp table or SET in the others must carry on.
    const filled = withSessionParam([batch('CREATE TABLE #t (k int);'), batch('INSERT #t VALUES (@k);'), batch('SELECT @k2, @@k FROM #t;')], '@k', 3);
    assert.deepEqual(filled.map((b) => b.parameters?.length ?? 0), [0, 1, 0]);
    assert.equal(withSessionParam([batch('x')], null, 7)[0]!.parameters, undefined);
  });
});
