// Load: a 1,000,000-row result and GO 10000 through src/db runWorkload with bounded heap growth, 20 comparisons in
// a row leaving no connection, timer, event session or journal entry behind, and the language server on a 10 MB file.
import { strict as assert } from 'node:assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connect } from '../../src/db/connect';
import { runWorkload } from '../../src/db';
import type { BatchReport } from '../../src/db/types';
import { MAX_LENSES } from '../../src/server/codeLenses';
import { LspTestClient } from '../server/support/lspClient';
import { LOAD_CASES } from './cases';
import { compare, leftBehind, newJournal } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

/** A full GC (V8's gc() exposed at run time, since mocha is not started with --expose-gc). */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

interface HeapUse<T> {
  result: T;
  /** Highest heapUsed seen while running, over the start (garbage between GCs included). */
  peakMb: number;
  /** heapUsed after a full GC at the end, over the start after a full GC: what the run kept. */
  retainedMb: number;
}

/** Runs `body` while sampling heapUsed; returns the peak growth and what stays after a full GC, in MB. */
async function heapUse<T>(body: () => Promise<T>): Promise<HeapUse<T>> {
  collectGarbage();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20); // sampling period, not a timing assumption
  try {
    const result = await body();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    collectGarbage();
    const mb = (n: number) => n / 1024 / 1024;
    return { result, peakMb: mb(peak - baseline), retainedMb: mb(process.memoryUsage().heapUsed - baseline) };
  } finally {
    clearInterval(sampler);
  }
}

/** Active timers of this process (Node's resource list), to prove a run leaves none behind. */
function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate').length;
}

describe('reliability: load (stand-in)', function () {
  this.timeout(120000);
  let h: ReliabilityStandin;
  before(async () => {
    h = await startReliabilityStandin();
  });
  after(async () => {
    await h?.close();
  });

  async function runOnce(text: string, repeat: number, keepMessages?: number): Promise<BatchReport> {
    const session = await connect(h.profile(), h.secret, { role: 'workload' });
    try {
      return await runWorkload(session, { text, repeat, firstLine: 0 }, keepMessages === undefined ? {} : { keepMessages }).done;
    } finally {
      await session.close();
    }
  }

  it(LOAD_CASES.rows.title, async () => {
    const { result, peakMb, retainedMb } = await heapUse(() =>
      runOnce('SELECT TOP (1000000) a.object_id AS a, b.object_id AS b, a.name AS n FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b;', 1),
    );
    assert.equal(result.error, null);
    assert.equal(result.rowsReturned, 1_000_000);
    assert.equal(result.resultSets, 1);
    // 1,000,000 kept rows of three columns would be well over 150 MB at the peak; streaming keeps only garbage
    // between GCs (measured ~15-30 MB here, the in-process stand-in included) and nothing afterwards.
    assert.ok(peakMb < 128, `heap peaked ${peakMb.toFixed(1)} MB over the start`);
    assert.ok(retainedMb < 16, `heap kept ${retainedMb.toFixed(1)} MB after the run`);
  });

  it(LOAD_CASES.go.title, async () => {
    let forwarded = 0;
    const { result, peakMb, retainedMb } = await heapUse(async () => {
      const session = await connect(h.profile(), h.secret, { role: 'workload' });
      try {
        return await runWorkload(session, { text: "PRINT 'tick'; SELECT 1 AS one;", repeat: 10000, firstLine: 0 }, { keepMessages: 100, onMessage: () => void forwarded++ }).done;
      } finally {
        await session.close();
      }
    });
    assert.equal(result.error, null);
    assert.equal(result.iterationsCompleted, 10000);
    assert.equal(result.rowsReturned, 10000);
    assert.equal(result.messageCount, 10000);
    assert.equal(forwarded, 10000);
    assert.equal(result.messages.length, 100, 'only the first keepMessages are kept');
    // Peak is mostly per-request garbage (measured 80-115 MB between GCs); what stays must not scale with 10,000
    // repetitions (the in-process stand-in keeps a few MB of its own per 10,000 requests).
    assert.ok(peakMb < 256, `heap peaked ${peakMb.toFixed(1)} MB over the start`);
    assert.ok(retainedMb < 24, `heap kept ${retainedMb.toFixed(1)} MB after the run`);
  });

  it(LOAD_CASES.repeat.title, async () => {
    await waitUntil(() => h.server.connections === 0, 'earlier connections closed');
    const timersBefore = timers();
    const journal = newJournal();
    for (let i = 0; i < 20; i++) {
      const result = await compare(h, 'lab', journal);
      assert.equal(result.status, 'completed', `comparison ${i + 1}: ${result.error?.message}`);
      assert.equal(result.restore?.verifiedSetting, 'DISABLED');
      assert.deepEqual(await journal.list(), []);
      assert.deepEqual(h.leftoverSessions(), []);
    }
    await waitUntil(() => h.server.connections === 0, 'every comparison connection closed');
    // tedious clears its timers on close; allow the one sampler-free margin the event loop may still hold.
    await waitUntil(() => timers() <= timersBefore, `timers back to ${timersBefore} (now ${timers()})`);
    assert.deepEqual(await leftBehind(h, 'lab'), { setting: 'DISABLED', eventSessions: [] });
    await waitUntil(() => h.server.connections === 0, 'the check connection closed');
  });

  it(LOAD_CASES.lsp.title, async function () {
    this.timeout(150000);
    const unit = [
      'SET NOCOUNT ON;',
      'DECLARE @i int = 0;',
      'WHILE @i < 10000',
      'BEGIN',
      '    INSERT INTO dbo.t DEFAULT VALUES;',
      '    SET @i += 1;',
      'END;',
      'BEGIN TRANSACTION;',
      '    UPDATE dbo.t SET col1 = 1 WHERE id = 1;',
      'COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);',
      'GO',
      '',
    ].join('\n');
    const text = unit.repeat(Math.ceil((10 * 1024 * 1024) / unit.length));
    assert.ok(text.length >= 10 * 1024 * 1024);
    const { client } = await LspTestClient.start();
    const deadline = <T>(p: Promise<T>, what: string, ms: number): Promise<T> =>
      Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);
    try {
      const uri = 'file:///reliability/ten-megabytes.sql';
      await client.open(uri, text);
      // Generous deadlines: this proves the server answers at all on a 10 MB document, not how fast.
      const lastLine = text.split('\n').length - 3; // the COMMIT of the last unit
      const hover = await deadline(client.hover(uri, { line: lastLine, character: 2 }), 'hover', 60000);
      assert.ok(hover, 'a hover on the last COMMIT');
      const lenses = await deadline(client.codeLenses(uri), 'codeLens', 60000);
      // Capped per document (src/server/codeLenses.ts MAX_LENSES): the 10 MB script has thousands of COMMITs.
      assert.equal(lenses.length, MAX_LENSES, `${lenses.length} lenses`);
      // Still responsive afterwards: a second hover near the top answers too.
      assert.ok(await deadline(client.hover(uri, { line: 9, character: 2 }), 'second hover', 30000));
    } finally {
      await client.stop();
    }
  });
});
