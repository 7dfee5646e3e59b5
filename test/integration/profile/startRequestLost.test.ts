// The monitor connection lost with the answer of the request that takes the before-snapshot and CREATEs + STARTs both
// event sessions (measureRun.ts takeBeforeSnapshot): the server ran the whole request, so every session it names may
// exist — the log-flush session and its latency companion, the statement session and its executions companion. The run
// must drop all four on a fresh connection ("Nothing lost"), whatever it then reports.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun, type ConnectionSource } from '../../../src/profile';
import type { SqlSession } from '../../../src/db/types';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

/**
 * A source whose first monitor loses the answer of the first request matching `lost`, after the server ran it: the
 * connection closes under it, or (`keepConnection`) the request fails as tedious's request timeout fails one.
 */
function losingFirstMonitor(base: ConnectionSource, lost: (sql: string) => boolean, keepConnection = false): ConnectionSource & { lostOnce: boolean } {
  let monitors = 0;
  const source = {
    serverLabel: base.serverLabel,
    lostOnce: false,
    open: async (role: 'workload' | 'monitor', signal?: AbortSignal): Promise<SqlSession> => {
      const session = await base.open(role, signal);
      if (role !== 'monitor' || monitors++ > 0) return session;
      const query = session.query.bind(session);
      (session as { query: SqlSession['query'] }).query = async (sql, parameters) => {
        const rows = await query(sql, parameters);
        if (!source.lostOnce && lost(sql)) {
          source.lostOnce = true;
          if (keepConnection) throw Object.assign(new Error('Timeout: Request failed to complete in 60000ms'), { code: 'ETIMEOUT' });
          // The server ran the batch; its answer never arrives (the socket closed under it).
          await session.close();
          throw Object.assign(new Error('Connection lost - read ECONNRESET'), { code: 'ESOCKET' });
        }
        return rows;
      };
      return session;
    },
  };
  return source;
}

describe('integration: the monitor lost with the before-snapshot + session start request (stand-in only)', function () {
  this.timeout(60000);
  const t = useTestServer({ standinOnly: 'replaces the monitor connection\'s answer with a lost connection' });

  it('drops every event session that request may have created, the statement session\'s executions companion included', async () => {
    const table = t.table('start_lost');
    const source = losingFirstMonitor(profileConnectionSource(t.profile, t.secret), (sql) => /CREATE EVENT SESSION/i.test(sql) && /dm_io_virtual_file_stats/i.test(sql));
    const script = `CREATE TABLE ${table} (id int);\nGO\nINSERT INTO ${table} VALUES (1);`;
    await profileRun({ connections: source, batches: analyze(script).batches, setupBatches: 1 }).catch((err: unknown) => err);
    assert.ok(source.lostOnce, 'the combined request was sent (and its answer lost)');
    await t.connectionsClosed();
    assert.deepEqual((await t.state()).eventSessions, [], 'no event session of the run is left on the server');
  });

  it('a request that timed out after the server ran it: the sessions it created are ours — dropped, never "someone else\'s"', async () => {
    const table = t.table('start_timeout');
    const starts = (sql: string) => /CREATE EVENT SESSION/i.test(sql) && /dm_io_virtual_file_stats/i.test(sql);
    const source = losingFirstMonitor(profileConnectionSource(t.profile, t.secret), starts, true);
    const script = `CREATE TABLE ${table} (id int);\nGO\nINSERT INTO ${table} VALUES (1);`;
    const run = await profileRun({ connections: source, batches: analyze(script).batches, setupBatches: 1 });
    assert.ok(source.lostOnce, 'the combined request was sent (and its answer lost)');
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    // Not a false statement about a session this run created itself.
    assert.deepEqual(run.notes.filter((n) => /not ours/.test(n)), []);
    // Whatever the traces then measured, each one that is missing says why.
    const traces = run.missing.filter((m) => m.measurement === 'extendedEvents' || m.measurement === 'statementAttribution');
    for (const m of traces) {
      assert.match(m.reason, /Timeout: Request failed to complete/);
      // Never "nothing on the server changed" about a request whose effect is unknown.
      assert.doesNotMatch(m.reason, /nothing on the server changed/);
    }
    await t.connectionsClosed();
    assert.deepEqual((await t.state()).eventSessions, [], 'no event session of the run is left on the server');
  });
});
