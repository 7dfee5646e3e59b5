// Issue 33 item 4, "not measured" by construction (found by the attack33 review): when the server offers no way to trace WRITELOG per
// statement (no wait_completed / wait_info, or no WRITELOG key in the wait_types map), the run's JSON still gives every
// statement `writelogWaits: 0, writelogMs: 0` — measured-looking zeros; only the Markdown/panel consult waitEvent.
import assert from 'node:assert/strict';
import { STATEMENTS_LISTED } from '../../../src/profile/statementAttribution';
import { collectStatementTrace } from '../../../src/profile/statementRun';
import { statementsMarkdown } from '../../../src/report/statements';
import { notApplicable } from '../../../src/probes/measurement';

const diff = {
  valid: true, notes: [], restartDetected: false, elapsedMs: 1000,
  files: notApplicable('fileStats', 'test'), serverWaits: notApplicable('waitStats', 'test'), sessionWaits: notApplicable('sessionWaits', 'test'),
  logCounters: notApplicable('perfCounters', 'test'), log: { vlfCount: null, logSizeMb: null, usedBytes: null, usedPercent: null },
};
describe('statements: per-statement WRITELOG in the JSON when WRITELOG is not traced', () => {
  it('statements[].writelogMs is null (not measured), never 0', async () => {
    const event = {
      name: 'sql_statement_completed', package: 'sqlserver', timestamp: new Date(0), actions: {},
      data: { line_number: { value: 1 }, offset: { value: 0 }, offset_end: { value: -1 }, statement: { value: 'INSERT t VALUES (1)' }, duration: { value: 100 }, row_count: { value: 1 } },
    };
    const trace = {
      state: 'started',
      // planStatementTrace's plan when sys.dm_xe_map_values has no WRITELOG key (statementTrace.ts): wait null, a note.
      plan: { wait: null, statementDurationUnit: 'microseconds', notes: ['sys.dm_xe_map_values has no WRITELOG entry in the wait_types map: WRITELOG waits are not measured per statement.'] },
      stop: async () => undefined,
      collect: async (onEvent: (e: unknown) => void) => {
        onEvent(event);
        return { counts: null, seen: 1, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, notes: [] };
      },
    };
    const r = await collectStatementTrace({ trace: trace as never, missing: null }, [{ text: 'INSERT t VALUES (1)', firstLine: 0 } as never], diff as never);
    assert.equal(r.attribution.waitEvent, null);
    assert.equal(r.statements.length, 1);
    // Observed: writelogWaits 0, writelogMs 0 in the JSON, with nothing on the row saying they were not measured.
    const s = r.statements[0]!;
    assert.ok(s.writelogMs === null || s.notMeasured?.includes('writelogMs'), `writelogMs ${s.writelogMs}, notMeasured ${JSON.stringify(s.notMeasured)}`);
    // Both WRITELOG figures: null in the JSON and named in notMeasured, as the Markdown and the panel say.
    assert.deepEqual([s.writelogWaits, s.writelogMs, s.notMeasured], [null, null, ['writelogWaits', 'writelogMs']]);
    assert.deepEqual([s.executions, s.durationMs, s.rows], [1, 0.1, 1], 'the figures the trace did measure stay');
    const md = statementsMarkdown({ column: 'RUN', statements: r.statements, attribution: r.attribution }, (t) => t).join('\n');
    assert.match(md, /\| 1 \| INSERT t VALUES \(1\) \| 1 \| 0\.1 ms \| not measured \| not measured \| 1 \|/);
  });

  it('statements beyond the first 1,000: their note says WRITELOG not measured, never "0 WRITELOG waits (0 ms)"', async () => {
    const n = STATEMENTS_LISTED + 3;
    const text = Array.from({ length: n }, (_, i) => `INSERT t VALUES (${String(i).padStart(4, '0')});`).join('\n');
    const trace = {
      state: 'started',
      plan: { wait: null, statementDurationUnit: 'microseconds', notes: [] },
      stop: async () => undefined,
      collect: async (onEvent: (e: unknown) => void) => {
        for (let i = 0; i < n; i++) {
          const offset = i * 27 * 2;
          onEvent({ name: 'sql_statement_completed', package: 'sqlserver', timestamp: new Date(0), actions: {}, data: { line_number: { value: i + 1 }, offset: { value: offset }, offset_end: { value: offset + 25 * 2 }, duration: { value: 10 }, row_count: { value: 1 } } });
        }
        return { counts: null, seen: n, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, notes: [] };
      },
    };
    const r = await collectStatementTrace({ trace: trace as never, missing: null }, [{ text, firstLine: 0 } as never], diff as never);
    assert.equal(r.statements.length, STATEMENTS_LISTED);
    assert.deepEqual(r.attribution.unlisted, { statements: 3, executions: 3, writelogWaits: null, writelogMs: null });
    assert.ok(r.attribution.notes.includes('3 more statement(s) are not listed (only the first 1000 by WRITELOG time are): together 3 executions, WRITELOG waits not measured (WRITELOG time not measured).'), JSON.stringify(r.attribution.notes));
  });
});
