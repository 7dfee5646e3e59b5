// durabilityLens.xe.traceOverheadRuns through ProfilingController with the fake `vscode` against the stand-in (issue
// 28): a confirmed single run does not cover the 2×N runs — the consent view asks again and shows the plan —, the
// workload then runs 2×N times, and the panel's model carries the measured traceOverhead (stand-in figures).
import * as assert from 'node:assert/strict';
import { sharedFake } from './support/fakeVscode';
import { fakeDocument, useControllerFlow } from './support/controllerFlow';

const CONSENT = /^Durability Lens: confirm what runs — /;
const TEXT = 'SET NOCOUNT ON;\nDECLARE @i int = 0;\nWHILE @i < 5\nBEGIN\n  INSERT INTO dbo.overhead_rows (id) VALUES (@i);\n  SET @i += 1;\nEND\n';

describe('trace-overhead runs through the controller (fake vscode, stand-in)', function () {
  this.timeout(120_000);
  const fake = sharedFake;
  const doc = fakeDocument(TEXT, 'file:///w/overhead.sql');
  const flow = useControllerFlow('CREATE TABLE dbo.overhead_rows (id int);', [doc], ['durabilityLens.xe.traceOverheadRuns']);
  const rows = () => flow.rows('overhead_rows');
  let whole: unknown;
  before(() => {
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    whole = new Range(new Position(0, 0), new Position(7, 0));
  });

  beforeEach(() => {
    fake.shown = [];
    fake.autoConsent = false;
  });

  it('one run by default: confirmed once, and traceOverhead says not measured with how to measure it', async () => {
    fake.messageAnswers = ['Run'];
    await flow.controller.profileText(doc as never, whole as never, 'profile');
    assert.equal(fake.shown.filter((s) => CONSENT.test(s.message)).length, 1);
    assert.equal(await rows(), 5);
    const t = flow.panels.at(-1)!.model.traceOverhead!;
    assert.equal(t.status, 'not-measured');
    assert.match(t.fix!, /durabilityLens\.xe\.traceOverheadRuns: 2/);
  });

  it('with the setting at 2, the confirmed single run does not cover it: the view asks again with the plan, then the workload runs 4 times', async () => {
    fake.settings['durabilityLens.xe.traceOverheadRuns'] = 2;
    fake.messageAnswers = [undefined];
    await flow.controller.profileText(doc as never, whole as never, 'profile');
    const modal = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(modal, 'asked again');
    assert.match(modal.detail!, /This profile runs the workload 4 times: 2 with the per-statement trace, 2 without/);
    assert.match(modal.detail!, /── Trace-overhead measurement \(durabilityLens\.xe\.traceOverheadRuns: 2\)/);
    assert.equal(await rows(), 5, 'declined: nothing ran');

    fake.shown = [];
    fake.messageAnswers = ['Run'];
    await flow.controller.profileText(doc as never, whole as never, 'profile');
    assert.equal(await rows(), 25, 'four more runs of 5 inserts');
    const t = flow.panels.at(-1)!.model.traceOverhead!;
    assert.equal(t.status, 'measured', t.reason ?? '');
    assert.deepEqual(t.runs.map((r) => r.trace), ['with', 'without', 'with', 'without']);
    assert.equal(t.source, 'stand-in');
    assert.ok(flow.lines.some((l) => /This profile runs the workload 4 times/.test(l)), 'the output channel says what ran');
  });
});
