// Issue 29, "Done when": the demo shows at least two different verdict causes from two samples. The stand-in is the one
// `npm run demo` starts (scripts/demoStandin.ts); the samples are the shipped ones, scaled down; the verdict's first
// line is read from the report as the panel and the CLI show it.
import { strict as assert } from 'node:assert';
import type { RunResult } from '../../../src/profile/types';
import type { Cause } from '../../../src/report/causes/types';
import { applyDemoCauses, DEMO_AG_DATABASE, DEMO_STANDIN_OPTIONS } from '../../../scripts/demoStandin';
import { standinOnlySuite } from '../support';
import { runCase, sample, verdictFirstLine } from './harness';

async function firstCause(script: string, database?: string): Promise<{ cause: string; line: string }> {
  const run = await runCase({ standin: DEMO_STANDIN_OPTIONS, setup: applyDemoCauses, database }, script, ['profile', 'FILE', '--json', '--yes', '--out', 'MD']);
  const json = JSON.parse(run.stdout) as RunResult & { causes: Cause[] };
  return { cause: json.causes[0]!.cause, line: verdictFirstLine(run.markdown) };
}

describe('integration: the demo samples show different causes of commit time (issue 29)', function () {
  this.timeout(180000);
  standinOnlySuite("runs the demo's own stand-in (scripts/demoStandin.ts)");

  it('c1 (commit per row) and c2 (pauses between batches) lead with different causes; c3 on agdemo with the synchronous secondary', async () => {
    const c1 = await firstCause(sample('c1-commit-per-row.sql', 'WHILE @i < 2000', 'WHILE @i < 150'));
    const c2 = await firstCause(sample('c2-time-elsewhere.sql', 'WHILE @i < 250', 'WHILE @i < 20'));
    const c3 = await firstCause(sample('c3-ag-sync-commit.sql', 'WHILE @i < 500', 'WHILE @i < 150'), DEMO_AG_DATABASE);
    assert.equal(c1.cause, 'tiny-flushes', c1.line);
    assert.match(c1.line, /delayed durability is the lever/);
    assert.equal(c2.cause, 'not-log', c2.line);
    assert.match(c2.line, /^\*\*The time went elsewhere \(WAITFOR/);
    assert.equal(c3.cause, 'ag-sync-commit', c3.line);
    assert.notEqual(c1.cause, c2.cause);
  });
});
