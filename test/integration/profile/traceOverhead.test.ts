// What the per-statement trace costs, end to end on the suite's server (issue 28 item 5; useTestServer: a given server
// or the in-process stand-in): `traceOverheadRuns` makes the profile run the workload alternately with and without the
// statement session — seen on the wire, by which runs create it —, the setup before each run, and the result and the
// CLI's JSON carry the elapsed times of those runs; without it, or with the trace off, "not measured" with why. The
// elapsed figures are whatever the server took (on the stand-in: the stand-in's, labelled so), never asserted as a size.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import type { SqlSession } from '../../../src/db/types';
import { profileConnectionSource, profileRun, type ConnectionSource } from '../../../src/profile';
import type { TraceOverhead } from '../../../src/profile/traceOverhead';
import { analyze } from '../../../src/tsql';
import { TEST_PASSWORD_ENV, useTestServer } from '../support';

/** Setup empties the table; the measured part inserts `rows` keys: a second run without the setup would hit the PRIMARY KEY. */
function script(table: string, rows: number): string {
  return [
    '-- durability-lens: setup',
    `DELETE FROM ${table};`,
    '-- durability-lens: measure',
    'SET NOCOUNT ON;',
    'DECLARE @i int = 0;',
    `WHILE @i < ${rows}`,
    'BEGIN',
    `  INSERT INTO ${table} (id) VALUES (@i);`,
    '  SET @i += 1;',
    'END',
    '',
  ].join('\n');
}

