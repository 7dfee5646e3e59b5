import * as assert from 'node:assert/strict';
import { chartsFrom, exportText, panelDataFromRun } from '../../../src/extension/panel/panelData';
import type { RunResult } from '../../../src/profile/types';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { makeRun } from '../report/runFixture';

function withTrace(run: RunResult, counts: number[], timeline: number[]): RunResult {
  run.logFlushTrace = {
    ...(run.logFlushTrace ?? ({} as LogFlushTrace)),
    sizeHistogram: { edgesBytes: [512, 4096], labels: ['<512 B', '512 B–4 KB', '≥4 KB'], counts },
    timeline: { bucketMs: 50, startUtc: null, counts: timeline },
  } as LogFlushTrace;
  return run;
}

describe('extension/panelData', () => {
  it('sums flush-size histograms per mode and takes the first run of each mode for the timeline', () => {
    const runs = [
      withTrace(makeRun({ mode: 'DISABLED', warmup: true, flushesXe: 1 }), [100, 100, 100], [9, 9]),
      withTrace(makeRun({ mode: 'DISABLED', flushesXe: 10 }), [1, 2, 3], [4, 5, 6]),
      withTrace(makeRun({ mode: 'FORCED', flushesXe: 2 }), [0, 0, 1], [1]),
      withTrace(makeRun({ mode: 'DISABLED', flushesXe: 10 }), [10, 20, 30], [7]),
    ];
    const charts = chartsFrom(runs, ['DISABLED', 'FORCED']);
    assert.deepEqual(charts.flushSizes, {
      labels: ['<512 B', '512 B–4 KB', '≥4 KB'],
      series: [
        { label: 'DISABLED', values: [11, 22, 33] },
        { label: 'FORCED', values: [0, 0, 1] },
      ],
      // Each mode's chart says where its counts come from (these fixtures carry no source: a sample).
      sources: ['DISABLED: sampled flushes only (ring buffer)', 'FORCED: sampled flushes only (ring buffer)'],
    });
    assert.deepEqual(charts.flushTimeline, {
      bucketMs: 50,
      series: [{ label: 'DISABLED', values: [4, 5, 6] }, { label: 'FORCED', values: [1] }],
      coverage: ['DISABLED: coverage not recorded', 'FORCED: coverage not recorded'],
    });
    assert.deepEqual(charts.elapsedMs.map((s) => s.values.length), [2, 2]);
    assert.deepEqual(charts.elapsedMs[1]!.values, [1000, null]);
  });

  it('labels the size chart exact (server histogram) and the timeline with its coverage', () => {
    const run = withTrace(makeRun({ mode: 'DISABLED', flushesXe: 10 }), [1, 2, 3], [4, 5]);
    run.logFlushTrace!.sizeHistogram!.source = 'histogram';
    run.logFlushTrace!.sizeHistogram!.notBucketed = 0;
    run.logFlushTrace!.timeline.coverage = { source: 'ring_buffer', flushesInSample: 9, flushesTotal: 10, complete: false, part: 'last', firstUtc: null, lastUtc: null, label: 'sample: the last 9 of 10 flushes' };
    const charts = chartsFrom([run], ['DISABLED']);
    assert.deepEqual(charts.flushSizes!.sources, ['DISABLED: every flush (server histogram, exact)']);
    assert.deepEqual(charts.flushTimeline!.coverage, ['DISABLED: sample: the last 9 of 10 flushes']);
    run.logFlushTrace!.sizeHistogram!.notBucketed = 4;
    assert.deepEqual(chartsFrom([run], ['DISABLED']).flushSizes!.sources, ['DISABLED: server histogram, 4 flushes not bucketed (slots full)']);
  });

  it('without a trace there is no histogram or timeline', () => {
    const charts = chartsFrom([makeRun({ mode: 'DISABLED' })], ['DISABLED']);
    assert.equal(charts.flushSizes, null);
    assert.equal(charts.flushTimeline, null);
  });

  it('exports carry the stand-in label, and CSV neutralises formula injection', () => {
    const run = makeRun({ mode: null, source: 'stand-in', waits: { '=HYPERLINK("x")': { count: 1, ms: 50 } } });
    const data = panelDataFromRun(run, 'sql1');
    const md = exportText(data, 'markdown');
    assert.ok(md.startsWith(`# ${data.title}`));
    assert.ok(md.includes('Stand-in figures'));
    const csv = exportText(data, 'csv');
    assert.ok(!/(^|,)=HYPERLINK/m.test(csv), 'no cell starts with =');
    // The wait type (upper-cased by the report) becomes a row label: quoted and prefixed with an apostrophe.
    assert.ok(csv.includes('"\'=HYPERLINK(""X"") wait time (session)"'), csv.split('\r\n').find((l) => l.includes('HYPERLINK')));
    const json = JSON.parse(exportText(data, 'json'));
    assert.equal(json.title, data.title);
    assert.equal(json.model.sourceLabel, data.standInLabel);
  });
});
