import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prefetch } from '../../../src/db/batch';
import { XeSessionError } from '../../../src/xe/errors';
import { dropOrphanSessions, dropSession, findOrphanSessions, LogFlushSession, ringBufferEventsLimit, withLogFlushTrace } from '../../../src/xe/logFlushTrace';
import { FakeServer, serverError } from './fakeServer';

const basicXml = readFileSync(join(__dirname, '../../fixtures/xe/ring_buffer_basic.xml'), 'utf8');
const NAME = 'durability_lens_test01';
const opts = { databaseId: 7, sessionName: NAME };

async function rejection(p: Promise<unknown>): Promise<XeSessionError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof XeSessionError, `expected XeSessionError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('xe lifecycle', () => {
  it('prepares, starts, captures every target in one query before STOP, collects, and drops', async () => {
    const server = new FakeServer({ ringBufferXml: basicXml });
    const summary = await withLogFlushTrace(server.client(), opts, async (s) => {
      await s.start();
      assert.equal(server.sessions.get(NAME)?.running, true);
      await s.stop();
      return s.collect({ commitCount: 2, counterLogFlushes: 2 });
    });
    const kinds = server.sqls().map((q) => q.split(/\s+/).slice(0, 3).join(' '));
    assert.deepEqual(kinds, [
      "SELECT CAST(SERVERPROPERTY('EngineEdition') AS",
      'SELECT permission_name FROM',
      'SELECT p.name AS',
      'SELECT o.name AS',
      'CREATE EVENT SESSION', // the latency companion first, so it sees every flush the main session sees
      'ALTER EVENT SESSION',
      'CREATE EVENT SESSION',
      'ALTER EVENT SESSION',
      'SELECT s.name AS', // before STOP, both sessions in one query: a stopped session has no memory targets
      'ALTER EVENT SESSION',
      'ALTER EVENT SESSION',
      'SELECT CASE WHEN', // both sessions' status, read with the STOPs, then both DROPs in one request
      'SELECT CASE WHEN',
      'DROP EVENT SESSION',
      'DROP EVENT SESSION',
    ]);
    // Round trips: the planning reads, CREATE + START of both sessions, targets + STOPs + statuses, DROPs (db/batch.ts).
    assert.equal(server.requests, 4);
    assert.match(server.sqls()[4]!, /^CREATE EVENT SESSION \[durability_lens_test01_latency\] ON SERVER\nADD EVENT sqlserver\.log_flush_complete \(WHERE \(\[database_id\] = \(7\)\)\)\nADD TARGET package0\.histogram \(SET filtering_event_name = N'sqlserver\.log_flush_complete', source = N'duration', source_type = 0, slots = 16384\)/);
    assert.equal(server.sessions.size, 0);
    assert.equal(summary.flushEvent, 'databases_log_flush');
    assert.equal(summary.flushes, 2);
    assert.equal(summary.flushesPerCommit, 1);
    assert.equal(summary.bytes, 4096);
    assert.deepEqual(summary.latencyMs, { p50: 1.5, p95: 1.5, p99: 1.5, max: 1.5 });
    assert.equal(summary.durationUnit, 'microseconds');
    assert.equal(summary.counterCrossCheck!.agrees, true);
    assert.deepEqual(summary.missingEvents, []);
  });

  it('a partner session (the statement session): started, stopped and dropped in the same requests, dropped even when its START failed', async () => {
    for (const startFails of [false, true]) {
      const server = new FakeServer({ ringBufferXml: basicXml });
      const client = server.client();
      const partner = `${NAME}_statements`;
      const create = { sql: `CREATE EVENT SESSION [${partner}] ON SERVER ADD EVENT sqlserver.sql_statement_completed ADD TARGET package0.ring_buffer;` };
      const start = { sql: `ALTER EVENT SESSION [${partner}] ON SERVER STATE = START;`, dependsOnPrevious: true };
      const stop = { sql: `ALTER EVENT SESSION [${partner}] ON SERVER STATE = STOP;` };
      if (startFails) server.failOn(/\[durability_lens_test01_statements\] ON SERVER STATE = START/, serverError(297, 'The user does not have permission to perform this action.'));
      const session = await LogFlushSession.prepare(client, opts);
      const started = await prefetch(client, [...session.startQueries(), create, start]);
      await session.start(started);
      await started.execute(create.sql);
      await started.execute(start.sql).catch(() => undefined);
      session.partners = [partner];
      assert.equal(server.sessions.get(partner)?.running, !startFails);
      const ended = await prefetch(client, session.stopQueries(startFails ? [] : [stop]));
      await session.stop(ended);
      if (!startFails) await ended.execute(stop.sql);
      const drops = await session.composeDrops();
      assert.equal(await dropSession(drops, partner), true);
      await session.dispose();
      // Planning, the start request, the end request (targets + STOPs + every status), one DROP request.
      assert.equal(server.requests, 4);
      assert.equal(server.sessions.size, 0, [...server.sessions.keys()].join());
    }
  });

  it('skips an event the server lacks and records it as missing', async () => {
    const server = new FakeServer({ events: ['databases_log_flush', 'databases_log_flush_wait', 'log_flush_start'] });
    const s = await LogFlushSession.prepare(server.client(), opts);
    assert.deepEqual(s.plan.events, ['databases_log_flush', 'databases_log_flush_wait', 'log_flush_start']);
    assert.deepEqual(s.plan.missingEvents, ['log_flush_complete']);
    assert.equal(s.plan.durationUnit, null);
    assert.doesNotMatch(s.plan.createSql, /log_flush_complete/);
    const summary = s.summarize({ events: [], duplicates: 0, ringBuffer: null, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, parseError: null, notes: [] });
    assert.ok(summary.notes.includes('Not available on this server, so not traced: log_flush_complete.'));
  });

  it('leaves out an event without a database_id field, and notes missing fields', async () => {
    const server = new FakeServer({
      fields: { databases_log_flush: { database_id: null }, databases_log_flush_wait: {}, log_flush_start: { database_id: null }, log_flush_complete: { database_id: null, duration: 'Duration' } },
      eventSequence: false,
    });
    const s = await LogFlushSession.prepare(server.client(), { ...opts, includeFlushFileBuffers: true });
    assert.deepEqual(s.plan.events, ['databases_log_flush', 'log_flush_start', 'log_flush_complete']);
    assert.deepEqual(s.plan.missingEvents, ['databases_log_flush_wait', 'flush_file_buffers']);
    assert.deepEqual(s.plan.missingFields, [
      'databases_log_flush_wait.database_id',
      'log_flush_start.write_size',
      'log_flush_complete.write_size',
      'flush_file_buffers.database_id',
    ]);
    assert.equal(s.plan.eventSequence, false);
    assert.equal(s.plan.durationUnit, 'assumed-microseconds');
    assert.doesNotMatch(s.plan.createSql, /event_sequence/);
  });

  it('sizes MAX_EVENTS_LIMIT to the run unless the target sets it', async () => {
    assert.equal(ringBufferEventsLimit(10_000, 4), 50_000);
    assert.equal(ringBufferEventsLimit(10, 4), 1000);
    assert.equal(ringBufferEventsLimit(10_000_000, 4), 1_000_000);
    assert.equal(ringBufferEventsLimit(undefined, 4), 50_000);
    const server = new FakeServer();
    const sized = await LogFlushSession.prepare(server.client(), { ...opts, expectedFlushes: 2000 });
    assert.match(sized.plan.createSql, /max_events_limit = 10000, max_memory = 1024\)/);
    const fixed = await LogFlushSession.prepare(server.client(), { ...opts, expectedFlushes: 2000, target: { kind: 'ring_buffer', maxEventsLimit: 777 } });
    assert.match(fixed.plan.createSql, /max_events_limit = 777,/);
  });

  it('fails prepare without changing anything when no log-flush event exists', async () => {
    const server = new FakeServer({ events: [] });
    const err = await rejection(LogFlushSession.prepare(server.client(), opts));
    assert.equal(err.step, 'prepare');
    assert.match(err.message, /None of the log-flush events .* Nothing was changed/);
    assert.ok(!server.sqls().some((q) => q.startsWith('CREATE')));
  });

  it('refuses up front, naming the GRANT, when effective permissions lack ALTER ANY EVENT SESSION (2019)', async () => {
    const server = new FakeServer({ permissions: ['CONNECT SQL', 'VIEW SERVER STATE'] });
    const err = await rejection(LogFlushSession.prepare(server.client(), opts));
    assert.equal(err.grant, 'GRANT ALTER ANY EVENT SESSION TO [app];');
    assert.match(err.message, /\(create, start, drop\)\. Nothing was changed on the server\. Ask an administrator to run: GRANT ALTER ANY EVENT SESSION TO \[app\];$/);
  });

  it('accepts CONTROL SERVER alone, and maps a denied catalog read to the server-state GRANT', async () => {
    const ok = await LogFlushSession.prepare(new FakeServer({ permissions: ['CONTROL SERVER'] }).client(), opts);
    assert.equal(ok.plan.events.length, 4);
    const server = new FakeServer({ majorVersion: 16, permissions: ['CONTROL SERVER'] });
    server.failOn(/sys\.dm_xe_objects/, serverError(300, 'VIEW SERVER PERFORMANCE STATE permission was denied on object \'server\', database \'master\'.'));
    const err = await rejection(LogFlushSession.prepare(server.client(), opts));
    assert.equal(err.step, 'prepare');
    assert.equal(err.grant, 'GRANT VIEW SERVER PERFORMANCE STATE TO [app];');
    assert.match(err.message, /^Could not check the Extended Events prerequisites for durability_lens_test01: permission denied\. Nothing was changed/);
  });

  it('CREATE denied: maps to the 2019 GRANT, and cleanup still checks for the session', async () => {
    const server = new FakeServer();
    server.failOn(/^CREATE EVENT SESSION/, serverError(297, 'The user does not have permission to perform this action.'));
    const err = await rejection(withLogFlushTrace(server.client(), opts, (s) => s.start()));
    assert.equal(err.step, 'create');
    assert.equal(
      err.message,
      `Could not create the Extended Events session ${NAME}: permission denied. No event session was created; nothing on the server changed. ` +
        'Ask an administrator to run: GRANT ALTER ANY EVENT SESSION TO [app];',
    );
    assert.equal(server.sqls().at(-1), 'SELECT CASE WHEN EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @name) THEN 1 ELSE 0 END AS is_defined,\n' +
      '       CASE WHEN EXISTS (SELECT 1 FROM sys.dm_xe_sessions WHERE name = @name) THEN 1 ELSE 0 END AS is_running;');
    assert.equal(server.sessions.size, 0);
  });

  it('START fails: the created session is dropped and the message is the mapped one (2022 grant wording)', async () => {
    const server = new FakeServer({ majorVersion: 16, permissions: ['CREATE ANY EVENT SESSION', 'ALTER ANY EVENT SESSION ENABLE', 'DROP ANY EVENT SESSION', 'VIEW SERVER PERFORMANCE STATE'] });
    server.failOn(/STATE = START;$/, serverError(297, 'The user does not have permission to perform this action.'));
    const err = await rejection(withLogFlushTrace(server.client(), opts, (s) => s.start()));
    assert.equal(err.step, 'start');
    assert.equal(err.grant, 'GRANT ALTER ANY EVENT SESSION ENABLE TO [app];  -- or ALTER ANY EVENT SESSION');
    assert.match(err.message, /The session was created but not started; Durability Lens drops it again\./);
    assert.ok(server.sqls().includes(`DROP EVENT SESSION [${NAME}] ON SERVER;`));
    assert.equal(server.sqls().at(-1), `DROP EVENT SESSION [${NAME}_latency] ON SERVER;`);
    assert.equal(server.sessions.size, 0);
  });

  it('read fails: the running session is stopped and dropped, and the server error is in the message', async () => {
    const server = new FakeServer();
    server.failOn(/t\.target_data/, serverError(8115, 'Arithmetic overflow error.'));
    const err = await rejection(
      withLogFlushTrace(server.client(), opts, async (s) => {
        await s.start();
        await s.read();
      }),
    );
    assert.equal(err.step, 'read');
    assert.equal(
      err.message,
      `Could not read the events of the Extended Events session ${NAME} (server error 8115: Arithmetic overflow error.). The events could not be read; the session is dropped as usual.`,
    );
    assert.deepEqual(server.sqls().filter((q) => /^(ALTER|DROP)/.test(q)).slice(-4), [
      `ALTER EVENT SESSION [${NAME}] ON SERVER STATE = STOP;`,
      `DROP EVENT SESSION [${NAME}] ON SERVER;`,
      `ALTER EVENT SESSION [${NAME}_latency] ON SERVER STATE = STOP;`,
      `DROP EVENT SESSION [${NAME}_latency] ON SERVER;`,
    ]);
    assert.equal(server.sessions.size, 0);
  });

  it('drops on a fresh connection when the first one died, keeping the body error', async () => {
    const server = new FakeServer();
    const first = server.client();
    const bodyError = new Error('workload connection lost');
    await assert.rejects(
      withLogFlushTrace(
        first,
        opts,
        async (s) => {
          await s.start();
          first.dead = true;
          throw bodyError;
        },
        { reconnect: async () => server.client() },
      ),
      (e) => e === bodyError,
    );
    assert.equal(server.sessions.size, 0);
  });

  it('reports a failed drop aside when the body failed, and throws it when the body succeeded', async () => {
    const server = new FakeServer();
    server.failOn(/^DROP EVENT SESSION/, serverError(297, 'The user does not have permission to perform this action.'));
    const seen: XeSessionError[] = [];
    await assert.rejects(
      withLogFlushTrace(server.client(), opts, async (s) => {
        await s.start();
        throw new Error('boom');
      }, { onCleanupError: (e) => seen.push(e) }),
      /boom/,
    );
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.step, 'drop');
    assert.match(seen[0]!.message, /permission denied\. The session may still exist on the server\. Ask an administrator to drop it, or run: GRANT ALTER ANY EVENT SESSION TO \[app\];/);

    server.sessions.clear();
    const err = await rejection(withLogFlushTrace(server.client(), { ...opts, sessionName: 'durability_lens_test02' }, (s) => s.start()));
    assert.equal(err.step, 'drop');
  });

  it('uses ON DATABASE and the DATABASE EVENT SESSION grants on Azure SQL Database (EngineEdition 5)', async () => {
    const server = new FakeServer({ engineEdition: 5, permissions: ['CREATE ANY DATABASE EVENT SESSION', 'ALTER ANY DATABASE EVENT SESSION'] });
    server.failOn(/^CREATE EVENT SESSION/, serverError(262, 'CREATE ANY DATABASE EVENT SESSION permission denied in database.'));
    const err = await rejection(withLogFlushTrace(server.client(), opts, (s) => s.start()));
    assert.match(server.calls.find((c) => c.sql.startsWith('CREATE'))!.sql, /ON DATABASE\n/);
    assert.equal(err.grant, 'GRANT CREATE ANY DATABASE EVENT SESSION TO [app_user];');
    assert.ok(server.sqls().some((q) => q.includes('sys.database_event_sessions WHERE name = @name')));
  });
});

describe('xe session cleanup', () => {
  it('dropSession tolerates a session that does not exist', async () => {
    const server = new FakeServer();
    assert.equal(await dropSession(server.client(), 'durability_lens_gone'), false);
    assert.ok(!server.sqls().some((q) => q.startsWith('DROP')));
  });

  it('treats 15151 as success only when the session is really gone', async () => {
    const server = new FakeServer();
    server.sessions.set('durability_lens_x', { running: false });
    server.failOn(/^DROP EVENT SESSION/, serverError(15151, "Cannot drop the event session 'durability_lens_x', because it does not exist or you do not have permission."));
    const err = await rejection(dropSession(server.client(), 'durability_lens_x'));
    assert.equal(err.step, 'drop');
    assert.equal(err.grant, 'GRANT ALTER ANY EVENT SESSION TO [<login>];');
  });

  it('stops a running session before dropping it', async () => {
    const server = new FakeServer();
    server.sessions.set('durability_lens_r', { running: true });
    assert.equal(await dropSession(server.client(), 'durability_lens_r'), true);
    assert.deepEqual(server.sqls().slice(1), ['ALTER EVENT SESSION [durability_lens_r] ON SERVER STATE = STOP;', 'DROP EVENT SESSION [durability_lens_r] ON SERVER;']);
  });

  it('lists orphans except live sessions, and drops them one by one', async () => {
    const server = new FakeServer();
    for (const n of ['durability_lens_a', 'durability_lens_a_latency', 'durability_lens_b', 'durability_lens_live', 'durability_lens_live_latency']) server.sessions.set(n, { running: n.endsWith('b') });
    // A live session's latency companion is live too; an orphan's companion is an orphan.
    const orphans = await findOrphanSessions(server.client(), ['durability_lens_live']);
    assert.deepEqual(orphans, ['durability_lens_a', 'durability_lens_a_latency', 'durability_lens_b']);
    server.sessions.delete('durability_lens_a_latency');
    orphans.splice(1, 1);
    const results = await dropOrphanSessions(server.client(), orphans);
    assert.deepEqual(results, [
      { name: 'durability_lens_a', dropped: true, error: null },
      { name: 'durability_lens_b', dropped: true, error: null },
    ]);
    assert.deepEqual([...server.sessions.keys()], ['durability_lens_live', 'durability_lens_live_latency']);
  });
});
