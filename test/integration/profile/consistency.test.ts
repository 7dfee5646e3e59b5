// The cross-checks every run makes (issue 33 item 3), end to end through the real CLI against the in-process stand-in:
// all pass when the sources are whole; each stand-in switch that breaks one source (consistencyFaults.ts) turns the
// matching check — and only the checks that read that source — to "disagrees", shown in the JSON, next to the figures
// in the Markdown, and in the comparison document; the WRITELOG time check infers wait_info's unit (D2). Figures are
// the stand-in model's; what is asserted is that sources agree or not, never a SQL Server figure.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/commands/shared';
import { processIO } from '../../../src/cli/io';
import type { ConsistencyCheck, RunResult } from '../../../src/profile/types';
import type { ComparisonDocument } from '../../../src/report/document';
import { consistencyFaults } from '../../standin/model/consistencyFaults';
import type { StandinOptions } from '../../standin/model/index';
import { useStandins } from '../../support/standin';
import { s1Script } from './standin';

const INSERTS = 150;

describe('integration: consistency checks on every run (CLI, stand-in fault switches)', function () {
  this.timeout(120000);
  let dir: string;
  const standins = useStandins({ expectConnectionsClosed: true });
  let out: string[];
  let err: string[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-consistency-'));
    await writeFile(join(dir, 's1.sql'), s1Script(INSERTS));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(options: StandinOptions, faults: (f: ReturnType<typeof consistencyFaults>) => void, ...args: string[]): Promise<string> {
    const h = await standins.start(options);
    faults(consistencyFaults(h.engine.state));
    out = [];
    err = [];
    const io = { ...processIO(), env: { PW: h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const connection = ['--server', '127.0.0.1', '--port', String(h.server.port), '--database', 'lab', '--user', 'sa', '--password-env', 'PW', '--encrypt', 'false', '--journal', join(dir, 'j.json')];
    const code = await runCli([...args, ...connection], io);
    assert.equal(code, EXIT.ok, err.join(''));
    return out.join('');
  }
  const profileJson = async (options: StandinOptions, faults: (f: ReturnType<typeof consistencyFaults>) => void = () => undefined) =>
    JSON.parse(await cli(options, faults, 'profile', join(dir, 's1.sql'), '--json', '--yes')) as RunResult;
  const statusOf = (checks: readonly ConsistencyCheck[] | undefined) => Object.fromEntries((checks ?? []).map((c) => [c.check, c.status]));

  it('whole sources: every check of a profile passes, each with its two figures and tolerance', async () => {
    const run = await profileJson({});
    assert.deepEqual(statusOf(run.consistency), {
      'log-flushes:xe-vs-counter': 'passed',
      'log-flushes:counter-vs-file-writes': 'passed',
      'log-flushes:xe-vs-file-writes': 'passed',
      'log-bytes:xe-vs-file': 'passed',
      'log-bytes:counter-vs-file': 'passed',
      'writelog-waits:statements-vs-session': 'passed',
      'writelog-time:statements-vs-session': 'passed',
    });
    for (const c of run.consistency!) {
      assert.equal(c.sources.length, 2, c.check);
      assert.ok(c.tolerance && c.differencePercent !== null, c.check);
      assert.match(c.detail, /they agree \(\d+\.\d % apart; tolerance \d+ % or [\d,]+ /, c.check);
    }
    const waits = run.consistency!.find((c) => c.check === 'writelog-waits:statements-vs-session')!;
    assert.deepEqual(waits.sources.map((s) => s.value), [INSERTS, INSERTS]);
  });

  it('halving the Log Flushes/sec counter turns exactly the two checks that read it to "disagrees" (50 %), marked beside the flush rows', async () => {
    const run = await profileJson({}, (f) => (f.counterFactors = { 'Log Flushes/sec': 0.5 }));
    const status = statusOf(run.consistency);
    assert.equal(status['log-flushes:xe-vs-counter'], 'disagrees');
    assert.equal(status['log-flushes:counter-vs-file-writes'], 'disagrees');
    assert.equal(status['log-flushes:xe-vs-file-writes'], 'passed', 'the two sources the switch did not touch still agree');
    assert.equal(status['log-bytes:counter-vs-file'], 'passed');
    const c = run.consistency!.find((x) => x.check === 'log-flushes:xe-vs-counter')!;
    assert.equal(c.differencePercent, 50);
    assert.match(c.detail, /disagree by 50\.0 %/);
    // The Markdown shows it next to the figures (the table rows and the verdict's flushes-per-commit) and in its block.
    const md = await cli({}, (f) => (f.counterFactors = { 'Log Flushes/sec': 0.5 }), 'profile', join(dir, 's1.sql'), '--yes');
    assert.match(md, /\| Log flushes \(counter\) ⚠ sources disagree \(2 checks; see Consistency\) \|/);
    assert.match(md, /Log flushes per commit: .* — the flush sources disagree/);
    assert.match(md, /## Consistency\n\nIndependent sources of the same figure, reconciled on this server on every run:\n\n- \*\*DISAGREES\*\* — Log flushes: Extended Events count vs the Log Flushes\/sec counter: /);
  });

  it("withholding the session's WRITELOG waits turns the per-statement vs session checks to \"disagrees\"", async () => {
    const run = await profileJson({}, (f) => (f.withholdSessionWaits = ['WRITELOG']));
    const status = statusOf(run.consistency);
    assert.equal(status['writelog-waits:statements-vs-session'], 'disagrees');
    assert.equal(status['writelog-time:statements-vs-session'], 'disagrees');
    assert.equal(status['log-flushes:xe-vs-counter'], 'passed');
    const c = run.consistency!.find((x) => x.check === 'writelog-waits:statements-vs-session')!;
    assert.deepEqual(c.sources.map((s) => s.value), [INSERTS, 0]);
    // Beside the figures concerned: the session's WRITELOG rows and, above the statements table, the warning.
    const md = await cli({}, (f) => (f.withholdSessionWaits = ['WRITELOG']), 'profile', join(dir, 's1.sql'), '--yes');
    assert.match(md, /\| WRITELOG waits \(session\) ⚠ sources disagree \(one check; see Consistency\) \| 0 \|/);
    assert.match(md, /> ⚠ The per-statement WRITELOG figures disagree with the session's own waits \(WRITELOG waits: per-statement trace vs the session's sys\.dm_exec_session_wait_stats; WRITELOG time: .*?\): .* See Consistency\.\n\n## Statements/);
  });

  it('D2: wait_info whose unit the server does not state is read as milliseconds when the session waits say so ("unit inferred"), and the per-statement WRITELOG ms follow', async () => {
    // 4 ms log writes (HDD-like), wait_info only (no wait_completed), no unit in the field descriptions.
    const run = await profileJson({ logWriteLatencyMs: 4, missingXeEvents: ['wait_completed'] }, (f) => (f.unstatedDurationUnits = true));
    const time = run.consistency!.find((x) => x.check === 'writelog-time:statements-vs-session')!;
    assert.equal(time.status, 'passed', time.detail);
    assert.deepEqual(time.unit, { event: 'wait_info', used: 'microseconds', assumed: true, inferred: 'milliseconds' });
    assert.match(time.detail, /Unit inferred: wait_info\.duration is in milliseconds \(the server names no unit for it; the session's WRITELOG time fits milliseconds and not microseconds\)\./);
    const a = run.statementAttribution!;
    assert.equal(a.waitDurationUnit, 'milliseconds');
    assert.equal(a.waitDurationUnitInferred, true);
    assert.ok(Math.abs(a.attributedWritelogMs! - a.sessionWritelogMs!) <= a.sessionWritelogMs! * 0.2, `${a.attributedWritelogMs} vs ${a.sessionWritelogMs}`);
    const insert = run.statements!.find((s) => /INSERT/.test(s.text))!;
    // Read as microseconds the 4 ms waits would be 0.004 ms each; in the inferred unit they are whole milliseconds.
    assert.ok(insert.writelogMs! / insert.writelogWaits! >= 1, `${insert.writelogMs} ms for ${insert.writelogWaits} waits`);
  });

  it('compare --json: every run carries its checks, and the document sums them per check (one disagreeing run makes the check disagree)', async () => {
    const doc = JSON.parse(await cli({}, (f) => (f.counterFactors = { 'Log Bytes Flushed/sec': 0.5 }), 'compare', join(dir, 's1.sql'), '--repeat', '1', '--no-warmup', '--yes', '--json')) as ComparisonDocument;
    const byMode = (mode: string) => doc.modes.find((m) => m.mode === mode)!.runs[0]!.consistency!.find((c) => c.check === 'log-bytes:counter-vs-file')!;
    // DISABLED flushes every commit (hundreds of KB): half of it is far outside the tolerance. FORCED writes a few
    // blocks, whose halving stays within one log block (60 KB) — agreement within the tolerance, as designed.
    assert.equal(byMode('DISABLED').status, 'disagrees', byMode('DISABLED').detail);
    const forced = byMode('FORCED');
    assert.ok(forced.sources[1]!.value <= 61440 * 2, `FORCED wrote ${forced.sources[1]!.value} bytes`);
    const bytes = doc.consistency.find((c) => c.check === 'log-bytes:counter-vs-file')!;
    assert.equal(bytes.status, 'disagrees');
    assert.equal(bytes.runs.disagrees + bytes.runs.passed, 2);
    assert.match(bytes.detail, new RegExp(`^Disagrees in ${bytes.runs.disagrees} of 2 runs; DISABLED run 1: `));
    // A comparison never traces statements: the WRITELOG checks say why they could not run.
    const waits = doc.consistency.find((c) => c.check === 'writelog-waits:statements-vs-session')!;
    assert.equal(waits.status, 'not-possible');
    assert.match(waits.detail, /Not possible: Statements are not traced during a comparison/);
    assert.equal(doc.consistency.find((c) => c.check === 'log-flushes:xe-vs-counter')!.status, 'passed');
  });
});
