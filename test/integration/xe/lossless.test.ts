// Issue #12 end to end on the suite's server (useTestServer): the log-flush trace counts exactly however long the run
// (event_counter, histogram), the ring buffer is only a labelled timeline sample, event_file runs read only their own
// files (in-process stand-in only: event files outlive the run), and the shipped samples S1–S4 produce a trace that
// agrees with the counters and the file statistics. Equalities to the byte are the model's; a given server gets the
// product's own agreement checks.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/commands/shared';
import { processIO } from '../../../src/cli/io';
import { profileConnectionSource, profileRun, type RunResult } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { TEST_PASSWORD_ENV, useTestServer } from '../support';
import { s1Script, sample, scaled, withTables } from '../samples';

/** The log file's average bytes per write, as the metrics row computes it (sys.dm_io_virtual_file_stats). */
function logAverage(run: RunResult): number {
  const model = buildComparisonModel([run]);
  return rowById(model, 'log.avgBytesPerWrite')!.cells[model.columns[0]!]!.median!;
}

describe('integration: lossless log-flush tracing', function () {
  this.timeout(300000);
  const h = useTestServer();
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-lossless-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('profile --json of 10,000 autocommit inserts: exact flushes equal the counter, nothing lost, the timeline says what it covers', async () => {
    await writeFile(join(dir, 's1.sql'), s1Script(10_000, h.table('lossless_s1')));
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ 'durabilityLens.connections': [h.settingsConnection('Standin')] }));
    const out: string[] = [];
    const err: string[] = [];
    const io = { ...processIO(), cwd: dir, userSettings: join(dir, 'none.json'), env: { DURABILITY_LENS_PASSWORD: h.secret, [TEST_PASSWORD_ENV]: h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const code = await runCli(['profile', '--connection', 'standin', '--settings', join(dir, 'settings.json'), '--file', join(dir, 's1.sql'), '--json', '--yes', '--journal', join(dir, 'j.json')], io);
    assert.equal(code, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join('')) as RunResult;
    const t = run.logFlushTrace!;
    assert.ok(t, JSON.stringify(run.missing));
    const counter = run.logCounters.logFlushes!;
    assert.ok(counter >= 10_000, `counter ${counter}`);
    assert.equal(t.countSource, 'event_counter');
    assert.ok(Math.abs(t.flushes! - counter) <= counter * 0.01, `XE ${t.flushes} vs counter ${counter}`);
    assert.equal(t.lostEvents, 0);
    assert.equal(t.histogram!.notBucketed, 0);
    assert.equal(t.histogram!.bucketed, t.eventsByName[t.histogram!.event]);
    assert.equal(t.counterCrossCheck!.agrees, true);
    assert.equal(t.flushesPerCommit, t.flushes! / t.commitCount!);
    // Latencies from the companion session's histogram: every log_flush_complete, not the sample's tail.
    assert.equal(t.latencySource, 'histogram');
    assert.equal(t.latencyFlushes, t.eventsByName.log_flush_complete);
    assert.equal(t.latencyNotBucketed, 0);
    // The ring buffer could not hold 30,000 events: the timeline is a sample of the last flushes, and says so.
    const c = t.timeline.coverage!;
    assert.equal(c.complete, false);
    assert.equal(c.flushesTotal, t.flushes);
    assert.ok(c.flushesInSample > 0 && c.flushesInSample < t.flushes!, JSON.stringify(c));
    assert.equal(t.timeline.counts.reduce((a, b) => a + b, 0), c.flushesInSample);
    assert.match(c.label, new RegExp(`of ${t.flushes!.toLocaleString('en-US')} flushes`));
    assert.ok(t.lost.evicted > 0, 'the sample is labelled with its own loss');
    await h.connectionsClosed();
    assert.deepEqual((await h.state()).eventSessions, []);
  });

  it('three event_file runs in a row report the same flush count, each reading only its own files', async function () {
    h.standinOnly(this, 'event files stay on the server after the run (T-SQL cannot delete them); reads the stand-in\'s file store');
    const script = s1Script(50, h.table('lossless_files'));
    const runs: RunResult[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push(await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(script).batches, xe: { target: { kind: 'event_file', path: 'lens_lossless.xel' } } }));
    }
    const flushes = runs.map((r) => r.logFlushTrace!.flushes);
    assert.deepEqual(flushes, [flushes[0], flushes[0], flushes[0]], JSON.stringify(flushes));
    assert.equal(flushes[0], runs[0]!.logCounters.logFlushes);
    for (const r of runs) {
      const t = r.logFlushTrace!;
      assert.equal(t.target, 'event_file');
      // The full stream: the timeline draws every flush the counter counted, from this run's files only.
      assert.equal(t.timeline.coverage!.complete, true);
      assert.equal(t.timeline.counts.reduce((a, b) => a + b, 0), t.flushes);
      assert.equal(t.eventFiles!.files.length, 1);
      assert.ok(t.eventFiles!.files[0]!.includes(`lens_lossless_${t.sessionName}-`), t.eventFiles!.files[0]);
      assert.ok(t.notes.some((n) => n.includes('stay on the server after the session is dropped') && n.includes(t.eventFiles!.files[0]!)), t.notes.join('\n'));
    }
    // Every run's file is still on the server (DROP EVENT SESSION leaves them), which is why each run reads only its own.
    // (The per-statement session of each run, issue 16, writes its own file beside them under its own name.)
    const files = [...h.standin!.state.xeFiles.keys()].filter((f) => f.includes('lens_lossless_'));
    assert.equal(files.filter((f) => runs.some((r) => f.includes(`lens_lossless_${r.logFlushTrace!.sessionName}-_0_`))).length, 3);
    assert.equal(files.length, 6);
  });

  describe('the shipped samples S1–S4 (scaled down): the trace agrees with the counter and with the file statistics', () => {
    // S2 reseeds with DBCC CHECKIDENT and S4 runs CHECKPOINT: statements Learn reserves for owners and fixed database
    // roles (README "Permissions"), which the least-privileged test login does not get.
    const cases: { name: string; file: string; replacements: [string | RegExp, string][]; tables: string[]; needsRole?: string }[] = [
      { name: 'S1 single-row inserts', file: 's1-single-row-inserts.sql', replacements: [['WHILE @i < 10000', 'WHILE @i < 3000']], tables: ['SingleRowInsert'] },
      { name: 'S2 test-suite reset', file: 's2-test-suite-reset.sql', replacements: [['WHILE @i <= 5000', 'WHILE @i <= 1500']], tables: ['Customer', 'AuditEntry', 'WriteLogProbe'], needsRole: 'DBCC CHECKIDENT' },
      {
        name: 'S3 log flushes',
        file: 's3-log-flush-xe.sql',
        replacements: [
          [/DECLARE @rows int = 5000\b/g, 'DECLARE @rows int = 1000'],
        ],
        tables: ['FlushTest'],
      },
      {
        name: 'S4 forced flush',
        file: 's4-forced-flush.sql',
        replacements: [
          ['@iterations int = 20', '@iterations int = 3'],
          ['@rows int = 1000', '@rows int = 300'],
          ['GO 67', 'GO 3'],
        ],
        tables: ['FlushPath'],
        needsRole: 'CHECKPOINT',
      },
    ];
    for (const c of cases) {
      it(`${c.name}: no DISAGREES, and the histogram's average flush size equals the log file's bytes per write`, async function () {
        if (c.needsRole) h.standinOnly(this, `the sample runs ${c.needsRole}, which the least-privileged login may not`);
        const renamed = Object.fromEntries(c.tables.map((t) => [t, h.table(`${c.file.slice(0, 2)}_${t.toLowerCase()}`)]));
        const script = withTables(scaled(sample(c.file), c.replacements, c.file), renamed);
        const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(script).batches, sampling: { enabled: false } });
        assert.equal(run.status, 'completed', JSON.stringify(run.errors));
        const t = run.logFlushTrace!;
        assert.ok(t, JSON.stringify(run.missing));
        assert.equal(t.counterCrossCheck!.agrees, true, JSON.stringify(t.counterCrossCheck));
        assert.equal(t.lostEvents, 0);
        assert.equal(t.sizeHistogram!.source, 'histogram');
        assert.equal(t.sizeHistogram!.counts.reduce((a, b) => a + b, 0), t.histogram!.bucketed);
        const metricsAverage = logAverage(run);
        if (h.standin) {
          assert.equal(t.flushes, run.logCounters.logFlushes);
          assert.equal(t.bytes, run.logCounters.logBytesFlushed);
          assert.ok(Math.abs(t.averageFlushBytes! - metricsAverage) <= 1, `histogram ${t.averageFlushBytes} vs metrics ${metricsAverage}`);
        } else {
          // Three sources of one quantity on a server: the trace, the counter, the log file's writes.
          const within = (a: number, b: number, share: number) => Math.abs(a - b) <= Math.max(a, b) * share;
          assert.ok(within(t.bytes!, run.logCounters.logBytesFlushed!, 0.1), `trace bytes ${t.bytes} vs counter ${run.logCounters.logBytesFlushed}`);
          assert.ok(within(t.averageFlushBytes!, metricsAverage, 0.1), `histogram ${t.averageFlushBytes} vs log file ${metricsAverage}`);
        }
        const md = (await import('../../../src/report')).toMarkdown(buildComparisonModel([run]));
        assert.doesNotMatch(md, /DISAGREES/);
      });
    }
  });
});
