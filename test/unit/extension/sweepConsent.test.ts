// A script with `-- durability-lens: session-param @session` runs differently per session (issue 25 follow-up): the
// consent view says which batches go with the parameter and which value each session sends, and a concurrency sweep
// (durabilityLens.compare.sessions) shows how many sessions run them at once at each level — remembered apart from a
// one-session confirmation. Through the controller against the stand-in, what ran is what the view showed.
import * as assert from 'node:assert/strict';
import { consentKeys, consentText, needsConsent, partsOfWorkload, type ConsentRequest } from '../../../src/extension/consent/consentView';
import { withSweepPart } from '../../../src/extension/consent/sessionPlan';
import { procedureConsentParts } from '../../../src/extension/consent/procedureParts';
import { connect } from '../../../src/db/connect';
import { analyze } from '../../../src/tsql';
import { sharedFake } from './support/fakeVscode';
import { fakeDocument, useControllerFlow } from './support/controllerFlow';

const SCRIPT = [
  '-- durability-lens: setup', // 1
  'DELETE FROM dbo.sweep_rows;', // 2
  '-- durability-lens: measure', // 3
  'GO',
  '-- durability-lens: session-param @session', // 5
  'INSERT INTO dbo.sweep_rows (session_no) VALUES (@session);', // 6
  'GO',
  'INSERT INTO dbo.sweep_log (note) VALUES (1);', // 8
  'GO',
  '',
].join('\n');

const request = (parts: ConsentRequest['parts']): ConsentRequest => ({
  action: 'Compare durability modes for the document', file: { uri: 'file:///w/sweep.sql', name: 'sweep.sql', text: SCRIPT }, connection: { profileName: 'Dev', server: 'srv', database: 'lab' }, parts, confirmLabel: 'Run', notes: [],
});

describe('consent: what each session of a run sends', () => {
  const batches = analyze(SCRIPT).batches;

  it('a sweep shows the @session value of every session at every level, on the batch that uses it only', () => {
    const text = consentText(request(partsOfWorkload(batches, 'compare', [1, 4, 8])));
    assert.match(text, /── Measured — runs in every run of the comparison \(each mode, warm-up included\), sent by each session of the sweep through sp_executesql with the parameter @session int = its session number \(session k sends k: 1, 2, …, 8\) \(lines 5–6\) — changes: INSERT \(line 6\) ──\n5 │ -- durability-lens: session-param @session\n6 │ INSERT INTO dbo\.sweep_rows \(session_no\) VALUES \(@session\);/);
    // The batch without the variable, and the setup, are sent as written.
    assert.match(text, /── Measured — runs in every run of the comparison \(each mode, warm-up included\) \(line 8\) — changes: INSERT \(line 8\) ──/);
    assert.match(text, /── Setup — runs unmeasured before every run of the comparison \(lines 1–3\) — changes: DELETE \(line 2\) ──/);
    assert.match(text, /── Concurrency sweep \(durabilityLens\.compare\.sessions: 1, 4, 8\) \(not in the document\) — runs the measured part on up to 8 sessions at once ──/);
    assert.match(text, / │ Level 1: the measured part runs on session 1 alone; session k sends @session = k \(1\)\./);
    assert.match(text, / │ Level 4: the measured part runs on sessions 1–4 at the same time, each on its own connection; session k sends @session = k \(1, 2, 3, 4\)\./);
    assert.match(text, / │ Level 8: the measured part runs on sessions 1–8 at the same time, each on its own connection; session k sends @session = k \(1, 2, …, 8\)\./);
  });

  it('one session sends @session = 1, and a confirmation of it does not cover a sweep (nor one sweep another)', () => {
    const single = partsOfWorkload(batches, 'compare');
    assert.match(consentText(request(single)), /\(each mode, warm-up included\), sent through sp_executesql with the parameter @session int = 1 \(one session\) \(lines 5–6\)/);
    assert.doesNotMatch(consentText(request(single)), /Concurrency sweep/);
    assert.match(consentText(request(partsOfWorkload(batches, 'profile'))), /── Measured, sent through sp_executesql with the parameter @session int = 1 \(one session\) \(lines 5–6\)/);
    const one = consentKeys(request(single));
    const sweep = consentKeys(request(partsOfWorkload(batches, 'compare', [1, 4])));
    assert.ok(sweep.some((k) => !one.includes(k)), 'a sweep is a new confirmation');
    assert.ok(consentKeys(request(partsOfWorkload(batches, 'compare', [1, 8]))).some((k) => !sweep.includes(k)), 'other levels, another confirmation');
  });

  it('a read-only sweep still asks nothing; a script without the marker says every session sends the same text', () => {
    assert.equal(needsConsent(request(partsOfWorkload(analyze('SELECT 1;').batches, 'compare', [2]))), false);
    const plain = consentText(request(partsOfWorkload(analyze('INSERT INTO dbo.t (id) VALUES (1);').batches, 'compare', [2])));
    assert.match(plain, /Level 2: the measured part runs on sessions 1–2 at the same time, each on its own connection; every session sends the same text \(the script names no session variable\)\./);
    assert.doesNotMatch(plain, /sp_executesql/);
  });

  it('a procedure compare in a sweep shows the sweep after the call, with the changes of what the call runs', () => {
    const parts = procedureConsentParts({ name: 'dbo.p', callText: 'EXEC [dbo].[p]', definition: { source: 'editor', text: 'CREATE PROCEDURE dbo.p AS\nINSERT INTO dbo.t (id) VALUES (1);', firstLine: 0 }, deploy: null });
    const swept = withSweepPart(parts, [3]);
    assert.equal(swept.length, parts.length + 1);
    assert.deepEqual(swept.at(-1)!.changes, [{ line: 1, what: 'INSERT' }]);
    assert.match(swept.at(-1)!.text, /Level 3: the measured part runs on sessions 1–3 at the same time, each on its own connection; every session sends the same text/);
    assert.deepEqual(withSweepPart(parts, undefined), parts);
  });
});

