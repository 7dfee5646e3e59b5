import { strict as assert } from 'node:assert';
import { buildComparisonModel } from '../../../src/report/comparison';
import { csvCell, formatFromPath, formatRatio, formatValue, toCsv, toJson, toMarkdown } from '../../../src/report/export';
import { makeRun } from './runFixture';

describe('report exporters', () => {
  it('neutralises CSV formula injection with a leading apostrophe and quotes where needed', () => {
    assert.equal(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
    assert.equal(csvCell('+1'), "'+1");
    assert.equal(csvCell('-2'), "'-2");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tx'), "'\tx");
    assert.equal(csvCell('\rx'), `"'\rx"`);
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell(-3.5), '-3.5', 'numbers are data, not formulas');
    assert.equal(csvCell(null), '');
  });

  it('writes one CSV line per metric and mode with the ratio against the baseline', () => {
    const model = buildComparisonModel([makeRun({ mode: 'DISABLED', elapsedMs: 1000 }), makeRun({ mode: 'FORCED', elapsedMs: 250 })]);
    const lines = toCsv(model).trimEnd().split('\r\n');
    assert.equal(lines.length, 1 + model.rows.length * 2);
    assert.equal(lines[0], 'source,metric_id,metric,unit,column,runs,median,min,max,baseline,ratio,ratio_min,ratio_max,change,verdict,inconclusive,conclusive,conclusive_why,not_measured');
    assert.equal(lines[2], 'sql-server,elapsed,Workload elapsed,ms,FORCED,1,250,250,250,DISABLED,0.25,0.25,0.25,decrease,better,false,false,"indicative (one run per mode): a single run has no spread to judge noise by; repeat for a range: the ""Compare: Repetitions"" setting, or --repeat N on the command line (at least 2 runs per mode)",');
  });

  it('a figure whose source was not measured reads "not measured" with why and GRANT in Markdown, CSV and JSON, never 0 (issue 11)', () => {
    const run = makeRun({ mode: null, log: { writes: 0, bytes: 0, stallMs: 0 } });
    const grant = 'USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];';
    const fileStats = { status: 'unavailable' as const, measurement: 'fileStats' as const, cause: 'empty' as const, reason: 'Not measured: per-file IO: sys.master_files shows this login no files.', grant, errorNumber: null };
    const unmeasured = { ...run, diff: { ...run.diff, files: fileStats }, files: [], missing: [{ measurement: 'fileStats', reason: fileStats.reason, grant }] };
    const model = buildComparisonModel([unmeasured]);
    const logWrites = model.rows.find((r) => r.id === 'log.writes')!;
    assert.deepEqual(logWrites.notMeasured, { measurement: 'fileStats', reason: fileStats.reason, grant });
    assert.equal(logWrites.cells.RUN, null);
    const md = toMarkdown(model);
    assert.match(md, /\| Log writes \| not measured \|/);
    assert.doesNotMatch(md, /\| Log writes \| 0 \|/);
    assert.match(md, /## Not measured\n\n- Not measured: per-file IO: .* To enable: `USE \[master\]; GRANT VIEW ANY DEFINITION TO \[lens\];`/);
    const csvLine = toCsv(model).split('\r\n').find((l) => l.includes(',log.writes,'))!;
    assert.match(csvLine, /,RUN,0,,,,RUN,,,,,,,,,Not measured: per-file IO: .* To enable: USE \[master\]; GRANT VIEW ANY DEFINITION TO \[lens\];$/);
    const json = JSON.parse(toJson(model));
    assert.equal(json.model.rows.find((r: { id: string }) => r.id === 'log.writes').notMeasured.grant, grant);
    // A measured source keeps its figures: the elapsed row is measured.
    assert.equal(model.rows.find((r) => r.id === 'elapsed')!.notMeasured, null);
  });

  it('labels stand-in figures in Markdown, CSV and JSON', () => {
    const model = buildComparisonModel([makeRun({ mode: 'DISABLED', source: 'stand-in' })]);
    const md = toMarkdown(model);
    assert.match(md, /^> \*\*Stand-in figures/m);
    assert.match(toCsv(model).split('\r\n')[1]!, /^stand-in \(simulated\),/);
    assert.equal(JSON.parse(toJson(model)).model.source, 'stand-in');
  });

  it('renders the Markdown table with medians, ranges, arrows and escaped pipes', () => {
    const model = buildComparisonModel([
      makeRun({ mode: 'DISABLED', elapsedMs: 1000 }),
      makeRun({ mode: 'DISABLED', elapsedMs: 1200 }),
      makeRun({ mode: 'FORCED', elapsedMs: 100 }),
      makeRun({ mode: 'FORCED', elapsedMs: 120 }),
    ]);
    const md = toMarkdown(model, 'A | B');
    assert.match(md, /^# A \\\| B$/m);
    // A 10× speed-up reads as one: "10.0× faster", never "↓ ×0.1" (issue 20).
    assert.match(md, /^\| Workload elapsed \| 1\.10 s \(1\.00 s – 1\.20 s\) \| 110 ms \(100 ms – 120 ms\) \| 10\.0× faster \[8\.3×–12\.0×\] better \|$/m);
    assert.match(md, /^\| Log writes \| 100 \| 100 \| → same \|$/m);
  });

  it('formats units and tiny ratios readably', () => {
    // Binary units, labelled as binary: one formatter for the panel, the exports and the CLI.
    assert.equal(formatValue(42.41 * 1024 * 1024, 'bytes'), '42.41 MiB');
    assert.equal(formatValue(5099 * 1024 * 1024, 'bytes'), '4.98 GiB');
    assert.equal(formatValue(4158, 'bytes/write'), '4.06 KiB/write');
    assert.equal(formatValue(12.5 * 1024 * 1024, 'bytes/s'), '12.50 MiB/s');
    assert.equal(formatValue(1296.3, 'ms'), '1.30 s');
    assert.equal(formatValue(95_000, 'ms'), '1 min 35 s');
    assert.equal(formatValue(42.49, 'ms'), '42.5 ms');
    assert.equal(formatValue(10694, 'count'), '10,694');
    assert.equal(formatRatio(124 / 10694), '0.012');
    assert.equal(formatRatio(0), '0');
    assert.equal(formatFromPath('r.CSV'), 'csv');
    assert.equal(formatFromPath('r.txt'), null);
  });

  it('adds a "Not measured" section with the GRANT on one line', () => {
    const run = makeRun({ mode: 'DISABLED' });
    run.missing = [{ measurement: 'extendedEvents', reason: 'No log-flush trace.', grant: 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [lens];' }];
    const md = toMarkdown(buildComparisonModel([run]));
    assert.match(md, /^## Not measured\n\n- No log-flush trace\. To enable: `USE \[master\]; GRANT ALTER ANY EVENT SESSION TO \[lens\];`$/m);
  });
});
