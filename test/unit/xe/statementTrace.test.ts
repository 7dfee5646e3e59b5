// The statement-attribution session's SQL and plan (issue 16): predicates on the workload spid, the WRITELOG key as
// the server's map gives it (never a constant), wait_info with its End opcode when wait_completed is missing, and
// "not measured" notes when the map has no WRITELOG.
import { strict as assert } from 'node:assert';
import type { QueryParameter, Row, SqlClient } from '../../../src/db/types';
import { planStatementTrace } from '../../../src/xe/statementTrace';
import { readStatementHistograms } from '../../../src/xe/statementHistograms';
import { createStatementSessionSql, MAP_KEYS_SQL, STATEMENT_CATALOG_SQL } from '../../../src/xe/statementTraceSql';
import { findOrphanSessions } from '../../../src/xe/cleanup';
import { owningSessionName, statementSessionName } from '../../../src/xe/sessionSql';
import { FakeServer } from './fakeServer';

function fakeClient(events: string[], maps: Row[]): SqlClient & { sqls: string[] } {
  const sqls: string[] = [];
  return {
    sqls,
    async query(sql: string, _p?: readonly QueryParameter[]): Promise<Row[]> {
      sqls.push(sql);
      if (sql === STATEMENT_CATALOG_SQL) {
        return events.map((e) => ({ package_name: e.startsWith('wait') ? 'sqlos' : 'sqlserver', event_name: e, duration_description: e === 'wait_info' ? 'Wait duration in milliseconds' : 'Duration in microseconds' }));
      }
      if (sql === MAP_KEYS_SQL) return maps;
      throw new Error(`unexpected ${sql}`);
    },
    async execute(sql: string): Promise<void> {
      sqls.push(sql);
    },
  };
}
const platform = { scope: 'server' as const, majorVersion: 16, principal: 'lens' };

