// The panel's Consistency block (issue 33): under the verdict, open and first when a check disagrees, each check's
// status and figures as text; the disagreeing metric rows carry a marker; older data without checks shows no block.
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { reconcileRun } from '../../../src/profile/consistency';
import type { RunResult } from '../../../src/profile/types';
import { consistencySection, consistencyTally } from '../../../src/webview/consistencyView';
import { renderPanel, toHtml } from '../../../src/webview/view';
import { makeRun, type RunFigures } from '../report/runFixture';

function checked(f: RunFigures): RunResult {
  const run = makeRun(f);
  return { ...run, consistency: reconcileRun({ diff: run.diff, logFlushTrace: run.logFlushTrace, statements: [], statementAttribution: null, missing: run.missing }).checks };
}

describe('webview: Consistency block', () => {
  it('a disagreement opens the block under the verdict, comes first, and marks the flush rows', () => {
    const data = panelDataFromRun(checked({ mode: null, commits: 100, flushesCounter: 50, flushesXe: 100, log: { writes: 100, bytes: 409600, stallMs: 20 } }), 'sql1,1433');
    const html = toHtml(renderPanel(data));
    const block = html.slice(html.indexOf('<details class="dl-consistency"'), html.indexOf('</details>', html.indexOf('<details class="dl-consistency"')));
    assert.match(block, /^<details class="dl-consistency" aria-label="Consistency" open="">/);
    assert.ok(html.indexOf('dl-verdict') < html.indexOf('dl-consistency'), 'under the verdict');
    assert.match(block, /<summary><span class="dl-summary-label">Consistency<\/span><span class="dl-tone-bad"> 1 passed, 2 disagree, 4 not possible<\/span><\/summary>/);
    const items = [...block.matchAll(/<li data-check="([^"]+)" data-status="([^"]+)">/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(items.slice(0, 2), [['log-flushes:xe-vs-counter', 'disagrees'], ['log-flushes:counter-vs-file-writes', 'disagrees']]);
    assert.match(block, /DISAGREES<\/strong> — Log flushes: Extended Events count vs the Log Flushes\/sec counter: The Extended Events flush count 100 flushes, the Log Flushes\/sec counter 50 flushes: they disagree by 50\.0 %/);
    const row = (label: string) => html.slice(html.indexOf(`>${label}<`), html.indexOf('</tr>', html.indexOf(`>${label}<`)));
    assert.match(row('Log flushes (counter)'), /data-disagrees="log-flushes:xe-vs-counter log-flushes:counter-vs-file-writes"> ⚠ sources disagree<\/span>/);
    assert.doesNotMatch(row('Workload elapsed'), /sources disagree/);
  });

  it('all passing: a closed block with the tally; no checks (older data): no block at all', () => {
    const data = panelDataFromRun(checked({ mode: null, commits: 100, flushesCounter: 100, flushesXe: 100, log: { writes: 100, bytes: 409600, stallMs: 20 } }), 'sql1,1433');
    const section = consistencySection(data.model.consistency)!;
    assert.equal(section.attrs.open, undefined);
    assert.equal(consistencyTally(data.model.consistency!), '3 passed, 4 not possible');
    assert.equal(consistencySection(undefined), null);
    assert.equal(consistencySection([]), null);
    assert.ok(!toHtml(renderPanel(panelDataFromRun(makeRun({ mode: null }), 'sql1'))).includes('dl-consistency'));
  });

  it('a hostile detail stays text', () => {
    const data = panelDataFromRun(checked({ mode: null, flushesCounter: 100, flushesXe: 100 }), 'sql1');
    const items = data.model.consistency!.map((c) => ({ ...c, detail: '<img src=x onerror=alert(1)>' }));
    const html = toHtml(consistencySection(items)!);
    assert.ok(!html.includes('<img'));
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });
});
