// `trace read` over hand-made or tampered files (found by the last session's outside attack): log-flush sizes and
// durations below zero, an <event> inside another <event>, and two events whose name and session_id were chosen to
// collide under a 32-bit hash.
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../../src/xe/offlineTrace';
import { TraceFileError } from '../../../src/xe/traceFile';

const flush = (seq: number, size: string, duration = '120') =>
  `<event name="log_flush_complete" package="sqlserver" timestamp="2024-01-01T00:00:00.00${seq}Z">` +
  `<data name="database_id"><value>7</value></data><data name="duration"><value>${duration}</value></data>` +
  `<data name="write_size"><value>${size}</value></data>` +
  `<action name="event_sequence" package="package0"><value>${seq}</value></action></event>\n`;

function refusal(files: Array<{ name: string; text: string }>): TraceFileError {
  try {
    analyzeTraceFiles(files);
  } catch (err) {
    if (err instanceof TraceFileError) return err;
    throw err;
  }
  assert.fail('the files were analysed instead of refused');
}

describe('trace read: log-flush values that cannot be', () => {
  it('a negative write_size refuses the file with its name, the event and the value; nothing is summed', () => {
    // Observed on main before this: "tampered.xml: tampered.xml is malformed (tampered.xml: event 2 …); kept the 2 events
    // read before it" — the refusal thrown inside the reader's callback, turned into a parse note.
    const err = refusal([{ name: 'good.xml', text: flush(1, '4096') }, { name: 'tampered.xml', text: flush(2, '4096') + flush(3, '-409600') }]);
    assert.equal(err.file, 'tampered.xml');
    assert.match(err.message, /^tampered\.xml: event 2 \(log_flush_complete\) has a negative write_size \(-409600\): a server never writes one, so the file is not read\.$/);
  });

  it('a negative duration refuses the file too (it would make a negative latency)', () => {
    const err = refusal([{ name: 'rows.xml', text: flush(1, '4096', '-50') }]);
    assert.match(err.message, /^rows\.xml: event 1 \(log_flush_complete\) has a negative duration \(-50\): a server never writes one, so the file is not read\.$/);
  });

  it('zero and ordinary values are read as before', () => {
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: flush(1, '0', '0') + flush(2, '61440') }]);
    assert.ok(t.logFlush.measured);
    if (t.logFlush.measured) {
      assert.equal(t.logFlush.flushes, 2);
      assert.equal(t.logFlush.bytes, 61440);
    }
  });
});

describe('trace read: an <event> inside another <event>', () => {
  it('an <event> directly inside an <event> (no server writes that) refuses the file, naming the outer event', () => {
    // Observed before the fix: exit 0 and one log_flush_complete of the two — the outer event silently replaced.
    const text = flush(1, '4096').replace('</event>\n', flush(2, '512') + '</event>\n');
    const err = refusal([{ name: 'nested.xml', text }]);
    assert.match(err.message, /^nested\.xml: event 1 \(log_flush_complete\) holds another <event> inside it: a server never writes one there/);
  });

  it('an <event> inside a field\'s <value> (system_health\'s sp_server_diagnostics_component_result) is refused with what to do', () => {
    // The events component of sp_server_diagnostics returns /events/session/RingBufferTarget/event in its data
    // (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-server-diagnostics-transact-sql);
    // system_health records that XML in the event's `data` field. Observed before the fix: the inner log_flush_complete
    // counted as one of the files' flushes and the outer event lost; then "a server never writes one", which it does.
    const inner = flush(9, '4096').trim();
    const text =
      '<event name="sp_server_diagnostics_component_result" package="sqlserver" timestamp="2024-01-01T00:00:00.001Z">' +
      '<data name="component"><value>4</value><text>EVENTS</text></data>' +
      `<data name="data"><value><events><session startTime="2024-01-01T00:00:00.000"><RingBufferTarget truncated="0">${inner}</RingBufferTarget></session></events></value></data>` +
      '</event>\n';
    const err = refusal([{ name: 'system_health.xml', text }]);
    assert.match(err.message, /^system_health\.xml: event 1 \(sp_server_diagnostics_component_result\) holds another <event> inside it, in a field's <value>/);
    assert.match(err.message, /sp_server_diagnostics_component_result/);
    assert.match(err.message, /leave that event out of the export \(WHERE object_name <> N.sp_server_diagnostics_component_result. on sys\.fn_xe_file_target_read_file\)/);
  });

  it('a ring buffer with an event inside an event is refused too', () => {
    const text = `<RingBufferTarget truncated="0" eventCount="1">${flush(1, '4096').replace('</event>\n', `${flush(2, '512')}</event>`)}</RingBufferTarget>`;
    assert.match(refusal([{ name: 'ring.xml', text }]).message, /^ring\.xml: event 1 \(log_flush_complete\) holds another <event>/);
  });
});

/** 32-bit FNV-1a, the hash the duplicate check used to key on (name, NUL, session_id). */
function fnv1a(text: string, h = 2166136261): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

describe('trace read: duplicates are decided on the whole identity, never on a hash of it', () => {
  it('two events whose name and session_id collide under a 32-bit hash are both counted', () => {
    // Found by a birthday search over session_id values (a file is anyone's to write).
    const [a, b] = [699287, 1071020];
    assert.equal(fnv1a(`sql_statement_completed\u0000${a}`), fnv1a(`sql_statement_completed\u0000${b}`), 'the pair collides');
    const row = (session: number, text: string) =>
      '<event name="sql_statement_completed" package="sqlserver" timestamp="2024-01-01T00:00:00.001Z">' +
      `<data name="statement"><value>${text}</value></data>` +
      `<action name="session_id" package="sqlserver"><value>${session}</value></action>` +
      '<action name="query_hash" package="sqlserver"><value>5</value></action>' +
      '<action name="event_sequence" package="package0"><value>3</value></action></event>\n';
    // Observed before the fix: eventCount 1, the second row skipped as "already read".
    const t = analyzeTraceFiles([{ name: 'rows.xml', text: row(a, 'DELETE FROM t') + row(b, 'DELETE FROM t') }]);
    assert.equal(t.eventCount, 2, JSON.stringify(t.notes));
    assert.equal(t.files[0]!.duplicates, 0);
    assert.equal(t.statements[0]!.executions, 2);
    // The same row again is still a duplicate.
    const again = analyzeTraceFiles([{ name: 'rows.xml', text: row(a, 'DELETE FROM t') + row(a, 'DELETE FROM t') }]);
    assert.equal(again.eventCount, 1);
  });
});
