// The extension's comparison flow without VS Code, against the TDS stand-in: a stored profile → connection source,
// the editor target, the confirmation text, the globalState-style journal, panel data and the rendered panel.
// Figures here are the stand-in model's, never SQL Server evidence.
import * as assert from 'node:assert/strict';
import { toConnectionProfile, validateStoredProfile } from '../../../src/db/storedProfiles';
import { panelDataFromComparison } from '../../../src/extension/panel/panelData';
import { resolveEditorTarget } from '../../../src/extension/profiling/targets';
import { comparisonConfirmation } from '../../../src/extension/uiText';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison } from '../../../src/profile';
import { renderPanel, toHtml } from '../../../src/webview/view';
import { s1Script, serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';

describe('extension flow: compare from a stored profile (stand-in)', function () {
  this.timeout(120_000);
  let h: StandinHarness;

  before(async () => {
    h = await startStandin();
  });
  after(async () => {
    await h?.close();
  });

  it('confirms with the plan, restores the setting, and renders a labelled stand-in panel', async () => {
    const stored = validateStoredProfile({ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false });
    assert.ok(stored.ok);
    if (!stored.ok) return;
    const script = s1Script(50);
    const target = resolveEditorTarget(script, { start: 0, end: script.length }, 0)!;
    assert.equal(target.kind, 'selection');
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    let confirmation = '';
    const result = await runComparison({
      connections: profileConnectionSource(toConnectionProfile(stored.profile), h.secret),
      batches: target.batches,
      workloadHasDelayedCommits: target.hasDelayedCommits,
      repetitions: 2,
      journal,
      confirm: (plan) => {
        confirmation = comparisonConfirmation(plan, stored.profile.name).detail;
        return true;
      },
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.match(confirmation, /^Database: lab, DELAYED_DURABILITY is DISABLED now\.$/m);
    assert.match(confirmation, /stand-in, not a real SQL Server/);
    assert.deepEqual(await journal.list(), []);
    assert.equal((await serverState(h)).setting, 'DISABLED');

    const data = panelDataFromComparison(result);
    assert.equal(data.header.restore?.ok, true);
    assert.ok(data.standInLabel);
    assert.deepEqual(data.model.columns, ['DISABLED', 'FORCED']);
    assert.deepEqual(data.charts.elapsedMs.map((s) => s.values.length), [2, 2]);
    const logWrites = data.model.rows.find((r) => r.id === 'log.writes')!;
    // The stand-in's model: one log flush per autocommit insert when DISABLED, far fewer when FORCED.
    assert.ok(logWrites.cells.DISABLED!.median >= 50, `DISABLED log writes ${logWrites.cells.DISABLED!.median}`);
    assert.ok(logWrites.cells.FORCED!.median < logWrites.cells.DISABLED!.median);
    const html = toHtml(renderPanel(data));
    assert.ok(html.includes('STAND-IN'));
    assert.ok(html.includes('Original setting DISABLED restored ✓'));
  });
});