/** A source whose monitor sessions report each CREATE of the per-statement event session (the only session with statement events). */
function watchingSource(inner: ConnectionSource, onStatementSession: () => void): ConnectionSource {
  const watch = (sql: string) => {
    if (/CREATE\s+EVENT\s+SESSION/i.test(sql) && /sql_statement_completed/i.test(sql)) onStatementSession();
  };
  return {
    serverLabel: inner.serverLabel,
    async open(role, signal) {
      const session = await inner.open(role, signal);
      if (role !== 'monitor') return session;
      return new Proxy(session, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === 'query' || prop === 'execute') return (sql: string, ...rest: unknown[]) => (watch(sql), (value as (...a: unknown[]) => unknown).call(target, sql, ...rest));
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as SqlSession;
    },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The summary agrees with its own runs: medians, ranges, percent and ratio recomputed here from the listed elapsed times. */
function assertConsistent(t: TraceOverhead, runsEach: number): void {
  assert.equal(t.status, 'measured', t.reason ?? '');
  assert.equal(t.runsEach, runsEach);
  assert.deepEqual(t.runs.map((r) => [r.order, r.trace, r.status]), Array.from({ length: runsEach * 2 }, (_, i) => [i + 1, i % 2 === 0 ? 'with' : 'without', 'completed']));
  for (const r of t.runs) assert.ok(Number.isFinite(r.elapsedMs) && r.elapsedMs > 0, `run ${r.order} took ${r.elapsedMs} ms`);
  const withMs = t.runs.filter((r) => r.trace === 'with').map((r) => r.elapsedMs);
  const withoutMs = t.runs.filter((r) => r.trace === 'without').map((r) => r.elapsedMs);
  assert.deepEqual(t.withTrace, { runs: runsEach, medianMs: median(withMs), minMs: Math.min(...withMs), maxMs: Math.max(...withMs) });
  assert.deepEqual(t.withoutTrace, { runs: runsEach, medianMs: median(withoutMs), minMs: Math.min(...withoutMs), maxMs: Math.max(...withoutMs) });
  const ratio = median(withMs) / median(withoutMs);
  assert.equal(t.ratio, Math.round(ratio * 1000) / 1000);
  assert.equal(t.percent, Math.round((ratio - 1) * 1000) / 10);
  if (t.perStatementMs !== null) assert.equal(t.perStatementMs, Math.round(((median(withMs) - median(withoutMs)) / t.statementExecutions!) * 10000) / 10000);
  else assert.match(t.perStatementReason ?? '', /^No cost per statement: /);
}

describe('integration: per-statement trace cost (traceOverhead)', function () {
  this.timeout(120000);
  const t = useTestServer();
  const rows = 150;
  let table: string;
  before(async () => {
    table = t.table('overhead');
    const s = await t.connect();
    try {
      await s.execute(`CREATE TABLE ${table} (id int NOT NULL PRIMARY KEY);`);
    } finally {
      await s.close();
    }
  });

  it('alternates with, without, with, without on the same sessions — the statement session exists only in runs 1 and 3 — with the setup before each', async () => {
    const marks: string[] = [];
    const source = watchingSource(profileConnectionSource(t.profile, t.secret), () => marks.push('statement-session'));
    const labels: string[] = [];
    const run = await profileRun({
      connections: source,
      batches: analyze(script(table, rows)).batches,
      traceOverheadRuns: 2,
      onProgress: (e) => {
        if (e.step === 'snapshot-before') marks.push('run');
        if (e.step === 'setup') marks.push('setup');
        if (e.step === 'snapshot-before' && e.run) labels.push(e.run);
      },
    });
    assert.equal(run.status, 'completed');
    const t1 = run.traceOverhead!;
    assertConsistent(t1, 2);
    // Per run, was the statement session created? (Its CREATE precedes the run's workload, after the before-snapshot.)
    const perRun: boolean[] = [];
    for (const m of marks) {
      if (m === 'run') perRun.push(false);
      else if (m === 'statement-session' && perRun.length > 0) perRun[perRun.length - 1] = true;
    }
    assert.deepEqual(perRun, [true, false, true, false], marks.join(' '));
    assert.equal(marks.filter((m) => m === 'setup').length, 4, 'the setup ran before each of the 4 runs');
    assert.deepEqual(labels, ['run 1 of 4: with the per-statement trace', 'run 2 of 4: without the per-statement trace', 'run 3 of 4: with the per-statement trace', 'run 4 of 4: without the per-statement trace']);
    // The report's figures are run 1's, with the trace.
    assert.equal(run.workloadElapsedMs, t1.runs[0]!.elapsedMs);
    assert.equal(run.statementAttribution?.status, 'measured');
    assert.equal(t1.source, run.source, 'labelled as the run is (the stand-in says so in @@VERSION)');
    const check = await t.connect();
    try {
      assert.equal(Number((await check.query(`SELECT COUNT(*) AS n FROM ${table};`))[0]!.n), rows, 'each run started from the setup\'s empty table');
    } finally {
      await check.close();
    }
    assert.deepEqual((await t.state()).eventSessions, [], 'every event session was dropped');
  });

  it('not asked for, or the trace off: one run, and traceOverhead says not measured with why — every figure null', async () => {
    const marks: string[] = [];
    const plain = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: analyze(script(table, 20)).batches, onProgress: (e) => void (e.step === 'snapshot-before' && marks.push('run')) });
    assert.equal(marks.length, 1);
    const o = plain.traceOverhead!;
    assert.equal(o.status, 'not-measured');
    assert.match(o.reason!, /measured only when asked/);
    assert.match(o.fix!, /--trace-overhead 2/);
    assert.equal(o.percent, null);
    assert.equal(o.withTrace, null);

    marks.length = 0;
    const off = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: analyze(script(table, 20)).batches, traceOverheadRuns: 2, xe: { statements: false }, onProgress: (e) => void (e.step === 'snapshot-before' && marks.push('run')) });
    assert.equal(marks.length, 1, 'nothing to measure: the workload ran once');
    assert.equal(off.traceOverhead!.status, 'not-measured');
    assert.match(off.traceOverhead!.reason!, /per-statement trace was off/);
    assert.equal(off.traceOverhead!.ratio, null);
  });

  it('profile --trace-overhead 2 --json carries traceOverhead with real figures; stderr states the plan first and the answer last', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-overhead-'));
    const out: string[] = [];
    const err: string[] = [];
    try {
      await writeFile(join(dir, 'loop.sql'), script(table, rows));
      const settings = join(dir, 'settings.json');
      await writeFile(settings, JSON.stringify({ 'durabilityLens.connections': [t.settingsConnection('Standin')] }));
      const env = { DURABILITY_LENS_PASSWORD: t.secret, [TEST_PASSWORD_ENV]: t.secret };
      const io = { ...processIO(), cwd: dir, userSettings: join(dir, 'none.json'), env, stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) };
      const args = ['profile', '--connection', 'standin', '--settings', settings, '--file', join(dir, 'loop.sql'), '--yes', '--journal', join(dir, 'j')];
      const code = await runCli([...args, '--json', '--trace-overhead', '2'], io);
      assert.equal(code, EXIT.ok, err.join(''));
      const json = JSON.parse(out.join(''));
      assertConsistent(json.traceOverhead, 2);
      assert.equal(json.traceOverhead.source, json.source);
      const stderr = err.join('');
      assert.match(stderr, /--trace-overhead 2: runs the workload 4 times: 2 with the per-statement trace, 2 without/);
      assert.ok(stderr.indexOf('runs the workload 4 times') < stderr.indexOf('per-statement trace '), 'the plan is said before the answer');
      assert.match(stderr, json.source === 'stand-in' ? /The per-statement trace (slowed this run by|did not measurably slow this run) .*\(stand-in figures, not SQL Server's\)/ : /The per-statement trace (slowed this run by|did not measurably slow this run)/);

      out.length = 0;
      assert.equal(await runCli([...args, '--markdown'], io), EXIT.ok);
      assert.match(out.join(''), /## Per-statement trace cost\n\n- Per-statement trace cost(?: \(stand-in figures, not SQL Server's\))?: Not measured: the per-statement trace adds work to every statement/);

      err.length = 0;
      assert.equal(await runCli([...args, '--trace-overhead', '1'], io), EXIT.usage);
      assert.match(err.join(''), /2–10 runs each way/);
      err.length = 0;
      assert.equal(await runCli([...args, '--trace-overhead', '2', '--no-statements'], io), EXIT.usage);
      assert.match(err.join(''), /--no-statements leaves out/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
