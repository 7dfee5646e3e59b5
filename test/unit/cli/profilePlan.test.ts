import { strict as assert } from 'node:assert';
import { profilePlanText } from '../../../src/cli/commands/profilePlan';

describe('CLI profile plan: what it says before anything is sent', () => {
  it('says the whole script runs as written, and that one that changes data waits for the confirmation below', () => {
    const plan = profilePlanText({ what: 'w.sql', server: 'db1', database: 'lab', xe: true, statements: true, traceOverhead: null });
    const first = plan.split('\n')[0]!;
    assert.equal(first, 'Plan:     runs w.sql as written, on database lab on db1 — every statement in it; if it changes data or schema, only once confirmed (below).');
    // A read-only script or a refused one follows this line: it must not read as "its changes run" on its own.
    assert.doesNotMatch(first, /change data or schema included/);
  });
});
