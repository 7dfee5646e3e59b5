// A Profile that measures the per-statement trace's cost runs the workload 2×N times (issue 28): the plan is in the
// confirmation, remembered apart from a single run's, never turned on by a workspace, and only when there is a trace.
import * as assert from 'node:assert/strict';
import { consentKeys, consentText, needsConsent, partsOfWorkload, type ConsentRequest } from '../../../src/extension/consent/consentView';
import { withTraceOverheadPlan } from '../../../src/extension/consent/traceOverheadPlan';
import { readRunSettings } from '../../../src/shared/runSettings';
import { analyze } from '../../../src/tsql';
import { useFakeVscodeWithSettings, sharedFake as fake } from './support/fakeVscode';

const SCRIPT = '-- durability-lens: setup\nDELETE FROM dbo.t;\n-- durability-lens: measure\nINSERT INTO dbo.t (id) VALUES (1);\n';
const request = (parts: ConsentRequest['parts'], notes: string[] = []): ConsentRequest => ({
  action: 'Profile the document', file: { uri: 'file:///w/a.sql', name: 'a.sql', text: SCRIPT }, connection: { profileName: 'Dev', server: 'srv', database: 'lab' }, parts, confirmLabel: 'Run', notes,
});

describe('consent: the trace-overhead plan', () => {
  it('shows "runs the workload 4 times: 2 with the per-statement trace, 2 without" and is remembered apart from one run', () => {
    const single = partsOfWorkload(analyze(SCRIPT).batches, 'profile');
    const plan = withTraceOverheadPlan(single, 2);
    assert.equal(plan.parts.length, single.length + 1);
    assert.equal(plan.notes.length, 1);
    assert.match(plan.notes[0]!, /^This profile runs the workload 4 times: 2 with the per-statement trace, 2 without \(alternating, to measure what the trace costs\): the setting durabilityLens\.xe\.traceOverheadRuns is 2\. Set it to 0/);
    const text = consentText(request(plan.parts, plan.notes));
    assert.match(text, /── Trace-overhead measurement \(durabilityLens\.xe\.traceOverheadRuns: 2\) \(not in the document\) — repeats everything above 4 times ──/);
    assert.match(text, /The parts above run 4 times in all: 2 with the per-statement trace and 2 without/);
    // A confirmation of the single run does not cover four; a different count is a different plan.
    const one = consentKeys(request(single));
    const four = consentKeys(request(plan.parts));
    assert.ok(four.some((k) => !one.includes(k)));
    assert.ok(consentKeys(request(withTraceOverheadPlan(single, 3).parts)).some((k) => !four.includes(k)));
    // The plan changes what the parts change, nothing more: the modal's summary of changes is the script's.
    assert.equal(needsConsent(request(plan.parts)), true);
    const readOnly = partsOfWorkload(analyze('SELECT 1;').batches, 'profile');
    assert.equal(needsConsent(request(withTraceOverheadPlan(readOnly, 2).parts)), false, 'a read-only script still asks nothing');
  });

  it('adds nothing when not asked for', () => {
    const single = partsOfWorkload(analyze(SCRIPT).batches, 'profile');
    assert.deepEqual(withTraceOverheadPlan(single, undefined), { parts: single, notes: [] });
  });
});

describe('setting durabilityLens.xe.traceOverheadRuns', () => {
  useFakeVscodeWithSettings(fake);

  it('is 0 (off) unless 2–10; off when the per-statement trace is', async () => {
    const { traceOverheadRunsOf } = await import('../../../src/extension/runOptions');
    const read = (v: unknown, more: Record<string, unknown> = {}) => readRunSettings((k) => ({ 'xe.traceOverheadRuns': v, ...more })[k as string]);
    assert.equal(read(undefined).xeTraceOverheadRuns, 0);
    assert.equal(read(1).xeTraceOverheadRuns, 0, 'one run each has no range');
    assert.equal(read(11).xeTraceOverheadRuns, 0);
    assert.equal(read('3').xeTraceOverheadRuns, 0);
    assert.equal(read(3).xeTraceOverheadRuns, 3);
    assert.equal(traceOverheadRunsOf(read(3)), 3);
    assert.equal(traceOverheadRunsOf(read(0)), undefined);
    assert.equal(traceOverheadRunsOf(read(3, { 'xe.statements': false })), undefined);
    assert.equal(traceOverheadRunsOf(read(3, { 'xe.enabled': false })), undefined);
  });

  it('is read from the user settings only: a workspace cannot make the workload run several times', async () => {
    const { currentRunSettings } = await import('../../../src/extension/runOptions');
    fake.reset();
    fake.workspaceSettings = { 'durabilityLens.xe.traceOverheadRuns': 10 };
    fake.settings = {};
    assert.equal(currentRunSettings().xeTraceOverheadRuns, 0);
    fake.settings = { 'durabilityLens.xe.traceOverheadRuns': 2 };
    assert.equal(currentRunSettings().xeTraceOverheadRuns, 2);
  });
});
