// How often a comparison sends the confirmed T-SQL comes from durabilityLens.compare.modes / .repetitions / .warmup —
// settings a repository's .vscode/settings.json may set. On a development connection the Switch and Compare dialog
// (which states the count) is not shown, so the consent view says the count, a confirmation covers that count only, and
// the run makes exactly the runs shown (outside attack: a workspace's repetitions silently ran the DML 100 times per
// mode). Through the controller with the fake `vscode` against the stand-in.
import * as assert from 'node:assert/strict';
import { sharedFake } from './support/fakeVscode';
import { fakeDocument, useControllerFlow } from './support/controllerFlow';

const CONSENT = /^Durability Lens: confirm what runs — /;
const TEXT = 'INSERT INTO dbo.compare_rows (id) VALUES (1);\n';
const SETTINGS = ['durabilityLens.compare.repetitions', 'durabilityLens.compare.warmup', 'durabilityLens.compare.modes'];

describe('consent: how many runs a comparison makes (fake vscode, stand-in)', function () {
  this.timeout(180_000);
  const fake = sharedFake;
  const doc = fakeDocument(TEXT, 'file:///w/compare-count.sql');
  const flow = useControllerFlow('CREATE TABLE dbo.compare_rows (id int);', [doc], SETTINGS);
  const rows = () => flow.rows('compare_rows');
  let whole: unknown;
  before(() => {
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    whole = new Range(new Position(0, 0), new Position(1, 0));
  });

  beforeEach(() => {
    fake.shown = [];
    fake.autoConsent = false;
  });

  after(() => {
    for (const key of SETTINGS) delete fake.workspaceSettings[key];
  });

  it('the consent view names the runs the settings ask for, and the comparison makes exactly those', async () => {
    fake.workspaceSettings['durabilityLens.compare.repetitions'] = 2;
    fake.workspaceSettings['durabilityLens.compare.warmup'] = true;
    fake.messageAnswers = ['Run'];
    await flow.controller.profileText(doc as never, whole as never, 'compare');
    const modal = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(modal, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.match(modal.detail!, /── Comparison runs \(durabilityLens\.compare\.\*: DISABLED, FORCED × 2 \+ 1 warm-up\)/);
    assert.match(modal.detail!, /The parts above run 5 times in all/);
    assert.equal(flow.panels.at(-1)?.header.status, 'completed', flow.lines.slice(-8).join('\n'));
    assert.equal(await rows(), 5);
    // The same text, file, connection and count: remembered, not asked again.
    fake.shown = [];
    await flow.controller.profileText(doc as never, whole as never, 'compare');
    assert.equal(fake.shown.filter((s) => s.modal && CONSENT.test(s.message)).length, 0, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.equal(await rows(), 10);
  });

  it('a confirmation of 5 runs does not cover more: a workspace that raises repetitions is asked again, and declining runs nothing', async () => {
    fake.workspaceSettings['durabilityLens.compare.repetitions'] = 40;
    fake.messageAnswers = [undefined];
    const before = await rows();
    await flow.controller.profileText(doc as never, whole as never, 'compare');
    const modal = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(modal, 'asked again');
    assert.match(modal.detail!, /The parts above run 81 times in all/);
    assert.equal(await rows(), before);
  });
});
