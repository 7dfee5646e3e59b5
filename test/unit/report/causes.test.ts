// The cause model (issue 29) over synthetic runs: the WRITELOG split into disk / flush / group / writer, the platform
// waits, tempdb and SCHEMA_ONLY, the basis the shares are parts of, "not measured" with the GRANT, the verdict's first
// line, the Markdown list, the comparison document and the panel section.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ok } from '../../../src/probes/measurement';
import { assessCauses, CAUSE_IDS, isCommitWait, rankCauses, runCausesJson, type Cause, type CauseAssessment, type CauseId } from '../../../src/report/causes';
import { HEALTHY_LOG_WRITE_MS } from '../../../src/report/causes/logWrites';
import { causeLead, causesMarkdownLines, notMeasuredGroups } from '../../../src/report/causes/text';
import { buildComparisonModel } from '../../../src/report/comparison';
import { comparisonDocument } from '../../../src/report/document';
import { toMarkdown } from '../../../src/report/export';
import { buildVerdict, verdictMarkdown } from '../../../src/report/verdict';
import { causesSection } from '../../../src/webview/causesView';
import { toHtml } from '../../../src/webview/view';
import { causesRun as run } from './runFixture';


const byId = (a: CauseAssessment, id: CauseId): Cause => a.causes.find((c) => c.cause === id)!;
const near = (actual: number | null, expected: number, what: string) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

