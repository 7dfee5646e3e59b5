// A statement trace that did not run: its WRITELOG figures and event count are "not measured" (null), never 0 —
// in the RunResult JSON and in the reconciliation line.
import { strict as assert } from 'node:assert';
import { notMeasuredAttribution } from '../../../src/profile/statementAttribution';
import { reconciliationText } from '../../../src/report/statements';

describe('notMeasuredAttribution', () => {
  it('leaves every trace figure null, not 0, and keeps the reason and GRANT', () => {
    const a = notMeasuredAttribution('No log-flush events: the login may not create event sessions.', 'GRANT ALTER ANY EVENT SESSION TO [low];', { waits: 12, ms: 3.5 });
    const json = JSON.parse(JSON.stringify(a)) as Record<string, unknown>;
    for (const key of ['attributedWritelogWaits', 'attributedWritelogMs', 'unattributedWritelogWaits', 'unattributedWritelogMs', 'eventsSeen', 'eventsCounted']) {
      assert.equal(json[key], null, key);
    }
    assert.equal(json.sessionWritelogWaits, 12);
    assert.equal(json.status, 'not-measured');
    assert.equal(json.grant, 'GRANT ALTER ANY EVENT SESSION TO [low];');
  });

  it('a measured attribution whose trace figures are null says "not measured" in the reconciliation line', () => {
    const a = { ...notMeasuredAttribution('', null, { waits: 4, ms: 2 }), status: 'measured' as const, reason: null, waitEvent: 'wait_completed' };
    const line = reconciliationText(a);
    assert.match(line, /attributed to statements: not measured waits \(not measured\); not attributed: not measured;/);
    assert.doesNotMatch(line, /\b0 waits/);
  });
});
