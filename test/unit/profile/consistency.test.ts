// reconcileRun (issue 33 item 3, D2): each pair of sources agrees within its tolerance or disagrees by a stated
// percentage; a missing source makes the check "not possible" with that source's reason; log growth rules out the
// file comparisons; the WRITELOG time check infers the wait event's unit only when exactly one unit fits, and then
// converts the per-statement figures.
import { strict as assert } from 'node:assert';
import { reconcileRun, type ConsistencyInput } from '../../../src/profile/consistency';
import type { StatementAttribution, StatementFigure } from '../../../src/profile/statementAttribution';
import type { ConsistencyCheck } from '../../../src/profile/types';
import type { DurationUnit } from '../../../src/xe/aggregate';
import { makeRun } from '../report/runFixture';

function inputOf(run: ReturnType<typeof makeRun>, extra: Partial<ConsistencyInput> = {}): ConsistencyInput {
  return { diff: run.diff, logFlushTrace: run.logFlushTrace, statements: [], statementAttribution: null, missing: run.missing, ...extra };
}
const byId = (checks: readonly ConsistencyCheck[], id: string) => checks.find((c) => c.check === id)!;

function attribution(o: { waits: number; ms: number; sessionWaits: number | null; sessionMs: number | null; unit: DurationUnit; seen?: number; counted?: number | null }): StatementAttribution {
  return {
    status: 'measured', reason: null, grant: null, waitEvent: 'wait_info', attributedWritelogWaits: o.waits, attributedWritelogMs: o.ms, unattributedWritelogWaits: 0, unattributedWritelogMs: 0,
    sessionWritelogWaits: o.sessionWaits, sessionWritelogMs: o.sessionMs, eventsSeen: o.seen ?? 10, eventsCounted: o.counted ?? 10, logBytesPerFlush: null, limits: [], notes: [], waitDurationUnit: o.unit,
  };
}
const statement = (waits: number, ms: number): StatementFigure => ({ line: 3, text: 'INSERT t DEFAULT VALUES', executions: waits, durationMs: ms, writelogWaits: waits, writelogMs: ms, rows: waits, batchIndex: 0, nestedStatements: 0 });

