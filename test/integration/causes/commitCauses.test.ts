// Issue 29, "Done when": for each cause, a stand-in switch makes it dominant, and the JSON's first causes[] entry, the
// verdict's first line (Markdown and CLI text) and helpsDelayedDurability name it as Learn has it. Each test starts its
// own stand-in (test/standin/model/commitCauses.ts switches); the figures are the model's.
import { markdownText } from '../../../src/report/markdownText';
import { strict as assert } from 'node:assert';
import type { RunResult } from '../../../src/profile/types';
import type { Cause, CauseId, DelayedDurabilityHelp } from '../../../src/report/causes/types';
import { standinOnlySuite } from '../support';
import { runCase, sample, verdictFirstLine, type CauseCase } from './harness';

type ProfileJson = RunResult & { causes: Cause[]; causesBasis: { dominant: CauseId | null; notes: string[] } | null };

const s1 = (rows: number) => sample('s1-single-row-inserts.sql', 'WHILE @i < 10000', `WHILE @i < ${rows}`);
const many = (rows: number) => sample('s1-many-sessions.sql', 'WHILE @i < 1000', `WHILE @i < ${rows}`);

async function profile(c: CauseCase, script: string, ...extra: string[]): Promise<{ json: ProfileJson; first: string; markdown: string }> {
  const run = await runCase(c, script, ['profile', 'FILE', '--json', '--yes', '--out', 'MD', ...extra]);
  const json = JSON.parse(run.stdout) as ProfileJson;
  return { json, first: verdictFirstLine(run.markdown), markdown: run.markdown };
}

function assertLeads(json: ProfileJson, cause: CauseId, helps: DelayedDurabilityHelp): Cause {
  const lead = json.causes[0]!;
  assert.equal(lead.cause, cause, `first cause: ${JSON.stringify(json.causes.map((c) => [c.cause, c.share]))}`);
  assert.equal(lead.helpsDelayedDurability, helps);
  assert.equal(json.causesBasis?.dominant, cause);
  assert.ok(lead.share !== null && lead.share > 0.5, `the leading cause holds most of the time (${lead.share})`);
  // Ranked: shares never rise down the list; every cause is listed once.
  const shares = json.causes.map((c) => c.share ?? -1);
  assert.deepEqual([...shares].sort((a, b) => b - a), shares);
  assert.equal(new Set(json.causes.map((c) => c.cause)).size, 9);
  assert.ok(lead.evidence.length > 0 && lead.fix.length > 0);
  return lead;
}

