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