describe('profile/consistency: reconcileRun', () => {
  it('flush counts: agree within 10 % or 2 flushes; a source 50 % off disagrees, the untouched pair still agrees', () => {
    const whole = reconcileRun(inputOf(makeRun({ flushesCounter: 100, flushesXe: 101, log: { writes: 100, bytes: 409600, stallMs: 20 } }))).checks;
    for (const id of ['log-flushes:xe-vs-counter', 'log-flushes:counter-vs-file-writes', 'log-flushes:xe-vs-file-writes']) assert.equal(byId(whole, id).status, 'passed', id);
    const broken = reconcileRun(inputOf(makeRun({ flushesCounter: 50, flushesXe: 100, log: { writes: 100, bytes: 409600, stallMs: 20 } }))).checks;
    const c = byId(broken, 'log-flushes:xe-vs-counter');
    assert.equal(c.status, 'disagrees');
    assert.equal(c.differencePercent, 50);
    assert.deepEqual(c.sources, [{ source: 'the Extended Events flush count', value: 100 }, { source: 'the Log Flushes/sec counter', value: 50 }]);
    assert.deepEqual(c.concerns, ['flushes.xe', 'flushes.counter']);
    assert.equal(byId(broken, 'log-flushes:counter-vs-file-writes').status, 'disagrees');
    assert.equal(byId(broken, 'log-flushes:xe-vs-file-writes').status, 'passed');
  });

  it('the absolute tolerance covers small counts: 3 vs 1 flushes agree (2 flushes), 4 vs 1 do not', () => {
    assert.equal(byId(reconcileRun(inputOf(makeRun({ flushesCounter: 1, flushesXe: 3 }))).checks, 'log-flushes:xe-vs-counter').status, 'passed');
    assert.equal(byId(reconcileRun(inputOf(makeRun({ flushesCounter: 1, flushesXe: 4 }))).checks, 'log-flushes:xe-vs-counter').status, 'disagrees');
  });

  it('a missing source makes its checks "not possible" with that source\'s reason, never a pass or a 0', () => {
    const run = makeRun({ flushesCounter: 100 });
    run.missing.push({ measurement: 'extendedEvents', reason: 'No log-flush events: the login may not create event sessions.', grant: 'GRANT ALTER ANY EVENT SESSION TO [lens];' });
    const checks = reconcileRun(inputOf(run)).checks;
    const c = byId(checks, 'log-flushes:xe-vs-counter');
    assert.equal(c.status, 'not-possible');
    assert.equal(c.detail, 'Not possible: the Extended Events flush count: No log-flush events: the login may not create event sessions.');
    assert.deepEqual([c.sources, c.differencePercent, c.tolerance], [[], null, null]);
    const noCounter = reconcileRun(inputOf(makeRun({ flushesXe: 100 }))).checks;
    assert.match(byId(noCounter, 'log-flushes:xe-vs-counter').detail, /the Log Flushes\/sec counter: the server did not report it/);
    assert.match(byId(noCounter, 'writelog-waits:statements-vs-session').detail, /^Not possible: the statement trace did not run/);
  });

  it('log growth during the run rules out comparisons with the log file (zero-filling writes are no flushes)', () => {
    const run = makeRun({ flushesCounter: 100, flushesXe: 100, environment: { log: { vlfCount: null, logSizeMb: { before: 8, after: 72 }, usedBytes: null, usedPercent: null } } });
    const checks = reconcileRun(inputOf(run)).checks;
    assert.equal(byId(checks, 'log-flushes:xe-vs-counter').status, 'passed');
    for (const id of ['log-flushes:counter-vs-file-writes', 'log-flushes:xe-vs-file-writes']) assert.match(byId(checks, id).detail, /^Not possible: the log grew from 8 MB to 72 MB during the run/, id);
  });

  it('WRITELOG waits: compared when the trace saw every wait (or counted them exactly), not possible on a partial sample', () => {
    const run = makeRun({ waits: { WRITELOG: { count: 100, ms: 50 } } });
    const agree = reconcileRun(inputOf(run, { statementAttribution: attribution({ waits: 100, ms: 50, sessionWaits: 100, sessionMs: 50, unit: 'microseconds' }) })).checks;
    assert.equal(byId(agree, 'writelog-waits:statements-vs-session').status, 'passed');
    const partial = reconcileRun(inputOf(run, { statementAttribution: attribution({ waits: 40, ms: 20, sessionWaits: 100, sessionMs: 50, unit: 'microseconds', seen: 120, counted: 300 }) })).checks;
    assert.match(byId(partial, 'writelog-waits:statements-vs-session').detail, /^Not possible: the trace's sample holds 120 of 300 events/);
    // The time check still runs: the sampled waits' time is scaled to the session's wait count.
    const time = byId(partial, 'writelog-time:statements-vs-session');
    assert.equal(time.status, 'passed', time.detail);
    assert.match(time.detail, /≈: 40 of the trace's waits carry a duration, scaled to the session's 100/);
    const missingSession = reconcileRun(inputOf(run, { statementAttribution: attribution({ waits: 100, ms: 50, sessionWaits: null, sessionMs: null, unit: 'microseconds' }), missing: [{ measurement: 'sessionWaits', reason: 'without VIEW SERVER STATE a login sees only its own session', grant: null }] })).checks;
    assert.match(byId(missingSession, 'writelog-waits:statements-vs-session').detail, /^Not possible: without VIEW SERVER STATE/);
    const sweep = reconcileRun(inputOf(run, { statementAttribution: attribution({ waits: 100, ms: 50, sessionWaits: 100, sessionMs: 50, unit: 'microseconds' }), concurrentSessions: 4 })).checks;
    assert.match(byId(sweep, 'writelog-time:statements-vs-session').detail, /^Not possible: statements are traced on one session and this run used 4 at once/);
  });

  it('D2: an assumed microsecond unit that the session waits contradict is inferred as milliseconds, and the statements follow (×1000)', () => {
    // 200 waits of ~4 ms: read as microseconds they sum to 0.8 ms; the session waited 800 ms.
    const a = attribution({ waits: 200, ms: 0.8, sessionWaits: 200, sessionMs: 800, unit: 'assumed-microseconds' });
    const out = reconcileRun(inputOf(makeRun(), { statementAttribution: a, statements: [statement(200, 0.8)] }));
    const time = byId(out.checks, 'writelog-time:statements-vs-session');
    assert.equal(time.status, 'passed', time.detail);
    assert.deepEqual(time.unit, { event: 'wait_info', used: 'microseconds', assumed: true, inferred: 'milliseconds' });
    assert.match(time.detail, /Unit inferred: wait_info\.duration is in milliseconds \(the server names no unit for it/);
    assert.equal(out.statements[0]!.writelogMs, 800);
    assert.equal(out.statementAttribution!.attributedWritelogMs, 800);
    assert.equal(out.statementAttribution!.waitDurationUnit, 'milliseconds');
    assert.equal(out.statementAttribution!.waitDurationUnitInferred, true);
    assert.match(out.statementAttribution!.notes.at(-1)!, /in the unit inferred from the session's waits \(milliseconds\)/);
  });

  it('D2: a stated unit the data confirms is kept ("unit confirmed"); too little time to tell is "unit not inferable" (not possible, unit kept); neither fitting disagrees', () => {
    const confirmed = reconcileRun(inputOf(makeRun(), { statementAttribution: attribution({ waits: 200, ms: 40, sessionWaits: 200, sessionMs: 40, unit: 'microseconds' }), statements: [statement(200, 40)] }));
    assert.match(byId(confirmed.checks, 'writelog-time:statements-vs-session').detail, /Unit confirmed: wait_info\.duration is in microseconds, as the field's description says/);
    assert.equal(confirmed.statements[0]!.writelogMs, 40);
    const tiny = reconcileRun(inputOf(makeRun(), { statementAttribution: attribution({ waits: 3, ms: 0.001, sessionWaits: 3, sessionMs: 0, unit: 'assumed-microseconds' }), statements: [statement(3, 0.001)] }));
    const t = byId(tiny.checks, 'writelog-time:statements-vs-session');
    assert.equal(t.unit!.inferred, null);
    assert.equal(t.status, 'not-possible', 'both units fitting is no pass');
    assert.match(t.detail, /^Not possible: unit not inferable — the session waited 0 ms on WRITELOG, the trace 1 ms if its duration is in milliseconds or 0\.001 ms if in microseconds: both fit, since wait_time_ms counts whole milliseconds \(±1 ms\), .*; microseconds assumed\.$/);
    assert.equal(tiny.statements[0]!.writelogMs, 0.001, 'not converted');
    const neither = reconcileRun(inputOf(makeRun(), { statementAttribution: attribution({ waits: 100, ms: 5000, sessionWaits: 100, sessionMs: 20000, unit: 'milliseconds' }) }));
    const n = byId(neither.checks, 'writelog-time:statements-vs-session');
    assert.equal(n.status, 'disagrees');
    assert.match(n.detail, /fits neither milliseconds nor microseconds; milliseconds as the server states/);
  });
});
