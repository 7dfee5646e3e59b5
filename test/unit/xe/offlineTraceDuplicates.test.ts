// Issue 33 (found by the attack33 review): `trace read` dropped real events as "duplicates" because package0.event_sequence is a per-session
// counter (it starts again at 1 for each session start — the real xelogstash errorlog_written row carries 1), so rows
// exported from two sessions, or across a session restart, with fn_xe_file_target_read_file(N'…*.xel') repeat numbers.
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../../src/xe/offlineTrace';

const row = (ts: string, session: number, hash: string, text: string, seq: number) =>
  `<event name="sql_statement_completed" package="sqlserver" timestamp="${ts}">` +
  '<data name="line_number"><value>1</value></data><data name="offset"><value>0</value></data>' +
  `<data name="offset_end"><value>-1</value></data><data name="statement"><value><![CDATA[${text}]]></value></data>` +
  `<action name="session_id" package="sqlserver"><value>${session}</value></action>` +
  `<action name="query_hash" package="sqlserver"><value>${hash}</value></action>` +
  `<action name="event_sequence" package="package0"><value>${seq}</value></action></event>\n`;

describe('trace read: duplicates are the same event, never the same event_sequence of another session', () => {
  it('two different events that share event_sequence 1 (session restart) are both counted', () => {
    const text =
      row('2024-01-01T00:00:00.001Z', 55, '111', 'INSERT a VALUES (1)', 1) +
      // next day, after ALTER EVENT SESSION … STATE = STOP / START: the counter started over
      row('2024-01-02T09:00:00.001Z', 71, '222', 'DELETE b', 1);
    const t = analyzeTraceFiles([{ name: 'rows.xml', text }]);
    // Observed: eventCount 1, "1 duplicate events (same event_sequence) skipped", DELETE b missing.
    assert.equal(t.eventCount, 2, `notes: ${JSON.stringify(t.notes)}`);
    assert.deepEqual(t.statements.map((s) => s.statement).sort(), ['DELETE b', 'INSERT a VALUES (1)']);
  });

  it('the same rows saved in two overlapping exports are not counted twice (they are within one file)', () => {
    const a = row('2024-01-01T00:00:00.001Z', 55, '111', 'INSERT a VALUES (1)', 7);
    const b = row('2024-01-01T00:00:00.002Z', 55, '111', 'INSERT a VALUES (1)', 8);
    const oneFile = analyzeTraceFiles([{ name: 'all.xml', text: a + b + b }]);
    assert.equal(oneFile.statements[0]!.executions, 2, 'within one file the repeated row is skipped');
    // 10:00–11:00 and 10:30–11:30 exports share row b. Observed: 3 executions, no note.
    const twoFiles = analyzeTraceFiles([{ name: 'first.xml', text: a + b }, { name: 'second.xml', text: b }]);
    assert.equal(twoFiles.statements[0]!.executions, 2, `notes: ${JSON.stringify(twoFiles.notes)}`);
  });
});

describe('trace read: what counts as the same event', () => {
  it('the repeat in a second file is noted against that file; a row without event_sequence is never a duplicate', () => {
    const b = row('2024-01-01T00:00:00.002Z', 55, '111', 'INSERT a VALUES (1)', 8);
    const t = analyzeTraceFiles([{ name: 'first.xml', text: b }, { name: 'second.xml', text: b }]);
    assert.deepEqual(t.files.map((f) => [f.file, f.events, f.duplicates]), [['first.xml', 1, 0], ['second.xml', 0, 1]]);
    assert.ok(t.notes.some((n) => n.startsWith('second.xml: 1 event(s) already read (earlier in this file or in an earlier file: the same event_sequence, timestamp, event and session_id) skipped')), JSON.stringify(t.notes));
    const noSequence = b.replace(/<action name="event_sequence"[^]*?<\/action>/, '');
    const twice = analyzeTraceFiles([{ name: 'a.xml', text: noSequence + noSequence }]);
    assert.equal(twice.statements[0]!.executions, 2, 'nothing identifies the event: both are counted');
  });

  it('the same sequence and time in another session (session_id) or for another event is another event', () => {
    const ts = '2024-01-01T00:00:00.001Z';
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: row(ts, 55, '111', 'INSERT a VALUES (1)', 3) + row(ts, 56, '111', 'INSERT a VALUES (1)', 3) }]);
    assert.equal(t.eventCount, 2);
    assert.equal(t.statements[0]!.executions, 2);
  });
});
