// The panel never shows a not-measured figure as 0: the metric cell reads "not measured" and the Missing
// measurements tab gives why and the GRANT (issue 11).
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { renderPanel, toHtml } from '../../../src/webview/view';
import { ok } from '../../../src/probes/measurement';
import { makeRun } from '../report/runFixture';

describe('webview: not measured is never zero', () => {
  it('a run whose per-file IO and session waits were not measured shows "not measured", the reason and the GRANT', () => {
    const run = makeRun({ mode: null, log: { writes: 0, bytes: 0, stallMs: 0 }, sessionWaitsReadable: false });
    const grant = 'USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];';
    run.diff.files = { status: 'unavailable', measurement: 'fileStats', cause: 'empty', reason: 'Not measured: per-file IO: sys.master_files shows this login no files.', grant, errorNumber: null };
    run.files = [];
    run.database = { databaseId: 5, name: 'lab', state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: 'DISABLED', cdcEnabled: false, published: false, logReuseWait: null, inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: ok([]) };
    run.missing = [
      { measurement: 'fileStats', reason: run.diff.files.reason, grant, required: { permission: 'VIEW ANY DEFINITION', scope: 'server' } },
      { measurement: 'sessionWaits', reason: 'no permission', grant: 'x', required: { permission: 'VIEW SERVER PERFORMANCE STATE', scope: 'server' } },
    ];
    const data = panelDataFromRun(run, 'sql1,1433');
    const html = toHtml(renderPanel(data));
    const row = (label: string) => html.slice(html.indexOf(`>${label}<`), html.indexOf('</tr>', html.indexOf(`>${label}<`)));
    assert.match(row('Log writes'), /not measured/);
    assert.doesNotMatch(row('Log writes'), />0</);
    assert.match(row('WRITELOG waits (session)'), /not measured/);
    assert.match(html, /sys\.master_files shows this login no files/);
    // The GRANT is rebuilt from the structured requirement: VIEW ANY DEFINITION for the empty sys.master_files, not the
    // measurement's usual server-state permission.
    assert.match(row('fileStats'), /GRANT VIEW ANY DEFINITION TO \[lens\];/);
    assert.match(row('sessionWaits'), /GRANT VIEW SERVER PERFORMANCE STATE TO \[lens\];/);
    assert.match(data.grantScript, /GRANT VIEW ANY DEFINITION TO \[lens\];/);
  });
});
