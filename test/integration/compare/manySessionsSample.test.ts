// samples/s1-many-sessions.sql, as shipped (its loop scaled down), is a one-click concurrency sweep: S1's open question
// ("concurrency: many sessions inserting"), on the suite's server (useTestServer). Bounds are physical: one flush per
// commit on one session, fewer with four.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, profileRun, runComparison } from '../../../src/profile';
import { buildConcurrencyModel } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { withTables } from '../samples';

const SAMPLE = join(__dirname, '../../../samples/s1-many-sessions.sql');

function scaledSample(rows: number, table: string): string {
  const text = readFileSync(SAMPLE, 'utf8');
  const loop = /WHILE @i < 1000\b/;
  if (!loop.test(text)) throw new Error('samples/s1-many-sessions.sql no longer loops "WHILE @i < 1000": update scaledSample');
  return withTables(text.replace(loop, `WHILE @i < ${rows}`), { ManySessionsInsert: table });
}

describe('integration: the many-sessions sample', function () {
  this.timeout(120000);
  const h = useTestServer();
  const table = h.table('many_sessions');
  async function rowsPerSession(): Promise<number[][]> {
    const s = await h.connect();
    try {
      return (await s.query(`SELECT session_no, COUNT(*) AS n FROM ${table} GROUP BY session_no ORDER BY session_no`)).map((r) => [Number(r.session_no), Number(r.n)]);
    } finally {
      await s.close();
    }
  }

  it('runs as a sweep over 1 and 4 sessions: each session inserts its own rows, flushes per commit fall with 4 sessions', async () => {
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    const analysis = analyze(scaledSample(60, table));
    const before = await h.state();
    // The loop's INSERT is what the sample is about: each iteration commits on its own.
    assert.deepEqual(analysis.diagnostics.map((d) => d.code), ['autocommit-dml-in-loop']);
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analysis.batches,
      repetitions: 1,
      journal,
      confirm: () => true,
      sessions: [1, 4],
      modes: ['DISABLED'],
      warmup: false,
    });
    assert.equal(result.status, "completed", JSON.stringify(result.error ?? result.runs.map((r) => r.errors)));
    const model = buildConcurrencyModel(result.runs)!;
    const at = (n: number) => model.points.find((p) => p.sessions === n && p.mode === 'DISABLED')!;
    assert.ok(Math.abs(at(1).flushesPerCommit! - 1) < (h.standin ? 0.05 : 0.1), `1 session: ${at(1).flushesPerCommit} flushes per commit`);
    assert.ok(at(4).flushesPerCommit! < at(1).flushesPerCommit!, `4 sessions: ${at(4).flushesPerCommit} flushes per commit`);
    // The setup re-ran before the 4-session run: the table holds that run's rows, 60 per session number.
    assert.deepEqual(await rowsPerSession(), [[1, 60], [2, 60], [3, 60], [4, 60]]);
    assert.deepEqual(await journal.list(), []);
    await h.connectionsClosed();
    assert.deepEqual(await h.state(), { setting: before.setting, eventSessions: [] });
  });

  it('profiles on one session with the marker in the header (setup part): @session is 1, not undeclared', async () => {
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(scaledSample(25, table)).batches });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.deepEqual(run.errors, []);
    assert.deepEqual(await rowsPerSession(), [[1, 25]]);
  });
});
