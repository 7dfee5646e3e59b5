// Issue 33 D2 (found by the attack33 review): the WRITELOG time check could not tell milliseconds from microseconds
// when waits average ≤ 1 ms (the common case on a decent log disk), because its absolute tolerance was "1 ms per wait
// + 1": then 1000× too small also "fitted", the stated/assumed unit stayed, the per-statement WRITELOG ms stayed 1000×
// off, and the check said "passed … they agree (99.9 % apart …)".
import assert from 'node:assert/strict';
import { reconcileRun, type ConsistencyInput } from '../../../src/profile/consistency';
import { ATTRIBUTION_LIMITS, unlistedStatementsNote, type StatementAttribution, type StatementFigure } from '../../../src/profile/statementAttribution';
import { notApplicable, ok } from '../../../src/probes/measurement';

function input(sessionWaits: number, sessionMs: number, traceRawDurationSum: number): ConsistencyInput {
  // wait_info.duration in milliseconds (Microsoft CSS: WAITFOR DELAY '00:00:05' → 5000), but the server's description
  // names no unit, so the trace was read as assumed microseconds: raw / 1000 ms.
  const asRead = traceRawDurationSum / 1000;
  const a: StatementAttribution = {
    status: 'measured', reason: null, grant: null, waitEvent: 'wait_info',
    attributedWritelogWaits: sessionWaits, attributedWritelogMs: asRead, unattributedWritelogWaits: 0, unattributedWritelogMs: 0,
    sessionWritelogWaits: sessionWaits, sessionWritelogMs: sessionMs, eventsSeen: 2 * sessionWaits, eventsCounted: null,
    logBytesPerFlush: null, waitDurationUnit: 'assumed-microseconds', limits: ATTRIBUTION_LIMITS, notes: [],
  };
  const f: StatementFigure = { line: 3, text: 'INSERT t VALUES (1)', executions: sessionWaits, durationMs: 10, writelogWaits: sessionWaits, writelogMs: asRead, rows: sessionWaits, batchIndex: 0, nestedStatements: 0, counts: 'sample' };
  return {
    diff: {
      valid: true, notes: [], restartDetected: false, elapsedMs: 10_000,
      files: notApplicable('fileStats', 'not read in this test'),
      serverWaits: notApplicable('waitStats', 'not read in this test'),
      sessionWaits: ok({} as never),
      logCounters: notApplicable('perfCounters', 'not read in this test'),
      log: { vlfCount: null, logSizeMb: null, usedBytes: null, usedPercent: null },
    },
    logFlushTrace: null,
    statements: [f],
    statementAttribution: a,
    missing: [],
  } as ConsistencyInput;
}

describe('consistency: WRITELOG duration-unit inference on sub-millisecond waits', () => {
  it('5000 waits, 4500 ms on the session, trace durations summing to 4500 (ms): infers milliseconds', () => {
    const r = reconcileRun(input(5000, 4500, 4500));
    const time = r.checks.find((c) => c.check === 'writelog-time:statements-vs-session')!;
    // Observed: unit.inferred null ("too little WRITELOG time to tell"), status 'passed' with "99.9 % apart",
    // and the statement's writelogMs stays 4.5 ms instead of 4500 ms.
    assert.equal(time.unit?.inferred, 'milliseconds', time.detail);
    assert.equal(r.statements[0]!.writelogMs, 4500);
  });

  it('a check whose two figures are 99.9 % apart does not say "passed"', () => {
    const r = reconcileRun(input(5000, 4500, 4500));
    const time = r.checks.find((c) => c.check === 'writelog-time:statements-vs-session')!;
    assert.ok(!(time.status === 'passed' && (time.differencePercent ?? 0) > 50), `${time.status}: ${time.detail}`);
  });
});

describe('consistency: the WRITELOG time tolerance never lets the wrong unit fit', () => {
  const time = (r: ReturnType<typeof reconcileRun>) => r.checks.find((c) => c.check === 'writelog-time:statements-vs-session')!;

  it('infers the true unit whatever the average wait, from 2 ms of session time up (both units, sub-millisecond waits)', () => {
    for (const sessionMs of [2, 3, 10, 450, 4500, 2_000_000]) {
      for (const waits of [1, 7, 5000, 100_000]) {
        // milliseconds: the raw durations sum to the session's ms (read as µs: raw / 1000)
        const ms = reconcileRun(input(waits, sessionMs, sessionMs));
        assert.equal(time(ms).unit?.inferred, 'milliseconds', `${waits} waits, ${sessionMs} ms: ${time(ms).detail}`);
        assert.equal(time(ms).status, 'passed', time(ms).detail);
        // microseconds: the raw durations sum to 1000 × the session's ms
        const us = reconcileRun(input(waits, sessionMs, sessionMs * 1000));
        assert.equal(time(us).unit?.inferred, 'microseconds', `${waits} waits, ${sessionMs} ms: ${time(us).detail}`);
        assert.equal(us.statements[0]!.writelogMs, sessionMs);
      }
    }
  });

  it('about 1 ms of WRITELOG or less: "unit not inferable", not possible (never passed), the figures left as read', () => {
    const r = reconcileRun(input(3, 1, 1));
    const t = time(r);
    assert.equal(t.status, 'not-possible');
    assert.equal(t.unit?.inferred, null);
    assert.match(t.detail, /unit not inferable/);
    assert.equal(r.statements[0]!.writelogMs, 0.001, 'not converted');
  });

  it('sources that fit neither unit disagree, and the detail names per-wait rounding as a cause to look at', () => {
    // 5000 waits of 0.9 ms whose durations were rounded down to 0 ms each: the trace holds 3 ms, the session 4500 ms.
    const t = time(reconcileRun(input(5000, 4500, 3)));
    assert.equal(t.status, 'disagrees');
    assert.equal(t.unit?.inferred, null);
    assert.match(t.detail, /fits neither milliseconds nor microseconds; microseconds assumed\. With waits averaging about 1 ms or less, a source that rounds each wait to whole milliseconds/);
  });

  it('the note on statements beyond the first 1,000 is rewritten in the inferred unit', () => {
    const i = input(5000, 4500, 4500);
    const unlisted = { statements: 3, executions: 30, writelogWaits: 30, writelogMs: 0.03 };
    const before = unlistedStatementsNote(unlisted);
    i.statementAttribution = { ...i.statementAttribution!, unlisted, notes: [before] };
    const r = reconcileRun(i);
    assert.deepEqual(r.statementAttribution!.unlisted, { ...unlisted, writelogMs: 30 });
    assert.ok(!r.statementAttribution!.notes.includes(before), 'the note in the unit read is gone');
    assert.ok(r.statementAttribution!.notes.includes('3 more statement(s) are not listed (only the first 1000 by WRITELOG time are): together 30 executions, 30 WRITELOG waits (30 ms).'), JSON.stringify(r.statementAttribution!.notes));
  });
});