describe('consent: a sweep through the controller (fake vscode, stand-in)', function () {
  this.timeout(180_000);
  const fake = sharedFake;
  const doc = fakeDocument(SCRIPT, 'file:///w/sweep.sql');
  const SETTINGS = ['durabilityLens.compare.sessions', 'durabilityLens.compare.repetitions', 'durabilityLens.compare.warmup', 'durabilityLens.compare.modes'];
  const flow = useControllerFlow('CREATE TABLE dbo.sweep_rows (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL); CREATE TABLE dbo.sweep_log (note int);', [doc], SETTINGS);
  let range: (line: number) => unknown;
  before(() => {
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    range = (line) => new Range(new Position(line, 0), new Position(line, 0));
  });

  async function rowsPerSession(): Promise<Array<[number, number]>> {
    const s = await connect(flow.h.profile, flow.h.secret, { role: 'monitor' });
    try {
      const rows = await s.query('SELECT session_no, COUNT(*) AS n FROM dbo.sweep_rows GROUP BY session_no ORDER BY session_no');
      return rows.map((r) => [Number(r.session_no), Number(r.n)]);
    } finally {
      await s.close();
    }
  }

  it('the consent view shows the levels and @session values of durabilityLens.compare.sessions, and the run does exactly that', async () => {
    fake.settings['durabilityLens.compare.sessions'] = [1, 3];
    fake.settings['durabilityLens.compare.repetitions'] = 1;
    fake.settings['durabilityLens.compare.warmup'] = false;
    fake.settings['durabilityLens.compare.modes'] = ['DISABLED'];
    fake.shown = [];
    fake.autoConsent = false;
    fake.messageAnswers = ['Run'];
    await flow.controller.profileText(doc as never, range(0) as never, 'compare');
    const modal = fake.shown.find((s) => s.modal && /^Durability Lens: confirm what runs — /.test(s.message));
    assert.ok(modal, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.match(modal.detail!, /sent by each session of the sweep through sp_executesql with the parameter @session int = its session number \(session k sends k: 1, 2, 3\)/);
    assert.match(modal.detail!, /Level 3: the measured part runs on sessions 1–3 at the same time, each on its own connection; session k sends @session = k \(1, 2, 3\)\./);
    assert.equal(flow.panels.at(-1)?.header.status, 'completed', [...flow.lines.slice(-8), ...fake.shown.map((s) => s.message)].join('\n'));
    // The last run (level 3) left what it shows: sessions 1, 2 and 3 each wrote their own number once.
    assert.deepEqual(await rowsPerSession(), [[1, 1], [2, 1], [3, 1]]);
  });
});
