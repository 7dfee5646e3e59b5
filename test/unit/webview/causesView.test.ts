// The panel's side of issue 29: the verdict opens with the dominant cause and whether delayed durability is the lever,
// and the Diagnosis tab lists every cause with its evidence (text nodes only).
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { notApplicable, ok } from '../../../src/probes/measurement';
import { renderPanel, TAB_TITLES, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import { makeRun } from '../report/runFixture';

function find(node: VNode, pred: (e: VElement) => boolean, out: VElement[] = []): VElement[] {
  if (typeof node === 'string') return out;
  if (pred(node)) out.push(node);
  for (const c of node.children) find(c, pred, out);
  return out;
}
const text = (node: VNode): string => (typeof node === 'string' ? node : node.children.map(text).join(''));

function governedRun() {
  const r = makeRun({ commits: 100, flushesCounter: 100, waits: { LOG_RATE_GOVERNOR: { count: 100, ms: 900 }, WRITELOG: { count: 100, ms: 20 } }, log: { writes: 100, bytes: 409600, stallMs: 20 } });
  r.diff.sessionCpu = ok({ cpuMs: 80 });
  r.commitPath = {
    logRateGovernance: ok({ serviceObjective: '<script>alert(1)</script>', maxLogRateBytesPerSec: 12 * 1024 * 1024, commitFeeBytes: 0, instanceMaxLogRateBytesPerSec: null }),
    hyperscaleLogRate: notApplicable('hyperscaleLogRate', 'test'),
    inMemoryTables: notApplicable('inMemoryTables', 'test'),
  };
  return r;
}

describe('webview: causes of commit time in the verdict and the Diagnosis tab', () => {
  it("opens the verdict with the dominant cause's line before the speed-up headline", () => {
    const tree = renderPanel(panelDataFromRun(governedRun(), 'SQL1'));
    const verdict = find(tree, (e) => e.attrs.class === 'dl-verdict')[0]!;
    const first = verdict.children.find((c): c is VElement => typeof c !== 'string')!;
    assert.equal(first.attrs.class, 'dl-cause-lead dl-tone-neutral');
    assert.equal(first.attrs['data-cause'], 'log-rate-governor');
    assert.equal(text(first), "Log-rate governance caps this database at 12.00 MiB/s: 90 % of the session's time — delayed durability is not the lever, nor is batching; a higher service objective (or less log) is.");
  });

  it('lists every cause in the Diagnosis tab, the dominant one marked, server strings as text', () => {
    const tree = renderPanel(panelDataFromRun(governedRun(), 'SQL1'), TAB_TITLES.indexOf('Diagnosis'));
    const section = find(tree, (e) => e.attrs.class === 'dl-causes')[0]!;
    const causes = find(section, (e) => e.attrs['data-cause'] !== undefined && e.tag === 'li');
    assert.deepEqual(causes.map((c) => c.attrs['data-cause']), ['log-rate-governor', 'not-log', 'tiny-flushes', 'log-disk', 'group-commit', 'log-writer-limit', 'ag-sync-commit', 'hyperscale-log-service', 'tempdb']);
    assert.equal(causes[0]!.attrs.class, 'dl-cause dl-cause-dominant');
    const html = toHtml(section);
    assert.ok(html.includes('service objective &lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(!html.includes('<script>'));
  });
});
