// `durability-lens top-log` end to end (issue 30, "Done when"): two workloads — a procedure committing row by row and
// one batched transaction — then `top-log --json` ranks the per-row one first by executions committing alone, and its
// per-execution log bytes agree with the stand-in's own log (within 10 %). Read-only: Query Store's options are the same
// afterwards, and the read costs three round trips. Figures asserted exactly are the stand-in model's.
import { strict as assert } from 'node:assert';
import { EXIT } from '../../../src/cli/commands/shared';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { routineProductions, type TopLogDocument } from '../../../src/report/topLog';
import { labVersusProduction } from '../../../src/report/topLogText';
import { documentOf, topLogCli } from './cli';
import { queryStoreOf } from '../../standin/model/queryStore';
import { useTestServer } from '../support';

const ROWS = 300;

describe('integration: top-log ranks production history from Query Store', function () {
  this.timeout(60_000);
  const t = useTestServer();
  let perRow: string;
  let batched: string;
  let rowTable: string;
  let batchTable: string;
  /** The stand-in's own log growth (bytes generated) during each workload: what Query Store must agree with. */
  const logGrowth = { perRow: 0, batched: 0 };

  before(async function () {
    perRow = t.procedure('qs_row_by_row');
    batched = t.procedure('qs_batched');
    rowTable = t.table('qs_rows');
    batchTable = t.table('qs_batch');
    const s = await t.connect('workload');
    try {
      const probe = await t.connect('monitor');
      const options = (await probe.query('SELECT actual_state_desc FROM sys.database_query_store_options;').catch(() => []))[0];
      await probe.close();
      if (t.kind === 'given' && options?.actual_state_desc !== 'READ_WRITE') {
        // Nothing to rank there (the refusal suites cover those states on the stand-in): each title says why.
        const why = options ? `its Query Store is ${String(options.actual_state_desc)}` : 'this login cannot read its Query Store';
        for (const test of this.test!.parent!.tests) test.title += ` — skipped on the given server: ${why}`;
        this.skip();
      }
      await s.execute(`CREATE TABLE ${rowTable} (id int IDENTITY(1,1) PRIMARY KEY, v int NOT NULL);`);
      await s.execute(`CREATE TABLE ${batchTable} (id int IDENTITY(1,1) PRIMARY KEY, v int NOT NULL);`);
      await s.execute(`CREATE PROCEDURE ${perRow} @rows int AS
BEGIN
  SET NOCOUNT ON;
  DECLARE @i int = 0;
  WHILE @i < @rows
  BEGIN
    INSERT INTO ${rowTable} (v) VALUES (@i);
    SET @i += 1;
  END
END`);
      await s.execute(`CREATE PROCEDURE ${batched} @rows int AS
BEGIN
  SET NOCOUNT ON;
  DECLARE @i int = 0;
  BEGIN TRANSACTION;
  WHILE @i < @rows
  BEGIN
    INSERT INTO ${batchTable} (v) VALUES (@i);
    SET @i += 1;
  END
  COMMIT TRANSACTION;
END`);
      const lab = () => t.standin?.state.dbByName(t.database)?.log.endLsn ?? 0;
      const before1 = lab();
      await s.execute(`EXEC ${perRow} @rows = ${ROWS};`);
      logGrowth.perRow = lab() - before1;
      const before2 = lab();
      await s.execute(`EXEC ${batched} @rows = ${ROWS};`);
      logGrowth.batched = lab() - before2;
    } finally {
      await s.close();
    }
  });

  // On a given server other suites' history competes for the rows: read as many as top-log returns.
  const cli = (...extra: string[]) => topLogCli(t.cliConnection(), t.cliEnv(), ...extra, ...(t.kind === 'given' && !extra.includes('--top') ? ['--top', '200'] : []));
  const nameOf = (qualified: string) => qualified.split('.').pop()!;
  /**
   * The rows to rank among: all of them on the suite's own stand-in; on a given server (shared by the whole suite, or a
   * real test database with its history) only this file's two procedures, since other suites' loops are history too.
   */
  const ranked = (doc: TopLogDocument) => (t.kind === 'given'
    ? doc.rows.filter((r) => [perRow, batched].some((p) => r.object?.name?.toLowerCase() === nameOf(p).toLowerCase()))
    : doc.rows);
  const rowOf = (doc: TopLogDocument, procedure: string) => doc.rows.find((r) => r.object?.name?.toLowerCase() === nameOf(procedure).toLowerCase() && /^\s*INSERT\b/i.test(r.text));

  it('ranks the commit-per-row procedure first by executions that each commit on their own', async () => {
    const o = await cli('--json', '--by', 'alone', '--hours', '1');
    assert.equal(o.code, EXIT.ok, o.err);
    const doc = documentOf(o);
    assert.equal(doc.queryStore.outcome, 'ready');
    assert.equal(doc.ranking.requested, 'alone');
    assert.equal(doc.ranking.used, 'alone');
    const first = ranked(doc)[0]!;
    assert.equal(first.object?.name?.toLowerCase(), nameOf(perRow).toLowerCase(), `first row: ${first.objectLabel} ${first.text}`);
    assert.match(first.text, /^INSERT INTO/i);
    assert.equal(first.executions, ROWS);
    const batchRow = rowOf(doc, batched);
    assert.ok(batchRow, 'the batched procedure\'s INSERT is listed too');
    assert.equal(batchRow.executions, ROWS);
    assert.ok(batchRow.rank > first.rank);
    assert.ok(first.commitsAloneScore > 10 * batchRow.commitsAloneScore, `scores ${first.commitsAloneScore} vs ${batchRow.commitsAloneScore}`);
    assert.ok(first.logWaitMs !== null && first.logWaitMs > 0, 'the per-row INSERT waited on the log');
    assert.match(doc.ranking.note ?? '', /commit on their own = executions × the share of their duration spent waiting on the log/);
  });

  it('reports per-execution log bytes within 10 % of the stand-in\'s own log counters', async function () {
    t.standinOnly(this, 'compares with the stand-in model\'s own log counters');
    const doc = documentOf(await cli('--json', '--by', 'log', '--hours', '1'));
    const row = rowOf(doc, perRow)!;
    const batch = rowOf(doc, batched)!;
    // The stand-in's log per autocommit INSERT: begin + row + commit records, all inside the statement.
    const expectedPerRow = logGrowth.perRow / ROWS;
    assert.ok(Math.abs(row.logBytesPerExecution! - expectedPerRow) <= 0.1 * expectedPerRow, `per-row: Query Store ${row.logBytesPerExecution} vs log ${expectedPerRow}`);
    // The batched INSERTs wrote their rows; the one COMMIT (not a query) wrote the rest of that workload's log.
    const expectedBatched = logGrowth.batched / ROWS;
    assert.ok(Math.abs(batch.logBytesPerExecution! - expectedBatched) <= 0.1 * expectedBatched, `batched: Query Store ${batch.logBytesPerExecution} vs log ${expectedBatched}`);
    assert.equal(doc.source, 'stand-in');
    assert.ok(doc.rows[0]!.logBytes! >= doc.rows[1]!.logBytes!, 'ranked by total log bytes');
  });

  it('--by wait puts the statement that waited on the log first and shows the share of its waits on the log', async () => {
    const doc = documentOf(await cli('--json', '--by', 'wait', '--hours', '1'));
    assert.equal(doc.ranking.used, 'wait');
    const first = ranked(doc)[0]!;
    assert.equal(first.object?.name?.toLowerCase(), nameOf(perRow).toLowerCase());
    assert.ok(first.logWaitShare !== null && first.logWaitShare > 0.5, `share ${first.logWaitShare}`);
    assert.equal(doc.waitsNotMeasured, null);
  });

  it('reads without changing anything, in three round trips, with the rows bounded by --top', async function () {
    t.standinOnly(this, 'counts round trips on the stand-in\'s TCP server and reads its Query Store state');
    const lab = t.standin!.state.dbByName(t.database)!;
    const optionsBefore = JSON.stringify(queryStoreOf(t.standin!.state, lab).options);
    // What opening a monitor connection costs by itself (the driver's own checks), to count ours on top of it.
    t.standinServer!.resetConnectionStats();
    await (await t.connect('monitor')).close();
    await t.connectionsClosed();
    const opening = t.standinServer!.connectionStats()[0]!.requests;
    t.standinServer!.resetConnectionStats();
    const doc = documentOf(await cli('--json', '--top', '2'));
    assert.equal(doc.rows.length, 2);
    assert.equal(doc.top, 2);
    const stats = t.standinServer!.connectionStats();
    assert.equal(stats.length, 1, 'one connection (monitor)');
    assert.equal(stats[0]!.requests - opening, 3, 'identity, state (permission + options + coverage), ranking + totals');
    assert.equal(JSON.stringify(queryStoreOf(t.standin!.state, lab).options), optionsBefore);
    await t.connectionsClosed();
  });

  it('lab vs production: a profile of the routine puts its per-execution log and log wait next to production\'s', async function () {
    const doc = documentOf(await cli('--json', '--hours', '1'));
    const production = routineProductions(doc).find((p) => p.name.toLowerCase() === nameOf(perRow).toLowerCase());
    assert.ok(production, 'the per-row routine has production figures');
    const run = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: [{ text: `EXEC ${perRow} @rows = 100;`, repeat: 1, firstLine: 0 }] });
    const c = labVersusProduction(production, run);
    assert.equal(c.labWritingExecutions, 100, c.notes.join(' '));
    const [log, wait] = c.rows;
    assert.ok(log!.lab !== null && log!.production !== null, c.summary);
    assert.ok(wait!.lab !== null && wait!.production !== null, c.summary);
    if (t.standin) {
      // The same statement, the same model: the lab reproduces production (log per execution within 10 %).
      assert.ok(Math.abs(log!.lab! - log!.production!) <= 0.1 * log!.production!, c.summary);
    }
    assert.match(c.summary, /^Lab vs production \((stand-in figures, )?per writing execution\): log .+ vs .+ · log wait .+ vs .+$/);
  });

  it('prints a text report naming the procedure, its statement and its figures', async () => {
    const o = await cli('--hours', '1', '--by', 'alone');
    assert.equal(o.code, EXIT.ok, o.err);
    assert.match(o.out, /Heaviest log writers in /);
    // First on the suite's own stand-in; on a given server other suites' loops may come first (see ranked above).
    const rank = t.kind === 'given' ? '\\d+' : '1';
    const line = new RegExp(`${rank}\\. dbo\\.${nameOf(perRow)} — INSERT INTO.*\\n(.*)`, 'i').exec(o.out);
    assert.ok(line, `no row for dbo.${nameOf(perRow)} in:\n${o.out}`);
    assert.match(line[1]!, /exec( \([^)]*\/day\))? · .* log \(.*\/exec\) · .* log wait/);
  });
});
