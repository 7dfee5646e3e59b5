// A run stopped by the time limit (or the user) is reported as cancelled — in the verdict's headline, as a fact, and
// off the concurrency curve — never as a complete workload "ran in 1.00 s". Runs on the suite's server (useTestServer).
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { buildComparisonModel, buildConcurrencyModel, toMarkdown } from '../../../src/report';
import { buildVerdict } from '../../../src/report/verdict';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

const ENDLESS = 'DECLARE @i int = 0;\nWHILE @i < 10000000\nBEGIN\n  SET @i += 1;\nEND\n';

describe('integration: cancelled runs in reports', function () {
  this.timeout(60000);
  // speedFactor 1 on the stand-in: the endless loop really takes time, as it does on a server.
  const h = useTestServer({ speedFactor: 1 });

  it('a run cut by the workload time limit leads its verdict and Markdown with the cancel, and covers only what ran', async () => {
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(ENDLESS).batches, workloadTimeoutMs: 300 });
    assert.equal(run.status, 'cancelled');
    assert.equal(run.cancel?.reason, 'timeout');
    const model = buildComparisonModel([run]);
    assert.deepEqual(model.cancelled, { runs: 1, reason: 'timeout', atMs: run.cancel!.atMs });
    const verdict = buildVerdict(model);
    assert.match(verdict.headline, /^Cancelled by the workload time limit after \d+(\.\d+)? ms — the workload ran in /);
    assert.equal(verdict.headlineTone, 'bad');
    assert.deepEqual(verdict.facts.slice(0, 2).map((f) => f.id), ['compared', 'cancelled']);
    const markdown = toMarkdown(model, 'Profile');
    assert.match(markdown, /\*\*Cancelled by the workload time limit after /);
    assert.match(markdown, /covers only what ran before the cancel/);
  });

  it('a cancelled run of a sweep is no point on the concurrency curve', async () => {
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(ENDLESS).batches, workloadTimeoutMs: 300, sessions: 2 });
    assert.equal(run.status, 'cancelled');
    assert.equal(run.concurrency?.sessions, 2);
    const model = buildConcurrencyModel([run]);
    assert.ok(model, 'a sweep run still makes a concurrency model');
    assert.deepEqual(model.points, []);
  });
});