describe('integration: causes of commit time — each cause made dominant on the stand-in (issue 29)', function () {
  this.timeout(180000);
  standinOnlySuite('each test starts a stand-in with a cause switch (test/standin/model/commitCauses.ts)');

  it('log-disk: 20 ms log writes — the disk leads, delayed durability helps (it hides the latency)', async () => {
    const { json, first } = await profile({ standin: { logWriteLatencyMs: 20 } }, s1(100));
    const lead = assertLeads(json, 'log-disk', true);
    assert.ok(lead.evidence.some((e) => /20 ms each \(io_stall_write_ms\)/.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*The log disk is slow \(20 ms per log write\): \d+ % of the session's time — delayed durability hides it/);
  });

  it('tiny-flushes: one small flush per commit on a healthy disk — delayed durability is the lever', async () => {
    const { json, first } = await profile({}, s1(100));
    const lead = assertLeads(json, 'tiny-flushes', true);
    assert.ok(lead.evidence.some((e) => /^1\.00 log flushes per commit \(100 flushes, 100 write transactions\)/.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*Every commit waits for its own small log flush .*— delayed durability is the lever/);
  });

  it('group-commit: eight sessions share flushes — delayed durability is only partly the lever', async () => {
    const { json, first } = await profile({}, many(100), '--sessions', '8');
    const lead = assertLeads(json, 'group-commit', 'partly');
    assert.ok(lead.evidence.includes('8 sessions committing at once'), lead.evidence.join(' | '));
    assert.match(first, /^\*\*Commits wait on log flushes they share with other sessions \(8 sessions, /);
  });

  it('log-writer-limit: one outstanding log write for eight sessions — commits queue behind several writes', async () => {
    const { json, first } = await profile({ switches: { logWriterOutstandingLimit: 1 } }, many(100), '--sessions', '8');
    const lead = assertLeads(json, 'log-writer-limit', 'partly');
    assert.ok(lead.evidence.some((e) => /queued behind more than one log write/.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*The log writer cannot keep up/);
  });

  it('ag-sync-commit: a synchronous secondary taking 6 ms per commit — delayed durability only partly helps', async () => {
    const { json, first } = await profile({ standin: { databases: [{ name: 'agdb', availabilityGroup: true }] }, switches: { agSyncCommitMs: 6 }, database: 'agdb' }, s1(100));
    const lead = assertLeads(json, 'ag-sync-commit', 'partly');
    assert.ok(lead.evidence.some((e) => /^HADR_SYNC_COMMIT: .* over 100 waits \(6 ms per commit\)/.test(e)), lead.evidence.join(' | '));
    assert.ok(lead.evidence.some((e) => /synchronous-commit mode/.test(e)));
    assert.match(first, /^\*\*Synchronous availability-group commit makes each commit wait 6 ms .*giving up the secondary's copy/);
  });

  it('log-rate-governor: Azure SQL Database capped at 1 MB/s — not the lever, nor is batching', async () => {
    const { json, first } = await profile({ standin: { product: 'azure-sqldb' }, switches: { logRateLimitMbps: 1 } }, s1(100));
    const lead = assertLeads(json, 'log-rate-governor', false);
    assert.ok(lead.evidence.some((e) => /^LOG_RATE_GOVERNOR: /.test(e)), lead.evidence.join(' | '));
    assert.ok(lead.evidence.some((e) => /cap: 1\.00 MiB\/s of log \(primary_max_log_rate/.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*Log-rate governance caps this database at 1\.00 MiB\/s: .*not the lever, nor is batching; a higher service objective/);
    // The cap came from the probe, measured: no "not measured" entry for it.
    assert.equal(json.commitPath?.logRateGovernance.status, 'ok');
  });

  it('hyperscale-log-service: a page server behind at 1 MB/s — not the lever; the lagging component is', async () => {
    const { json, first } = await profile({ standin: { product: 'azure-sqldb' }, switches: { hyperscale: true, logRateLimitMbps: 1 } }, s1(100));
    const lead = assertLeads(json, 'hyperscale-log-service', false);
    assert.ok(lead.evidence.some((e) => /^RBIO_RG_STORAGE: /.test(e)), lead.evidence.join(' | '));
    assert.ok(lead.evidence.some((e) => /^Storage limits the primary to 1\.00 MiB\/s/.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*Hyperscale's log service holds log generation back \(Storage at 1\.00 MiB\/s\)/);
  });

  it('tempdb: commits in tempdb wait for no flush — delayed durability has nothing to remove', async () => {
    const { json, first } = await profile({ database: 'tempdb' }, s1(100));
    const lead = assertLeads(json, 'tempdb', false);
    assert.ok(lead.evidence.some((e) => /the measured database is tempdb/.test(e)), lead.evidence.join(' | '));
    const writelog = json.causes.find((c) => c.cause === 'tiny-flushes')!;
    assert.equal(writelog.share, 0, 'no WRITELOG in tempdb');
    assert.match(first, /^\*\*tempdb's log is flushed lazily, so these commits wait for no log flush: .*nothing to remove here/);
  });

  it('not-log: a job that spends its time in pauses — the time went elsewhere, not the lever', async () => {
    const { json, first, markdown } = await profile({}, sample('c2-time-elsewhere.sql', 'WHILE @i < 250', 'WHILE @i < 25'));
    const lead = assertLeads(json, 'not-log', false);
    assert.ok(lead.evidence.some((e) => /^WAITFOR: /.test(e)), lead.evidence.join(' | '));
    assert.match(first, /^\*\*The time went elsewhere \(WAITFOR, [\d.]+ s\): .*not the lever/);
    // The Diagnosis section lists every cause by its label, never by its id (issue 28: no enum keys in user text).
    for (const c of json.causes) {
      assert.ok(markdown.includes(`**${markdownText(c.label)}**`), c.cause);
      assert.ok(!markdown.includes(`\`${c.cause}\``), c.cause);
    }
  });
});
