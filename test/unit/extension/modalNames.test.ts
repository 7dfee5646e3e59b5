// What the user reads before confirming is what runs (outside attack): the consent view shows the T-SQL with bidi
// overrides and other active characters as visible escapes (Trojan Source: an RLO/LRI can make a DELETE's WHERE read as
// a comment), and names from a server or a file (database, server, file, session names) stay on their line in the
// modals that confirm a change — a name holding a line feed cannot add a line that reads like one of ours.
import * as assert from 'node:assert/strict';
import { consentMessage, consentText, partsOfWorkload, type ConsentRequest } from '../../../src/extension/consent/consentView';
import { comparisonConfirmation, restorePrompt } from '../../../src/extension/uiText';
import { alterDurabilitySql, DATA_LOSS_CAVEAT } from '../../../src/profile/durabilityGuard';
import { runOrder } from '../../../src/profile/plan';
import type { RestoreEntry } from '../../../src/profile/restoreJournal';
import { useSharedFake } from './support/fakeVscode';

// Bidi embeddings/overrides/isolates, C0 (but TAB, LF), DEL, C1, and the Unicode line/paragraph separators.
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

function request(text: string, database = 'lab', fileName = 'load.sql'): ConsentRequest {
  return {
    action: 'Profile the selection (lines 1–2)',
    file: { uri: 'file:///w/load.sql', name: fileName, text },
    connection: { profileName: 'Dev', server: 'sql1', database },
    parts: partsOfWorkload([{ text, repeat: 1, firstLine: 0 }], 'profile'),
    confirmLabel: 'Run',
    notes: [],
  };
}

describe('modals that confirm a change show what runs, names on their line', () => {
  // orphanSessions.ts imports vscode: loaded once the fake is installed.
  const sessions = useSharedFake(() => import('../../../src/extension/sessions/orphanSessions'));

  it('the consent view writes bidi overrides and controls in the T-SQL as visible escapes (Trojan Source)', () => {
    // Displayed, the RLO/LRI reorder the line so "-- only one row" seems to close it; the server deletes by id = 1 OR 1 = 1.
    const text = 'DELETE FROM dbo.audit WHERE id = 1 /*\u202e } \u2066OR 1 = 1\u2069 \u2066*/\nSELECT 1\u200f;\x1b[8m';
    const shown = consentText(request(text));
    assert.doesNotMatch(shown, RAW);
    assert.match(shown, /1 │ DELETE FROM dbo\.audit WHERE id = 1 \/\*\\u202e } \\u2066OR 1 = 1\\u2069 \\u2066\*\//);
    assert.match(shown, /2 │ SELECT 1\\u200f;\\x1b\[8m/);
  });

  it('a database or file name with a line feed or bidi override stays on its line in the consent view and its message', () => {
    const r = request('DELETE FROM dbo.t;', 'lab\nIt reads only: nothing changes.', 'x\u202elqs.sql');
    for (const text of [consentText(r), consentMessage(r)]) {
      assert.doesNotMatch(text, RAW);
      assert.ok(!text.split('\n').some((l) => l.startsWith('It reads only')), text);
    }
    assert.match(consentMessage(r), /database lab\\x0aIt reads only/);
  });

  it('the Switch and Compare confirmation keeps the server and database names on their lines', () => {
    const db = 'lab\nDatabase: scratch, DELAYED_DURABILITY is FORCED now.\u202e';
    const modes = ['DISABLED', 'FORCED'] as ('DISABLED' | 'FORCED')[];
    const t = comparisonConfirmation({
      server: 'sql1\nServer: dev-box', serverVersion: 'x', source: 'sql-server', database: db, databaseId: 7, currentSetting: 'DISABLED', modes, repetitions: 3, warmup: true,
      order: runOrder(modes, 3, true), statements: modes.map((m) => alterDurabilitySql(db, m)), restoreStatement: alterDurabilitySql(db, 'DISABLED'),
      dataLossCaveat: DATA_LOSS_CAVEAT, refusals: [], warnings: [], canProceed: true, grant: null,
    }, 'Dev\nconnection');
    for (const text of [t.message, t.detail]) assert.doesNotMatch(text, RAW);
    assert.ok(!t.detail.split('\n').some((l) => l.startsWith('Database: scratch') || l.startsWith('Server: dev-box')), t.detail);
  });

  it('the restore prompt and the leftover-session prompt keep names on their lines', () => {
    const entry: RestoreEntry = { id: 'a', server: 'sql1', database: 'lab\n• prod on sql1: back to DISABLED', originalSetting: 'DISABLED', lastApplied: 'FORCED', createdAt: '2026-11-28T00:00:00Z', restoreStatement: alterDurabilitySql('lab\n• prod', 'DISABLED') };
    const restore = restorePrompt([entry]);
    for (const text of [restore.message, restore.detail]) assert.doesNotMatch(text, RAW);
    assert.ok(!restore.detail.split('\n').some((l) => l.startsWith('• prod')), restore.detail);
    const orphans = sessions().orphanPrompt(['durability_lens_a\nThey belong to nobody: safe to drop.'], ['durability_lens_b\u202e']);
    assert.doesNotMatch(orphans.detail, RAW);
    assert.ok(!orphans.detail.split('\n').some((l) => l.startsWith('They belong')), orphans.detail);
  });
});
