// Per-statement attribution end to end on the suite's server (issue 16; useTestServer: a given server or the
// in-process stand-in): a loop of single-row INSERTs then one batched UPDATE; the INSERT's line carries (nearly) all of
// the session's WRITELOG waits, in the RunResult and in the CLI's JSON, and the statement session is dropped. Exact
// per-statement waits and the ring buffer's eviction are the stand-in model's and asserted only there.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, profileRun, runComparison } from '../../../src/profile';
import { STATEMENTS_OFF_IN_COMPARISON } from '../../../src/profile/statementRun';
import { writelogShareOfLine, type StatementFigure } from '../../../src/profile/statementAttribution';
import { analyze } from '../../../src/tsql';
import { TEST_PASSWORD_ENV, useTestServer } from '../support';

const INSERT_LINE = 7;
const UPDATE_LINE = 10;
/** Line 7 is the INSERT, line 10 the UPDATE (1-based in the file); a GO splits the first batch off. */
function loopThenUpdate(rows: number, table: string): string {
  return [
    '-- issue 16: a loop that commits each row, then one batched UPDATE',
    'SET NOCOUNT ON;',
    'GO',
    'DECLARE @i int = 0;',
    'WHILE @i < ' + rows,
    'BEGIN',
    `  INSERT INTO ${table} (id, v) VALUES (@i, 0);`,
    '  SET @i += 1;',
    'END',
    `UPDATE ${table} SET v = 1 WHERE v = 0;`,
    '',
  ].join('\n');
}