describe('report/causes: who is to blame for commit time', () => {
  it('splits a slow disk: the part of each 20 ms write above the healthy 5 ms is the disk, the rest the flush per commit', () => {
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 2000 } }, log: { writes: 100, bytes: 409600, stallMs: 2000 } })]);
    assert.equal(HEALTHY_LOG_WRITE_MS, 5);
    near(byId(a, 'log-disk').ms, 1500, 'disk ms');
    near(byId(a, 'tiny-flushes').ms, 500, 'flush ms');
    near(byId(a, 'log-disk').share, 0.75, 'disk share');
    assert.equal(a.dominant, 'log-disk');
    assert.equal(a.causes[0]!.cause, 'log-disk');
    assert.equal(byId(a, 'log-disk').helpsDelayedDurability, true);
    assert.match(a.causes[0]!.summary, /^The log disk is slow \(20 ms per log write\)$/);
  });

  it('a healthy disk with a flush per commit: all of WRITELOG is the flush cost', () => {
    const a = assessCauses([run({ commits: 200, flushesCounter: 200, waits: { WRITELOG: { count: 200, ms: 40 } }, log: { writes: 200, bytes: 819200, stallMs: 40 } })]);
    assert.equal(a.dominant, 'tiny-flushes');
    near(byId(a, 'tiny-flushes').share, 1, 'share');
    near(byId(a, 'log-disk').ms, 0, 'no disk excess');
    assert.ok(byId(a, 'tiny-flushes').evidence.some((e) => e.startsWith('1.00 log flushes per commit (200 flushes, 200 write transactions)')));
  });

  it('shared flushes: flushes per commit below 1 and a wait beyond the write go to group commit', () => {
    const r = run({ commits: 100, flushesCounter: 25, waits: { WRITELOG: { count: 100, ms: 30 } }, log: { writes: 25, bytes: 102400, stallMs: 5 } });
    r.concurrency = { sessions: 4, wallMs: 1000, parameter: null, perSession: [{ session: 1, spid: 55, elapsedMs: 1000, statements: 100, rowsAffected: null, iterationsCompleted: 1, errors: [], cancelled: false }], writelog: null };
    const a = assessCauses([r]);
    // a = 0.3 ms for 0.2 ms writes: device 20 (¼ own flush, ¾ shared), one-write queue 10.
    near(byId(a, 'tiny-flushes').ms, 5, 'own flushes');
    near(byId(a, 'group-commit').ms, 25, 'shared + queue');
    assert.equal(a.dominant, 'group-commit');
    assert.equal(byId(a, 'group-commit').helpsDelayedDurability, 'partly');
    assert.match(a.notes.join(' '), /session 1's of 4 sessions/);
  });

  it("a concurrency sweep's levels are group commit's evidence: flushes per commit falling with the sessions", () => {
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 20 } } })], [
      { sessions: 8, flushesPerCommit: 0.25, writelogMsPerCommit: 0.3 },
      { sessions: 1, flushesPerCommit: 1, writelogMsPerCommit: 0.2 },
    ]);
    assert.ok(byId(a, 'group-commit').evidence.includes('across the sweep — 1 session: 1.00 flushes per commit (0.2 ms WRITELOG per commit); 8 sessions: 0.25 flushes per commit (0.3 ms WRITELOG per commit) — the concurrency table'), byId(a, 'group-commit').evidence.join(' | '));
  });

  it('queueing deeper than one write, and LOGBUFFER, are the log writer not keeping up', () => {
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 100 }, LOGBUFFER: { count: 10, ms: 50 } }, log: { writes: 100, bytes: 409600, stallMs: 20 } })]);
    // a = 1 ms for 0.2 ms writes, one session: 20 device, 20 beyond the write (the writer's own), 60 deeper, + 50 LOGBUFFER.
    near(byId(a, 'log-writer-limit').ms, 130, 'writer');
    near(byId(a, 'tiny-flushes').ms, 20, 'device');
    assert.equal(a.dominant, 'log-writer-limit');
    assert.ok(byId(a, 'log-writer-limit').evidence.some((e) => /^LOGBUFFER: 50 ms over 10 waits/.test(e)));
  });

  it('the platform waits: HADR_SYNC_COMMIT, the log-rate governor and Hyperscale RBIO waits each take their own time', () => {
    const waits = { WRITELOG: { count: 100, ms: 20 }, HADR_SYNC_COMMIT: { count: 100, ms: 300 }, LOG_RATE_GOVERNOR: { count: 50, ms: 200 }, HADR_THROTTLE_LOG_RATE_LOG_SIZE: { count: 1, ms: 10 }, RBIO_RG_STORAGE: { count: 20, ms: 100 } };
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits, log: { writes: 100, bytes: 409600, stallMs: 20 } })]);
    near(byId(a, 'ag-sync-commit').ms, 300, 'ag');
    near(byId(a, 'log-rate-governor').ms, 210, 'governor and its feedback control');
    near(byId(a, 'hyperscale-log-service').ms, 100, 'hyperscale');
    assert.equal(a.dominant, 'ag-sync-commit');
    // The verdict line is "<summary>: <outcome> — <lever>": a colon inside a summary made it read as two.
    for (const c of a.causes) assert.doesNotMatch(c.summary, /:/, c.cause);
    assert.deepEqual([byId(a, 'ag-sync-commit').helpsDelayedDurability, byId(a, 'log-rate-governor').helpsDelayedDurability, byId(a, 'hyperscale-log-service').helpsDelayedDurability], ['partly', false, false]);
    near(a.basis.commitWaitMs, 630, 'commit waits');
    for (const w of Object.keys(waits)) assert.ok(isCommitWait(w), w);
    assert.ok(!isCommitWait('WAITFOR') && !isCommitWait('PAGEIOLATCH_SH'));
  });

  it('a commit fee that is a quarter of the governed log makes the governor "partly" (fewer log IOs count)', () => {
    const gov = (fee: number) => ok({ serviceObjective: 'GP_Gen5_2', maxLogRateBytesPerSec: 12 * 1024 * 1024, commitFeeBytes: fee, instanceMaxLogRateBytesPerSec: null });
    const figures = { commits: 100, flushesCounter: 100, waits: { LOG_RATE_GOVERNOR: { count: 100, ms: 500 } }, log: { writes: 100, bytes: 100 * 1024, stallMs: 10 } };
    const noFee = assessCauses([run({ ...figures, path: { logRateGovernance: gov(0) } })]);
    const bigFee = assessCauses([run({ ...figures, path: { logRateGovernance: gov(1024) } })]);
    assert.equal(byId(noFee, 'log-rate-governor').helpsDelayedDurability, false);
    assert.equal(byId(bigFee, 'log-rate-governor').helpsDelayedDurability, 'partly');
    assert.match(byId(noFee, 'log-rate-governor').summary, /caps this database at 12\.00 MiB\/s$/);
    assert.ok(byId(bigFee, 'log-rate-governor').evidence.some((e) => /commit fee: 1\.00 KiB per log IO, 50 % of the log the governor counted/.test(e)));
  });

  it('the time elsewhere: other waits and CPU are not-log; the client and network are outside the server time', () => {
    const a = assessCauses([run({ commits: 10, flushesCounter: 10, waits: { WRITELOG: { count: 10, ms: 2 }, WAITFOR: { count: 5, ms: 500 } }, cpuMs: 98, elapsedMs: 2000, log: { writes: 10, bytes: 40960, stallMs: 2 } })]);
    assert.equal(a.basis.timeBasis, 'waits-and-cpu');
    near(a.basis.sessionTimeMs, 600, 'waits + CPU');
    near(byId(a, 'not-log').ms, 598, 'WAITFOR + CPU');
    assert.equal(a.dominant, 'not-log');
    assert.match(byId(a, 'not-log').summary, /^The time went elsewhere \(WAITFOR, 500 ms\)$/);
    assert.ok(byId(a, 'not-log').evidence.some((e) => /the client and the network took the rest of the 2\.00 s elapsed \(1\.40 s\)/.test(e)));
  });

  it('without the session CPU the basis is the elapsed time, and the note says the client and the network are in it', () => {
    const a = assessCauses([run({ commits: 10, flushesCounter: 10, waits: { WRITELOG: { count: 10, ms: 100 } }, cpuMs: null, elapsedMs: 400, log: { writes: 10, bytes: 40960, stallMs: 100 } })]);
    assert.equal(a.basis.timeBasis, 'elapsed');
    near(byId(a, 'not-log').share, 0.75, 'elapsed minus waits');
    assert.match(a.notes.join(' '), /its CPU was not read, so the client and the network are in it/);
  });

  it('tempdb and SCHEMA_ONLY tables: no flush to wait for — their cause takes the time outside commit waits', () => {
    const tempdb = assessCauses([run({ commits: 50, flushesCounter: 0, waits: { SOS_SCHEDULER_YIELD: { count: 3, ms: 30 } }, cpuMs: 70, database: { databaseId: 2, name: 'tempdb' }, log: { writes: 0, bytes: 0, stallMs: 0 } })]);
    assert.equal(tempdb.dominant, 'tempdb');
    near(byId(tempdb, 'tempdb').share, 1, 'tempdb');
    near(byId(tempdb, 'not-log').share, 0, 'counted under tempdb');
    assert.match(byId(tempdb, 'tempdb').summary, /^tempdb's log is flushed lazily/);
    const mem = assessCauses([run({ commits: 50, flushesCounter: 1, waits: { WRITELOG: { count: 1, ms: 1 } }, cpuMs: 99, path: { inMemoryTables: ok({ schemaOnlyTables: 2 }) } })]);
    assert.equal(mem.dominant, 'tempdb');
    assert.match(byId(mem, 'tempdb').summary, /^SCHEMA_ONLY tables are not logged/);
    for (const a of [tempdb, mem]) assert.doesNotMatch(byId(a, 'tempdb').summary, /:/);
    // The same tables with a commit waiting per flush: the tables are not what the commits wrote to.
    const durable = assessCauses([run({ commits: 50, flushesCounter: 50, waits: { WRITELOG: { count: 50, ms: 100 } }, cpuMs: 1, log: { writes: 50, bytes: 204800, stallMs: 100 }, path: { inMemoryTables: ok({ schemaOnlyTables: 2 }) } })]);
    assert.equal(durable.dominant, 'tiny-flushes');
  });

  it('unreadable session waits: every wait-based cause is "not measured" with the GRANT, never a share of 0', () => {
    const a = assessCauses([run({ sessionWaitsReadable: false, commits: 10, flushesCounter: 10 })]);
    for (const id of ['log-disk', 'tiny-flushes', 'group-commit', 'log-writer-limit', 'ag-sync-commit', 'log-rate-governor', 'hyperscale-log-service', 'not-log'] as CauseId[]) {
      assert.equal(byId(a, id).share, null, id);
      assert.equal(byId(a, id).notMeasured?.grant, 'GRANT VIEW SERVER STATE TO [lens];', id);
    }
    assert.equal(a.dominant, null);
    // The not measured may still be the cause: they come before a measured zero (tempdb, which this database is not).
    assert.deepEqual(a.causes.map((c) => c.share), [...Array(8).fill(null), 0], 'not measured before the measured zero');
    assert.equal(a.causes[8]!.cause, 'tempdb');
    const lead = causeLead(a, null)!;
    assert.equal(lead.cause, null);
    assert.match(lead.text, /^Causes of commit time not measured — no permission To enable: GRANT VIEW SERVER STATE TO \[lens\];$/);
    const groups = notMeasuredGroups(a);
    assert.equal(groups.length, 1);
    assert.equal(groups[0]!.causes.length, 8);
  });

  it('unreadable log file stats: the disk is not measured, WRITELOG is still split by flushes per commit', () => {
    const r = run({ commits: 100, flushesCounter: 50, waits: { WRITELOG: { count: 100, ms: 100 } } });
    r.diff.files = { status: 'unavailable', measurement: 'fileStats', cause: 'permission', reason: 'No per-file IO.', grant: 'GRANT VIEW SERVER STATE TO [lens];', errorNumber: 300 };
    r.missing = [{ measurement: 'fileStats', reason: 'No per-file IO.', grant: 'GRANT VIEW SERVER STATE TO [lens];' }];
    const a = assessCauses([r]);
    assert.equal(byId(a, 'log-disk').share, null);
    assert.equal(byId(a, 'log-disk').notMeasured?.reason, 'No per-file IO.');
    near(byId(a, 'tiny-flushes').ms, 50, 'own flushes');
    near(byId(a, 'group-commit').ms, 50, 'shared');
  });

  it('a recording reads the server-wide waits and says so', () => {
    const r = run({ commits: 10, flushesCounter: 10, cpuMs: null });
    r.recording = { kind: 'window', ended: 'stopped', signal: null, spawnError: null, failed: false, serverWide: [], databaseWide: [], transactions: null, writeTransactions: null };
    r.durationMs = 1000;
    r.diff.serverWaits = ok({ top: [{ waitType: 'WRITELOG', waitingTasks: 10, waitTimeMs: 800, signalWaitTimeMs: 0, resourceWaitTimeMs: 800, percent: null, avgWaitMs: 80, avgResourceWaitMs: 80, avgSignalWaitMs: 0, maxWaitTimeMsSinceStart: 80 }], others: { waitTypes: 0, waitTimeMs: 0, waitingTasks: 0 }, totalWaitTimeMs: 800, totalSignalWaitTimeMs: 0, totalResourceWaitTimeMs: 800, benignWaitTimeMs: 0 });
    const a = assessCauses([r]);
    assert.equal(a.basis.scope, 'server-wide');
    assert.match(a.notes.join(' '), /the waits are the server's, every session on it adds to them/);
    assert.ok(byId(a, 'tiny-flushes').evidence[0]!.startsWith('WRITELOG (server-wide): 800 ms over 10 waits'));
  });

  it('docs/run-result-schema.md documents every key of a cause and of causesBasis, and every cause id', () => {
    const schema = fs.readFileSync(path.resolve(__dirname, '../../../docs/run-result-schema.md'), 'utf8');
    const start = schema.indexOf('## Causes');
    const section = schema.slice(start, schema.indexOf('\n## ', start + 1));
    assert.ok(start >= 0 && section.length > 500, 'the Causes section');
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 200 } }, log: { writes: 100, bytes: 409600, stallMs: 200 } })]);
    const json = runCausesJson({ baseline: 'DISABLED', causes: { DISABLED: a } });
    const tableKeys = [...section.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([^`]+)`/g)].map((k) => k[1]!));
    for (const key of Object.keys(json.causes[0]!)) assert.ok(tableKeys.includes(key), `cause key ${key}`);
    for (const key of Object.keys(json.causesBasis!)) assert.ok(section.includes(key), `causesBasis key ${key}`);
    for (const id of CAUSE_IDS) assert.ok(section.includes(`\`${id}\``), `cause id ${id}`);
  });

  it('ranks measured causes by share (ties in the fixed order), then the not measured, then measured zeros', () => {
    const c = (cause: CauseId, share: number | null) => ({ cause, share }) as Cause;
    assert.deepEqual(rankCauses([c('not-log', 0.2), c('tempdb', null), c('tiny-flushes', 0.2), c('log-disk', 0.6), c('ag-sync-commit', null)]).map((x) => x.cause), ['log-disk', 'tiny-flushes', 'not-log', 'ag-sync-commit', 'tempdb']);
    assert.deepEqual(rankCauses([c('tempdb', 0), c('not-log', null), c('log-disk', 0.1), c('tiny-flushes', 0)]).map((x) => x.cause), ['log-disk', 'not-log', 'tiny-flushes', 'tempdb']);
  });

  it("the verdict's first line: the cause, what FORCED saved (or the share), and whether delayed durability is the lever", () => {
    const a = assessCauses([run({ commits: 100, flushesCounter: 100, waits: { LOG_RATE_GOVERNOR: { count: 100, ms: 900 }, WRITELOG: { count: 100, ms: 100 } }, log: { writes: 100, bytes: 409600, stallMs: 20 }, path: { logRateGovernance: ok({ serviceObjective: 'S0', maxLogRateBytesPerSec: 12 * 1024 * 1024, commitFeeBytes: 0, instanceMaxLogRateBytesPerSec: null }) } })]);
    assert.equal(causeLead(a, { mode: 'FORCED', factor: 1 / 0.96, conclusive: true })!.text, 'Log-rate governance caps this database at 12.00 MiB/s: FORCED saves 4 % — delayed durability is not the lever, nor is batching; a higher service objective (or less log) is.');
    assert.match(causeLead(a, { mode: 'FORCED', factor: 1.01, conclusive: false })!.text, /: FORCED saves no time beyond the noise — /);
    assert.match(causeLead(a, null)!.text, /: 90 % of the session's time — /);
    assert.equal(causeLead(undefined, null), null);
  });

  it('the comparison model, the document, the run JSON, the verdict and the Markdown all carry the causes', () => {
    const runs = [
      run({ mode: 'DISABLED', commits: 100, flushesCounter: 100, elapsedMs: 1000, waits: { WRITELOG: { count: 100, ms: 400 } }, log: { writes: 100, bytes: 409600, stallMs: 400 } }),
      run({ mode: 'FORCED', commits: 100, flushesCounter: 2, elapsedMs: 200, waits: { WAITFOR: { count: 1, ms: 5 } }, log: { writes: 2, bytes: 409600, stallMs: 1 } }),
    ];
    const model = buildComparisonModel(runs);
    assert.deepEqual(Object.keys(model.causes!), ['DISABLED', 'FORCED']);
    assert.equal(model.causes!.DISABLED!.dominant, 'tiny-flushes');
    assert.equal(model.causes!.FORCED!.dominant, 'not-log');
    const doc = comparisonDocument({ runs, status: 'completed' });
    assert.equal(doc.causes[0]!.cause, 'tiny-flushes');
    assert.deepEqual(doc.causesByMode.FORCED, model.causes!.FORCED);
    const json = JSON.parse(JSON.stringify(doc)) as typeof doc;
    assert.deepEqual(Object.keys(json.causes[0]!).slice(0, 5), ['cause', 'label', 'summary', 'share', 'ms']);
    assert.equal(json.causes[0]!.helpsDelayedDurability, true);
    const verdict = buildVerdict(model);
    assert.equal(verdict.lead!.cause, 'tiny-flushes');
    assert.match(verdict.lead!.text, /^Every commit waits for its own small log flush .*: FORCED saves 80 % \(indicative: one run per mode\) — delayed durability is the lever/);
    const md = verdictMarkdown(verdict);
    assert.equal(md[2], `**${verdict.lead!.text}**`, 'the first line under ## Verdict');
    assert.equal(md[4], `**${verdict.headline}**`);
    const report = toMarkdown(model);
    assert.match(report, /## Diagnosis\n[\s\S]*### Causes of commit time \(DISABLED\)/);
    assert.match(report, /\nIn FORCED: Not the log \(time went elsewhere\) 100 %\./);
    const single = buildComparisonModel([runs[0]!]);
    assert.equal(runCausesJson(single).causes[0]!.cause, 'tiny-flushes');
    assert.equal(runCausesJson(single).causesBasis!.dominant, 'tiny-flushes');
    assert.deepEqual(runCausesJson({ baseline: 'RUN' }), { causes: [], causesBasis: null });
  });

  it('the Markdown lists every cause once, escapes what servers send, and groups the not measured', () => {
    const hostile = ok({ serviceObjective: '*evil* <b>|x|', maxLogRateBytesPerSec: 1024 * 1024, commitFeeBytes: 0, instanceMaxLogRateBytesPerSec: null });
    const a = assessCauses([run({ commits: 10, flushesCounter: 10, waits: { LOG_RATE_GOVERNOR: { count: 10, ms: 50 } }, path: { logRateGovernance: hostile } })]);
    const md = (s: string) => s.replace(/[*|<>_`]/g, (ch) => `\\${ch}`);
    const lines = causesMarkdownLines(a, 'RUN', md).join('\n');
    // Each cause once, by its label — never by its id (issue 28: no enum keys in user text).
    for (const c of a.causes) assert.equal(lines.split(`**${md(c.label)}**`).length - 1, 1, c.cause);
    for (const c of a.causes) assert.ok(!lines.includes(`\`${c.cause}\``), c.cause);
    assert.ok(lines.includes('service objective \\*evil\\* \\<b\\>\\|x\\|'), 'escaped');
    assert.ok(!lines.includes('<b>'));
  });

  it('the panel section: every cause with its share and evidence as text, the not measured with the GRANT block', () => {
    const a = assessCauses([run({ commits: 10, flushesCounter: 10, waits: { WRITELOG: { count: 10, ms: 100 } }, log: { writes: 10, bytes: 40960, stallMs: 100 }, path: { logRateGovernance: ok({ serviceObjective: '<img src=x onerror=alert(1)>', maxLogRateBytesPerSec: 1, commitFeeBytes: 0, instanceMaxLogRateBytesPerSec: null }) } })]);
    const denied = assessCauses([run({ sessionWaitsReadable: false })]);
    const html = toHtml(causesSection({ DISABLED: a, FORCED: denied }, 'DISABLED')!);
    assert.match(html, /data-cause="log-disk" data-share="0.5"/);
    assert.match(html, /Causes of commit time \(DISABLED\)/);
    assert.match(html, /In FORCED: no waits or CPU recorded on the server/);
    assert.ok(!html.includes('<img'), 'server text stays text');
    const deniedHtml = toHtml(causesSection({ RUN: denied }, 'RUN')!);
    assert.match(deniedHtml, /data-share="not-measured"/);
    assert.match(deniedHtml, /<code class="dl-block">GRANT VIEW SERVER STATE TO \[lens\];<\/code>/);
    assert.equal(causesSection(undefined, 'RUN'), null);
  });
});
