import assert from 'node:assert/strict';
import { quoteString } from '../../../src/db/quote';
import {
  createSessionSql,
  dropSessionSql,
  eventFileReadPattern,
  eventFileStorageOf,
  newSessionName,
  orphanSessionsSql,
  quoteSysname,
  readTargetsSql,
  sessionEventFilePath,
  statementSessionName,
  latencySessionName,
  statementCountSessionName,
  type EventFileStorage,
  sessionStateSql,
  sessionStatusSql,
  type SessionDefinition,
} from '../../../src/xe/sessionSql';

const ring: SessionDefinition = {
  name: 'durability_lens_00ff',
  scope: 'server',
  databaseId: 7,
  events: ['databases_log_flush', 'log_flush_complete'],
  eventSequence: true,
  target: { kind: 'ring_buffer', maxEventsLimit: 20000, maxMemoryKb: 1024 },
  eventCounter: false,
  histogram: null,
};

describe('xe session SQL', () => {
  it('creates a server ring_buffer session with the database predicate, event_sequence and the fixed options', () => {
    assert.equal(
      createSessionSql(ring),
      [
        'CREATE EVENT SESSION [durability_lens_00ff] ON SERVER',
        'ADD EVENT sqlserver.databases_log_flush (ACTION (package0.event_sequence) WHERE ([database_id] = (7))),',
        'ADD EVENT sqlserver.log_flush_complete (ACTION (package0.event_sequence) WHERE ([database_id] = (7)))',
        'ADD TARGET package0.ring_buffer (SET max_events_limit = 20000, max_memory = 1024)',
        'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
      ].join('\n'),
    );
  });

  it('adds event_counter and a histogram on the size field before the sample target (targets page options)', () => {
    const sql = createSessionSql({ ...ring, eventCounter: true, histogram: { event: 'log_flush_complete', field: 'write_size', slots: 1024 } });
    assert.deepEqual(sql.split('\n').slice(3, 6), [
      'ADD TARGET package0.event_counter,',
      "ADD TARGET package0.histogram (SET filtering_event_name = N'sqlserver.log_flush_complete', source = N'write_size', source_type = 0, slots = 1024),",
      'ADD TARGET package0.ring_buffer (SET max_events_limit = 20000, max_memory = 1024)',
    ]);
    assert.throws(() => createSessionSql({ ...ring, histogram: { event: 'log_flush_start', field: 'write_size', slots: 256 } }), /not in the session/);
    assert.throws(() => createSessionSql({ ...ring, histogram: { event: 'log_flush_complete', field: "x'; DROP", slots: 256 } }), /plain field name/);
    assert.throws(() => createSessionSql({ ...ring, histogram: { event: 'log_flush_complete', field: 'write_size', slots: 0 } }), /slots/);
  });

  it('creates an event_file session, doubling quotes in the path and quoting a hostile name', () => {
    const sql = createSessionSql({
      ...ring,
      name: "x] ON SERVER; DROP LOGIN sa; --'",
      events: ['log_flush_start'],
      eventSequence: false,
      target: { kind: 'event_file', path: "D:\\xe\\o'brien'); DROP TABLE t;--.xel", maxFileSizeMb: 64, maxRolloverFiles: 4 },
    });
    assert.equal(
      sql,
      [
        "CREATE EVENT SESSION [x]] ON SERVER; DROP LOGIN sa; --'] ON SERVER",
        'ADD EVENT sqlserver.log_flush_start (WHERE ([database_id] = (7)))',
        "ADD TARGET package0.event_file (SET filename = N'D:\\xe\\o''brien''); DROP TABLE t;--.xel', max_file_size = 64, max_rollover_files = 4)",
        'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
      ].join('\n'),
    );
  });

  it('uses ON DATABASE for the database scope and requires an https path there', () => {
    const sql = createSessionSql({ ...ring, scope: 'database', events: ['databases_log_flush'], eventSequence: false });
    assert.equal(sql.split('\n')[0], 'CREATE EVENT SESSION [durability_lens_00ff] ON DATABASE');
    assert.throws(
      () => createSessionSql({ ...ring, scope: 'database', target: { kind: 'event_file', path: 'C:\\x.xel', maxFileSizeMb: 1, maxRolloverFiles: 1 } }),
      /https blob URL/,
    );
  });

  it('rejects values that cannot be safe literals', () => {
    assert.throws(() => createSessionSql({ ...ring, databaseId: 7.5 }), /database_id must be an integer/);
    assert.throws(() => createSessionSql({ ...ring, databaseId: Number.NaN }), /database_id/);
    assert.throws(() => createSessionSql({ ...ring, target: { kind: 'ring_buffer', maxEventsLimit: 10, maxMemoryKb: 4096 } }), /MAX_MEMORY/);
    assert.throws(() => createSessionSql({ ...ring, events: [] }), /at least one event/);
    assert.throws(() => createSessionSql({ ...ring, events: ['x; DROP' as never] }), /unknown event/);
    const file = (path: string) => () => createSessionSql({ ...ring, target: { kind: 'event_file', path, maxFileSizeMb: 1, maxRolloverFiles: 1 } });
    assert.throws(file('C:\\x.txt'), /\.xel/);
    assert.throws(file('C:\\a\nb.xel'), /control characters/);
    assert.throws(file('C:\\' + 'a'.repeat(260) + '.xel'), /1\.\.260/);
  });

  it('quotes identifiers and strings like QUOTENAME and doubled quotes', () => {
    assert.equal(quoteSysname('a]b]]'), '[a]]b]]]]]');
    assert.equal(quoteString("it's"), "N'it''s'");
    assert.throws(() => quoteSysname(''), RangeError);
    assert.throws(() => quoteSysname('x'.repeat(129)), RangeError);
  });

  it('generates durability_lens_ names from the random source', () => {
    assert.equal(newSessionName(() => new Uint8Array([0, 1, 2, 0xab, 0xcd, 0xef, 0x10, 0xff])), 'durability_lens_000102abcdef10ff');
    const a = newSessionName();
    assert.match(a, /^durability_lens_[0-9a-f]{16}$/);
    assert.notEqual(a, newSessionName());
  });

  it('starts, stops and drops with the quoted name and scope', () => {
    assert.equal(sessionStateSql('a]b', 'server', 'START'), 'ALTER EVENT SESSION [a]]b] ON SERVER STATE = START;');
    assert.equal(sessionStateSql('s', 'database', 'STOP'), 'ALTER EVENT SESSION [s] ON DATABASE STATE = STOP;');
    assert.equal(dropSessionSql('s', 'server'), 'DROP EVENT SESSION [s] ON SERVER;');
  });

  it('finds orphans with the underscore escaped in LIKE', () => {
    assert.equal(orphanSessionsSql('server'), "SELECT name FROM sys.server_event_sessions WHERE name LIKE N'durability[_]lens[_]%' ORDER BY name;");
    assert.match(orphanSessionsSql('database'), /FROM sys\.database_event_sessions /);
  });

  it('reads every target of the session in one query, through the scope-specific views, by parameter', () => {
    assert.equal(
      readTargetsSql('server'),
      [
        'SELECT s.name AS session_name, t.target_name, t.target_data',
        'FROM sys.dm_xe_session_targets AS t',
        'JOIN sys.dm_xe_sessions AS s ON t.event_session_address = s.address',
        'WHERE s.name IN (@name, @companion);',
      ].join('\n'),
    );
    assert.match(readTargetsSql('database'), /sys\.dm_xe_database_session_targets AS t\nJOIN sys\.dm_xe_database_sessions AS s/);
    assert.match(sessionStatusSql('server'), /sys\.server_event_sessions WHERE name = @name[\s\S]*sys\.dm_xe_sessions WHERE name = @name/);
  });

  it('gives each session its own event_file name and a read pattern that matches only that session', () => {
    const path = sessionEventFilePath('D:\\xe\\dl.xel', 'durability_lens_ab', 'local');
    assert.equal(path, 'D:\\xe\\dl_durability_lens_ab-.xel');
    assert.equal(eventFileReadPattern(path, 'local'), 'D:\\xe\\dl_durability_lens_ab-*.xel');
    const blob = sessionEventFilePath('https://a.blob.core.windows.net/c/dl.xel', 'durability_lens_ab', 'blob');
    assert.equal(eventFileReadPattern(blob, 'blob'), 'https://a.blob.core.windows.net/c/dl_durability_lens_ab-');
    // The session name counts against the 260-character limit of the read function's path.
    assert.throws(() => sessionEventFilePath('C:\\' + 'a'.repeat(240) + '.xel', 'durability_lens_0011223344556677', 'local'), /1\.\.260/);
  });

  it('keys the event_file rules on the platform: Managed Instance (ON SERVER) needs a blob URL and reads without a wildcard', () => {
    // "Extended Events in Azure SQL": a local path or a wildcard in sys.fn_xe_file_target_read_file fails with 40538.
    assert.equal(eventFileStorageOf(8, 'server'), 'blob', 'Managed Instance');
    assert.equal(eventFileStorageOf(5, 'database'), 'blob', 'Azure SQL Database');
    assert.equal(eventFileStorageOf(3, 'server'), 'local', 'SQL Server Enterprise');
    assert.equal(eventFileStorageOf(null, 'server'), 'local');
    assert.throws(() => sessionEventFilePath('/var/opt/mssql/log/dl.xel', 'durability_lens_ab', eventFileStorageOf(8, 'server')), /https blob URL/);
    const mi = sessionEventFilePath('https://a.blob.core.windows.net/c/dl.xel', 'durability_lens_ab', eventFileStorageOf(8, 'server'));
    assert.equal(eventFileReadPattern(mi, eventFileStorageOf(8, 'server')), 'https://a.blob.core.windows.net/c/dl_durability_lens_ab-');
  });

  it('D5: the log-flush session\'s read pattern never matches its statement (or any other) session\'s files', () => {
    const main = 'durability_lens_0011223344556677';
    const files = (session: string, storage: EventFileStorage, user: string) => {
      const path = sessionEventFilePath(user, session, storage);
      // What the server writes: the stem, then "a date-time based long integer" (targets page: _0_<number>).
      return { path, written: path.replace(/\.xel$/i, '_0_131150744126230000.xel') };
    };
    // fn_xe_file_target_read_file's wildcard as a regular expression (local), a plain prefix (blob storage).
    const matches = (pattern: string, file: string, storage: EventFileStorage) =>
      storage === 'local' ? new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$').test(file) : file.startsWith(pattern);
    for (const [storage, user] of [['local', 'D:\\xe\\dl.xel'], ['blob', 'https://a.blob.core.windows.net/c/dl.xel']] as const) {
      const sessions = [main, statementSessionName(main), latencySessionName(main), statementCountSessionName(statementSessionName(main))];
      for (const reader of sessions) {
        const pattern = eventFileReadPattern(files(reader, storage, user).path, storage);
        for (const writer of sessions) assert.equal(matches(pattern, files(writer, storage, user).written, storage), reader === writer, `${storage}: ${reader} reading ${writer}`);
      }
    }
  });
});