describe('integration: per-statement attribution', function () {
  this.timeout(60000);
  const t = useTestServer();
  let table: string;
  const source = () => profileConnectionSource(t.profile, t.secret);
  before(async () => {
    table = t.table('attr');
    const s = await t.connect();
    try {
      await s.execute(`CREATE TABLE ${table} (id int NOT NULL, v int NOT NULL);`);
    } finally {
      await s.close();
    }
  });

  /** The CLI's settings file for this server and the environment with its password. */
  async function cliSetup(dir: string): Promise<{ settings: string; env: Record<string, string> }> {
    const settings = join(dir, 'settings.json');
    await writeFile(settings, JSON.stringify({ 'durabilityLens.connections': [t.settingsConnection('Standin')] }));
    return { settings, env: { DURABILITY_LENS_PASSWORD: t.secret, [TEST_PASSWORD_ENV]: t.secret } };
  }

  it('attributes at least 90 % of the session\'s WRITELOG waits to the INSERT line, the UPDATE gets its one commit', async () => {
    const run = await profileRun({ connections: source(), batches: analyze(loopThenUpdate(400, table)).batches });
    assert.equal(run.status, 'completed');
    const a = run.statementAttribution!;
    assert.equal(a.status, 'measured', a.reason ?? '');
    if (t.standin) assert.equal(a.waitEvent, 'wait_completed');
    const session = run.sessionWaits.find((w) => w.waitType === 'WRITELOG')!;
    assert.equal(a.sessionWritelogWaits, session.waitingTasks);
    const share = writelogShareOfLine(run.statements!, a, INSERT_LINE)!;
    assert.ok(share >= 0.9, `INSERT line share ${share}`);
    const byLine = new Map(run.statements!.map((s) => [s.line, s] as [number, StatementFigure]));
    const insert = byLine.get(INSERT_LINE)!;
    assert.equal(insert.executions, 400);
    assert.equal(insert.rows, 400);
    // One WRITELOG wait per durable single-session commit: exact in the model, physical on a server.
    assert.ok(insert.writelogWaits! >= (t.standin ? 400 : 360) && insert.writelogWaits! <= 400, `INSERT WRITELOG waits ${insert.writelogWaits}`);
    assert.equal(insert.text, `INSERT INTO ${table} (id, v) VALUES (@i, 0)`, 'the statement ends with its last character');
    assert.equal(run.statements![0]!.line, INSERT_LINE, 'sorted by WRITELOG time');
    const update = byLine.get(UPDATE_LINE)!;
    assert.equal(update.executions, 1);
    assert.equal(update.rows, 400);
    assert.equal(update.writelogWaits, 1, 'one UPDATE, one commit');
    assert.equal(byLine.get(8)?.writelogWaits ?? 0, 0, 'SET @i += 1 commits nothing');
    if (t.standin) assert.equal(byLine.get(2)!.executions, 1, 'the first batch (before GO) maps to its own line');
    assert.equal(a.attributedWritelogWaits! + a.unattributedWritelogWaits!, session.waitingTasks);
    assert.ok(a.limits.some((l) => /nested dynamic SQL/.test(l)));
    assert.deepEqual((await t.state()).eventSessions, [], 'the statement session was dropped');
  });

  it('a long loop with an event_file target counts every execution on the server (query_hash histograms)', async function () {
    // SQL Server keeps an event_file's files after DROP EVENT SESSION and T-SQL cannot delete them: not on a given server.
    t.standinOnly(this, 'event files stay on the server after the run (T-SQL cannot delete them)');
    const rows = 3000;
    const full = await profileRun({ connections: source(), batches: analyze(loopThenUpdate(rows, table)).batches, xe: { target: { kind: 'event_file', path: 'lens_statements.xel' } } });
    const a = full.statementAttribution!;
    assert.equal(a.status, 'measured', a.reason ?? '');
    assert.equal(a.eventsSeen, a.eventsCounted, 'every event read back from the file');
    const insert = full.statements!.find((s) => s.line === INSERT_LINE)!;
    assert.equal(insert.executions, rows);
    assert.equal(insert.counts, 'exact');
    assert.ok(writelogShareOfLine(full.statements!, a, INSERT_LINE)! >= 0.9);
    assert.ok(a.notes.some((n) => /event_file stays on the server/.test(n)));
  });

  it('a long loop with the default ring buffer: the sample is labelled, the executions are counted on the server', async () => {
    const rows = 3000;
    const sampled = await profileRun({ connections: source(), batches: analyze(loopThenUpdate(rows, table)).batches });
    const s = sampled.statementAttribution!;
    assert.ok(s.eventsSeen! < 2 * rows, `the ring buffer kept ${s.eventsSeen} events: a sample`);
    assert.equal(s.eventsCounted, null, 'no sample coverage is claimed for exact counts');
    assert.ok(!s.notes.some((n) => /^Coverage:/.test(n)), s.notes.join(' | '));
    assert.ok(s.notes.some((n) => /exact server-side counts/.test(n)), s.notes.join(' | '));
    const sampledInsert = sampled.statements!.find((x) => x.line === INSERT_LINE)!;
    assert.equal(sampledInsert.executions, rows, 'counted on the server, not from the sample');
    assert.ok(sampledInsert.writelogWaits! >= (t.standin ? rows : rows * 0.9) && sampledInsert.writelogWaits! <= rows, `INSERT WRITELOG waits ${sampledInsert.writelogWaits}`);
    assert.equal(sampledInsert.approx, true);
    assert.deepEqual((await t.state()).eventSessions, []);
  });

  it('profile --json carries statements: [{line, text, executions, durationMs, writelogWaits, writelogMs, rows}]', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-stmt-'));
    const out: string[] = [];
    const err: string[] = [];
    try {
      await writeFile(join(dir, 'loop.sql'), loopThenUpdate(150, table));
      const { settings, env } = await cliSetup(dir);
      const io = { ...processIO(), cwd: dir, userSettings: join(dir, 'none.json'), env, stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) };
      const code = await runCli(['profile', '--connection', 'standin', '--settings', settings, '--file', join(dir, 'loop.sql'), '--json', '--yes', '--journal', join(dir, 'j.json')], io);
      assert.equal(code, EXIT.ok, err.join(''));
      const run = JSON.parse(out.join(''));
      const top = run.statements[0];
      for (const k of ['line', 'text', 'executions', 'durationMs', 'writelogWaits', 'writelogMs', 'rows']) assert.ok(k in top, `statements[0].${k}`);
      assert.equal(top.line, INSERT_LINE);
      const total = run.sessionWaits.find((w: { waitType: string }) => w.waitType === 'WRITELOG').waitingTasks;
      assert.ok(top.writelogWaits / total >= 0.9, `${top.writelogWaits} of ${total}`);

      out.length = 0;
      const off = await runCli(['profile', '--connection', 'standin', '--settings', settings, '--file', join(dir, 'loop.sql'), '--json', '--no-statements', '--yes', '--journal', join(dir, 'j.json')], io);
      assert.equal(off, EXIT.ok, err.join(''));
      const plain = JSON.parse(out.join(''));
      assert.deepEqual(plain.statements, []);
      assert.equal(plain.statementAttribution.status, 'not-measured');
      assert.match(plain.statementAttribution.reason, /turned off/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('S1 at full length: 10,000 single-row INSERTs with the default ring buffer — exact executions and ≥ 90 % of WRITELOG on the INSERT line in the JSON', async function () {
    this.timeout(120000);
    const dir = await mkdtemp(join(tmpdir(), 'lens-stmt-'));
    const out: string[] = [];
    const err: string[] = [];
    try {
      await writeFile(join(dir, 'loop.sql'), loopThenUpdate(10000, table));
      const { settings, env } = await cliSetup(dir);
      const io = { ...processIO(), cwd: dir, userSettings: join(dir, 'none.json'), env, stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) };
      const code = await runCli(['profile', '--connection', 'standin', '--settings', settings, '--file', join(dir, 'loop.sql'), '--json', '--yes', '--journal', join(dir, 'j.json')], io);
      assert.equal(code, EXIT.ok, err.join(''));
      const run = JSON.parse(out.join(''));
      const a = run.statementAttribution;
      assert.ok(a.eventsSeen < 20000, `the ring buffer is a sample here (${a.eventsSeen} events read)`);
      const insert = run.statements.find((x: StatementFigure) => x.line === INSERT_LINE);
      assert.equal(insert.executions, 10000);
      assert.equal(insert.counts, 'exact');
      const total = run.sessionWaits.find((w: { waitType: string }) => w.waitType === 'WRITELOG').waitingTasks;
      assert.ok(insert.writelogWaits! / total >= 0.9, `${insert.writelogWaits} of ${total}`);
      const update = run.statements.find((x: StatementFigure) => x.line === UPDATE_LINE);
      assert.equal(update.executions, 1);
      assert.equal(update.writelogWaits, 1, 'one UPDATE, one commit');
      assert.equal(a.attributedWritelogWaits + a.unattributedWritelogWaits, total);
      assert.ok(!run.statements.some((x: StatementFigure) => x.executions === 0), 'no statement counted as 0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('statements the sample never saw are listed by hash as not located; identical texts share a hash and list their lines', async function () {
    t.standinOnly(this, 'relies on how many events the stand-in\'s 1 MB ring buffer keeps');
    const script = [
      'SET NOCOUNT ON;',
      'DECLARE @i int = 0;',
      'WHILE @i < 2000',
      'BEGIN',
      `  INSERT INTO ${table} (id, v) VALUES (-1, 5);`,
      '  SET @i += 1;',
      'END',
      `INSERT INTO ${table} (id, v) VALUES (-1, 5);`,
      'SET @i = 0;',
      'WHILE @i < 2000',
      'BEGIN',
      `  UPDATE ${table} SET v = 6 WHERE id = -2;`,
      '  SET @i += 1;',
      'END',
      `INSERT INTO ${table} (id, v) VALUES (-3, 7);`,
      `INSERT INTO ${table} (id, v) VALUES (-3, 7);`,
      '',
    ].join('\n');
    const run = await profileRun({ connections: source(), batches: analyze(script).batches });
    const a = run.statementAttribution!;
    assert.equal(a.status, 'measured', a.reason ?? '');
    // 4,000 statements of the UPDATE loop push the INSERTs out of the 1 MB ring buffer: their hash (lines 5 and 8,
    // one text) is counted exactly but never seen, so its line is unknown.
    const early = run.statements!.find((x) => x.located === false)!;
    assert.ok(early, JSON.stringify(run.statements!.map((x) => [x.line, x.executions])));
    assert.equal(early.line, 0);
    assert.equal(early.executions, 2001);
    assert.equal(early.writelogWaits, 2001);
    assert.match(early.text, /^not located \(query_hash \d+\)$/);
    assert.deepEqual(early.notMeasured, ['durationMs', 'rows']);
    assert.equal(early.durationMs, null, 'not measured is null in the JSON, never 0');
    assert.equal(early.rows, null);
    assert.ok(a.notes.some((n) => /never appeared in the sample/.test(n)), a.notes.join(' | '));
    const last = run.statements!.find((x) => x.line === 15)!;
    assert.deepEqual(last.sharedLines, [15, 16]);
    assert.equal(last.executions, 2);
    assert.ok(a.notes.some((n) => /lines 15, 16/.test(n)), a.notes.join(' | '));
    assert.equal(run.statements!.find((x) => x.line === 12)!.executions, 2000);
    assert.equal(a.attributedWritelogWaits! + a.unattributedWritelogWaits!, run.sessionWaits.find((w) => w.waitType === 'WRITELOG')!.waitingTasks);
  });

  it('a script with the session-param marker (sent through sp_executesql) maps its statements to the file\'s lines', async () => {
    const script = [
      '-- durability-lens: session-param @session',
      'SET NOCOUNT ON;',
      'DECLARE @i int = 0;',
      'WHILE @i < 300',
      'BEGIN',
      `  INSERT INTO ${table} (id, v) VALUES (@session * 100000 + @i, 0);`,
      '  SET @i += 1;',
      'END',
      '',
    ].join('\n');
    const run = await profileRun({ connections: source(), batches: analyze(script).batches });
    const a = run.statementAttribution!;
    assert.equal(a.status, 'measured', a.reason ?? '');
    const insert = run.statements!.find((x) => x.line === 6)!;
    assert.ok(insert, JSON.stringify(run.statements!.map((x) => [x.line, x.text, x.executions])));
    assert.equal(insert.executions, 300);
    assert.equal(insert.text, `INSERT INTO ${table} (id, v) VALUES (@session * 100000 + @i, 0)`);
    const total = run.sessionWaits.find((w) => w.waitType === 'WRITELOG')!.waitingTasks;
    assert.ok(insert.writelogWaits! / total >= 0.9, `${insert.writelogWaits} of ${total}`);
  });

  it('a comparison traces no statements (it would blur the elapsed times compared) and says so', async () => {
    const result = await runComparison({
      connections: source(),
      batches: analyze(loopThenUpdate(20, table)).batches,
      repetitions: 1,
      warmup: false,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: () => true,
    });
    assert.equal(result.status, 'completed', result.error?.message);
    for (const run of result.runs) {
      assert.deepEqual(run.statements, []);
      assert.equal(run.statementAttribution!.reason, STATEMENTS_OFF_IN_COMPARISON);
    }
    assert.deepEqual((await t.state()).eventSessions, []);
  });

  it('without permission to create event sessions, statements are not measured and say which GRANT', async function () {
    t.standinOnly(this, 'refuses CREATE EVENT SESSION (stand-in faults)');
    const h = { engine: t.standin! };
    h.engine.faults.createEventSessionDenied = true;
    try {
      const run = await profileRun({ connections: source(), batches: analyze(loopThenUpdate(5, table)).batches });
      assert.deepEqual(run.statements, []);
      assert.equal(run.statementAttribution!.status, 'not-measured');
      const missing = run.missing.find((m) => m.measurement === 'statementAttribution')!;
      assert.match(missing.grant ?? '', /GRANT .*EVENT SESSION/);
      assert.deepEqual((await t.state()).eventSessions, []);
    } finally {
      h.engine.faults.createEventSessionDenied = false;
    }
  });
});