describe('xe: statement-attribution session', () => {
  it('with the query_hash action: counts WRITELOG waits per hash here and executions per hash in a companion session', async () => {
    const client = fakeClient(['sql_statement_completed', 'sp_statement_completed', 'wait_completed', 'query_hash'], [{ name: 'wait_types', map_key: 493, map_value: 'WRITELOG' }]);
    const plan = await planStatementTrace(client, { spid: 57, platform, sessionName: 'durability_lens_00aa' });
    assert.match(plan.createSql, /ADD EVENT sqlserver\.sql_statement_completed \(ACTION \(sqlserver\.query_hash\) WHERE/);
    assert.match(plan.createSql, /ADD EVENT sqlos\.wait_completed \(ACTION \(sqlserver\.query_hash\) WHERE/);
    assert.match(plan.createSql, /ADD TARGET package0\.histogram \(SET filtering_event_name = N'sqlos\.wait_completed', source_type = 1, source = N'sqlserver\.query_hash', slots = 16384\)/);
    assert.equal(plan.countSession?.name, 'durability_lens_00aa_counts');
    assert.equal(owningSessionName(plan.countSession!.name), 'durability_lens_00aa');
    const c = plan.countSession!.createSql;
    assert.match(c, /^CREATE EVENT SESSION \[durability_lens_00aa_counts\] ON SERVER/);
    assert.match(c, /ADD EVENT sqlserver\.sp_statement_completed \(ACTION \(sqlserver\.query_hash\) WHERE \(\[sqlserver\]\.\[session_id\] = \(57\)\)\)/);
    assert.doesNotMatch(c, /wait_completed|filtering_event_name/, 'every statement event of the companion is bucketed');
    assert.match(c, /ADD TARGET package0\.histogram \(SET source_type = 1, source = N'sqlserver\.query_hash'/);
  });

  it('reads both hash histograms as text (uint64 hashes stay exact) and says how many events a full histogram did not place', () => {
    const big = '18446744073709551557';
    const waits = `<HistogramTarget truncated="0" buckets="2"><Slot count="7"><value>${big}</value></Slot><Slot count="1"><value>${BigInt(big) - 1n}</value></Slot></HistogramTarget>`;
    const executions = `<HistogramTarget truncated="0" buckets="1"><Slot count="9"><value>${big}</value></Slot></HistogramTarget>`;
    const h = readStatementHistograms({ waits, executions }, 'wait_completed', ['sql_statement_completed', 'sp_statement_completed'], new Map([['wait_completed', 10], ['sql_statement_completed', 9], ['sp_statement_completed', 3]]));
    assert.equal(h.waitsByHash!.get(big), 7);
    assert.equal(h.waitsByHash!.get((BigInt(big) - 1n).toString()), 1, 'neighbouring hashes are not merged');
    assert.equal(h.executionsByHash!.get(big), 9);
    assert.equal(h.waitEvents, 10);
    assert.equal(h.statementEvents, 12);
    assert.ok(h.notes.some((n) => /placed 8 of 10 waits/.test(n)), h.notes.join(' | '));
    assert.ok(h.notes.some((n) => /placed 9 of 12 statement completions/.test(n)), h.notes.join(' | '));
    const broken = readStatementHistograms({ waits: '<nope', executions: null }, 'wait_completed', ['sql_statement_completed'], null);
    assert.equal(broken.waitsByHash, null);
    assert.equal(broken.executionsByHash, null);
    assert.ok(broken.notes.some((n) => /WRITELOG histogram could not be read/.test(n)));
  });

  it('without the query_hash action keeps the sample only and says so', async () => {
    const client = fakeClient(['sql_statement_completed', 'wait_completed'], [{ name: 'wait_types', map_key: 493, map_value: 'WRITELOG' }]);
    const plan = await planStatementTrace(client, { spid: 57, platform, sessionName: 'durability_lens_00aa' });
    assert.equal(plan.countSession, null);
    assert.doesNotMatch(plan.createSql, /query_hash|histogram/);
    assert.ok(plan.notes.some((n) => /query_hash action is not available/.test(n)));
  });

  it('limits every event to the workload spid and WRITELOG by the key the server\'s map gave', async () => {
    const client = fakeClient(['sql_statement_completed', 'sp_statement_completed', 'wait_completed', 'wait_info'], [{ name: 'wait_types', map_key: 493, map_value: 'WRITELOG' }, { name: 'event_opcode', map_key: 1, map_value: 'End' }]);
    const plan = await planStatementTrace(client, { spid: 57, platform, sessionName: 'durability_lens_00aa' });
    assert.equal(plan.wait?.event, 'wait_completed');
    assert.equal(plan.wait?.writelogKey, 493);
    assert.equal(plan.statementDurationUnit, 'microseconds');
    assert.match(plan.createSql, /^CREATE EVENT SESSION \[durability_lens_00aa\] ON SERVER/);
    assert.match(plan.createSql, /ADD EVENT sqlserver\.sql_statement_completed \(WHERE \(\[sqlserver\]\.\[session_id\] = \(57\)\)\)/);
    assert.match(plan.createSql, /ADD EVENT sqlserver\.sp_statement_completed/);
    assert.match(plan.createSql, /ADD EVENT sqlos\.wait_completed \(WHERE \(\[sqlserver\]\.\[session_id\] = \(57\) AND \[wait_type\] = \(493\)\)\)/);
    assert.doesNotMatch(plan.createSql, /wait_info/);
    assert.match(plan.createSql, /ADD TARGET package0\.event_counter/);
  });

  it('falls back to wait_info, keeping only its End opcode, with the unit its description states', async () => {
    const client = fakeClient(['sql_statement_completed', 'wait_info'], [{ name: 'wait_types', map_key: 181, map_value: 'WRITELOG' }, { name: 'event_opcode', map_key: 1, map_value: 'End' }]);
    const plan = await planStatementTrace(client, { spid: 60, platform });
    assert.equal(plan.wait?.event, 'wait_info');
    assert.equal(plan.wait?.durationUnit, 'milliseconds');
    assert.match(plan.createSql, /ADD EVENT sqlos\.wait_info \(WHERE \(\[sqlserver\]\.\[session_id\] = \(60\) AND \[wait_type\] = \(181\) AND \[opcode\] = \(1\)\)\)/);
    assert.doesNotMatch(plan.createSql, /sp_statement_completed/);
  });

  it('without a WRITELOG map entry traces statements only and says WRITELOG is not measured per statement', async () => {
    const plan = await planStatementTrace(fakeClient(['sql_statement_completed', 'wait_completed'], []), { spid: 60, platform });
    assert.equal(plan.wait, null);
    assert.match(plan.notes.join(' '), /no WRITELOG entry .* not measured per statement/);
    assert.doesNotMatch(plan.createSql, /sqlos/);
  });

  it('with an event_file target writes the session\'s own file (every event) and reads it back by its pattern', async () => {
    const client = fakeClient(['sql_statement_completed', 'wait_completed'], [{ name: 'wait_types', map_key: 7, map_value: 'WRITELOG' }]);
    const plan = await planStatementTrace(client, { spid: 61, platform, sessionName: 'durability_lens_ab', target: { kind: 'event_file', path: '/var/opt/mssql/log/lens.xel' } });
    assert.equal(plan.eventFile?.path, '/var/opt/mssql/log/lens_durability_lens_ab-.xel');
    assert.equal(plan.eventFile?.pattern, '/var/opt/mssql/log/lens_durability_lens_ab-*.xel');
    assert.match(plan.createSql, /ADD TARGET package0\.event_file \(SET filename = N'\/var\/opt\/mssql\/log\/lens_durability_lens_ab-\.xel', max_file_size = 100, max_rollover_files = 10\)/);
    assert.doesNotMatch(plan.createSql, /ring_buffer/);
    await assert.rejects(planStatementTrace(client, { spid: 61, platform, target: { kind: 'event_file', path: 'no-extension' } }), /Invalid trace option: .*\.xel/);
  });

  it('is named after the run\'s log-flush session: live with it, an orphan with an orphan, owned by it in the ledger', async () => {
    assert.equal(statementSessionName('durability_lens_live'), 'durability_lens_live_statements');
    assert.equal(owningSessionName('durability_lens_live_statements'), 'durability_lens_live');
    assert.equal(owningSessionName('durability_lens_live_latency'), 'durability_lens_live');
    const server = new FakeServer();
    for (const n of ['durability_lens_live', 'durability_lens_live_statements', 'durability_lens_a', 'durability_lens_a_statements']) server.sessions.set(n, { running: true });
    assert.deepEqual(await findOrphanSessions(server.client(), ['durability_lens_live']), ['durability_lens_a', 'durability_lens_a_statements']);
  });

  it('refuses when sql_statement_completed does not exist, and validates the spid literal', async () => {
    await assert.rejects(planStatementTrace(fakeClient(['wait_completed'], []), { spid: 60, platform }), /sql_statement_completed is not available/);
    assert.throws(() => createStatementSessionSql({ name: 'x', scope: 'server', spid: 0, statementEvents: ['sql_statement_completed'], wait: null, maxEventsLimit: 10 }), RangeError);
  });
});
