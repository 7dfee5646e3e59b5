// S5 end to end: a profile run of samples/s5-checkdb-backup.sql with sampling against the stand-in (a database in
// eight data files on eight volumes): the series shows per-file read bytes growing while CHECKDB and BACKUP run,
// and the run's file deltas equal what the model read. Figures asserted here are the model's.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import { useTestServer, waitFor } from '../support';
import { harnessOf, type StandinHarness } from './standin';

const FILES = 8;
const SIZE_MB = 32;

function modelReads(h: StandinHarness): Map<number, number> {
  return new Map(h.engine.state.dbByName('s5')!.files.map((f) => [f.fileId, f.io.bytesRead]));
}

describe('integration: S5 CHECKDB + BACKUP profiled with sampling (stand-in only)', function () {
  this.timeout(60000);
  // speedFactor 1: the model really spends its simulated read time (8 x 32 MB at 200 MB/s per volume, ~0.2 s per
  // command), so the 50 ms sampler sees the counters part-way.
  const h = harnessOf(useTestServer({ speedFactor: 1, databases: [{ name: 's5', dataFiles: FILES, sizeMb: SIZE_MB }], standinOnly: 'needs a database in eight data files on eight volumes, and CHECKDB/BACKUP rights' }));

  it('samples per-file read bytes growing while the sample runs; the file deltas equal what the model read', async () => {
    const script = readFileSync(join(__dirname, '../../../samples/s5-checkdb-backup.sql'), 'utf8');
    const messages: Array<{ number: number; message: string }> = [];
    const before = modelReads(h);
    const run = await profileRun({
      connections: profileConnectionSource({ ...h.profile, database: 's5' }, h.secret),
      batches: analyze(script).batches,
      sampling: { intervalMs: 50 },
      xe: { enabled: false },
      onMessage: (m) => messages.push({ number: m.number, message: m.message }),
    });
    const after = modelReads(h);
    assert.equal(run.status, 'completed');
    assert.deepEqual(run.errors, []);
    assert.equal(run.batches.length, 2);

    // The run's per-file deltas are the model's reads: each data file read twice in full (CHECKDB, BACKUP).
    const dataFiles = run.files.filter((f) => f.type === 'ROWS');
    assert.equal(dataFiles.length, FILES);
    for (const f of run.files) {
      const modelled = after.get(f.fileId)! - before.get(f.fileId)!;
      assert.equal(f.bytesRead, modelled, `file ${f.fileId} (${f.logicalName})`);
    }
    for (const f of dataFiles) assert.equal(f.bytesRead, 2 * SIZE_MB * 1024 * 1024, `file ${f.fileId}`);
    assert.ok(run.files.find((f) => f.type === 'LOG')!.bytesRead > 0, 'BACKUP read the active log');

    // The series: at least two samples, read bytes per data file never go back and grow across samples.
    assert.ok(run.samples.length >= 2, `samples: ${run.samples.length}`);
    assert.equal(run.sampleIntervalMs, 50);
    for (const f of dataFiles) {
      const series = run.samples.map((s) => s.files.find((x) => x.fileId === f.fileId)?.bytesRead ?? -1);
      assert.ok(series.every((b) => b >= 0), `file ${f.fileId} missing from a sample`);
      assert.deepEqual(series, [...series].sort((a, b) => a - b), `file ${f.fileId}: ${series.join(', ')}`);
      const partial = series.filter((b) => b > 0 && b < f.bytesRead);
      assert.ok(new Set(partial).size >= 2, `file ${f.fileId}: want two part-way readings, got ${series.join(', ')}`);
      assert.ok(series[series.length - 1]! <= f.bytesRead);
    }

    // The commands' messages reached the client: CHECKDB's summary, BACKUP's per-file lines and its total.
    assert.ok(messages.some((m) => m.number === 8989 && m.message.includes("database 's5'")), JSON.stringify(messages));
    assert.equal(messages.filter((m) => m.number === 4035).length, FILES + 1);
    const total = messages.find((m) => m.number === 3014)!;
    assert.match(total.message, /^BACKUP DATABASE successfully processed \d+ pages in [\d.]+ seconds \([\d.]+ MB\/sec\)\.$/);
    await waitFor(() => h.server.connections === 0, 'both connections closed');
  });
});
