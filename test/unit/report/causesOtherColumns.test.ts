// The "In FORCED: …" line under the baseline's causes: causes not measured in that mode say so (with why and the
// GRANT), never "no time attributed" — that is kept for a mode whose causes were all measured at 0.
import { strict as assert } from 'node:assert';
import { causesMarkdownLines } from '../../../src/report/causes/text';
import type { Cause, CauseAssessment } from '../../../src/report/causes/types';

function cause(id: Cause['cause'], share: number | null, notMeasured: Cause['notMeasured']): Cause {
  return { cause: id, label: id, summary: id, share, ms: share === null ? null : 0, evidence: [], helpsDelayedDurability: false, helpsWhy: '', fix: '', learn: [], notMeasured };
}

function assessment(causes: Cause[]): CauseAssessment {
  return { causes, dominant: null, basis: { scope: 'session', sessionTimeMs: 100, timeBasis: 'elapsed', cpuMs: null, commitWaitMs: null, elapsedMs: 100, runs: 1, sessions: 1 }, notes: [] };
}

const md = (s: string) => s;
const denied = { reason: "Not measured: the workload session's own waits: no row for session 64.", grant: 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [low];' };

describe('causes: the other modes line', () => {
  it('says "not measured" with why and the GRANT when the mode\'s causes were not measured', () => {
    const forced = assessment([cause('tempdb', 0, null), cause('log-disk', null, denied), cause('not-log', null, denied)]);
    const lines = causesMarkdownLines(assessment([cause('log-disk', null, denied)]), 'DISABLED', md, { FORCED: forced });
    const line = lines.find((l) => l.startsWith('In FORCED'));
    assert.equal(line, "In FORCED: not measured — the workload session's own waits: no row for session 64. To enable: `USE [master]; GRANT VIEW SERVER PERFORMANCE STATE TO [low];`");
  });

  it('keeps "no time attributed" when every cause of the mode was measured and none took time', () => {
    const forced = assessment([cause('tempdb', 0, null), cause('log-disk', 0, null)]);
    const lines = causesMarkdownLines(assessment([cause('log-disk', 0, null)]), 'DISABLED', md, { FORCED: forced });
    assert.ok(lines.includes('In FORCED: no time attributed.'), lines.join('\n'));
  });
});
