// Issue 33 (found by the attack33 review): `trace read` turned WRITELOG figures it had no source for into measured zeros.
// Product standard: "Not measured" is never zero — JSON, CLI text, exports.
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../../src/xe/offlineTrace';

const statement = (seq: number, session = 55) =>
  `<event name="sql_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.00${seq}Z">` +
  '<data name="line_number"><value>1</value></data><data name="offset"><value>0</value></data>' +
  '<data name="offset_end"><value>-1</value></data><data name="statement"><value><![CDATA[INSERT t VALUES (1)]]></value></data>' +
  `<action name="session_id" package="sqlserver"><value>${session}</value></action>` +
  '<action name="query_hash" package="sqlserver"><value>4242</value></action>' +
  `<action name="event_sequence" package="package0"><value>${seq}</value></action></event>\n`;

describe('trace read: WRITELOG not measured is never 0', () => {
  it('files with no wait event at all: WRITELOG per statement is not measured, not "0 waits, 0 ms"', () => {
    // A DBA's session captured sql_statement_completed only (no sqlos.wait_info / wait_completed).
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: statement(1) + statement(2) }]);
    assert.equal(t.statements.length, 1);
    const s = t.statements[0]!;
    // Observed: writelogWaits 0 and writelogMs 0, no note. Nothing in the files could have measured WRITELOG.
    assert.equal(s.writelogMs, null, `writelogMs should be null (not measured), got ${s.writelogMs}`);
    assert.ok(
      t.notes.some((n) => /wait/i.test(n) && /not measured/i.test(n)),
      `a note should say WRITELOG was not measured (no wait events); notes: ${JSON.stringify(t.notes)}`,
    );
  });

  it('a WRITELOG wait_info without a duration field: its ms are not measured, not 0', () => {
    // duration absent (e.g. the session was defined with the field excluded, or the row was trimmed)
    const wait =
      '<event name="wait_info" package="sqlos" timestamp="2024-01-01T00:00:00.000Z">' +
      '<data name="wait_type"><value>181</value><text><![CDATA[WRITELOG]]></text></data>' +
      '<data name="opcode"><value>1</value><text><![CDATA[End]]></text></data>' +
      '<action name="session_id" package="sqlserver"><value>55</value></action>' +
      '<action name="event_sequence" package="package0"><value>9</value></action></event>\n';
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: wait + statement(1) }]);
    const s = t.statements[0]!;
    assert.equal(s.writelogWaits, 1);
    // Observed: writelogMs 0 (src/xe/offlineTrace.ts: `p.ms += number(e.data.duration) ?? 0`).
    assert.equal(s.writelogMs, null, `writelogMs should be null (no duration to read), got ${s.writelogMs}`);
  });
});

describe('trace read: WRITELOG figures measured where the files measured them', () => {
  const wait = (seq: number, duration: number | null, type = 'WRITELOG') =>
    `<event name="wait_info" package="sqlos" timestamp="2024-01-01T00:00:00.00${seq}Z">` +
    `<data name="wait_type"><value>181</value><text><![CDATA[${type}]]></text></data>` +
    '<data name="opcode"><value>1</value><text><![CDATA[End]]></text></data>' +
    (duration === null ? '' : `<data name="duration"><value>${duration}</value></data>`) +
    '<action name="session_id" package="sqlserver"><value>55</value></action>' +
    `<action name="event_sequence" package="package0"><value>${seq}</value></action></event>\n`;

  it('wait_info with durations: waits and ms are measured (ms as written: wait_info is in milliseconds)', () => {
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: wait(5, 3) + wait(6, 4) + statement(1) }]);
    assert.deepEqual([t.statements[0]!.writelogWaits, t.statements[0]!.writelogMs], [2, 7]);
    assert.ok(!t.notes.some((n) => /not measured/.test(n)), JSON.stringify(t.notes));
  });

  it('one wait of a statement without a duration: its waits counted, its ms not measured (not the other wait\'s 3 ms)', () => {
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: wait(5, 3) + wait(6, null) + statement(1) }]);
    assert.deepEqual([t.statements[0]!.writelogWaits, t.statements[0]!.writelogMs], [2, null]);
    assert.ok(t.notes.includes('1 WRITELOG wait_info events carry no duration field: the WRITELOG ms of the statements they belong to are not measured (null; their waits are counted).'), JSON.stringify(t.notes));
  });

  it('wait events of other types only: WRITELOG 0 is measured, with a note that it holds only if the predicate let WRITELOG through', () => {
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: wait(5, 3, 'PAGEIOLATCH_SH') + statement(1) }]);
    assert.deepEqual([t.statements[0]!.writelogWaits, t.statements[0]!.writelogMs], [0, 0]);
    assert.ok(t.notes.some((n) => /1 wait events and no WRITELOG one/.test(n)), JSON.stringify(t.notes));
  });
});
