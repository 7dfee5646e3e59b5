// Per-statement attribution on what real servers send (issue 33): query_hash 0 on plan-less statements never merges
// them, offset_end is inclusive (the statement's text ends with its last character), a procedure row keeps its
// module, and histograms that may have folded statements make the counts "approximate — why". The events are the
// published samples of test/fixtures/real-server.

import { strict as assert } from 'node:assert';
import { locateStatement, StatementAccumulator, statementEndIndex } from '../../../src/profile/statementAttribution';
import { readEventFileRows } from '../../../src/xe/eventFile';
import { readRingBufferXml, type XeEvent } from '../../../src/xe/reader';
import { STATEMENT_HISTOGRAMS_EVENT, type StatementHistograms, type StatementHistogramsEvent } from '../../../src/xe/statementHistograms';
import { statementLineText } from '../../../src/report/statements';
import { realManifest, realRows, realText } from '../xe/realServerFixtures';

const manifest = realManifest();
const sample = (file: string) => manifest.samples.find((s) => s.file === file)!;
const eventOf = (file: string): XeEvent => readEventFileRows(realRows(sample(file)), null).events[0]!;
const str = (e: XeEvent, name: string) => String((e.data[name] ?? e.actions[name])!.value);
const num = (e: XeEvent, name: string) => Number((e.data[name] ?? e.actions[name])!.value);
const ev = (e: XeEvent) => ({ line: num(e, 'line_number'), offset: num(e, 'offset'), offsetEnd: num(e, 'offset_end'), statement: str(e, 'statement') });
const writelog = (): XeEvent => ({ name: 'wait_info', package: 'sqlos', timestamp: null, data: { wait_type: { value: 186, text: 'WRITELOG' }, opcode: { value: 1, text: 'End' }, duration: { value: 3 } }, actions: {} });

function histograms(h: Partial<StatementHistograms>): StatementHistogramsEvent {
  const full: StatementHistograms = { waitsByHash: null, executionsByHash: null, waitEvents: null, statementEvents: null, notes: [], ...h };
  return { name: STATEMENT_HISTOGRAMS_EVENT, package: 'durability_lens', timestamp: null, data: {}, actions: {}, histograms: full };
}

describe('profile: per-statement attribution on real-server semantics', () => {
  it('a statement\'s text from its offsets ends with its last character (offset_end inclusive; 30 characters at 0 end at 58)', () => {
    const e = eventOf('xelogstash-sql-statement-completed.xml');
    const batch = str(e, 'sql_text');
    assert.deepEqual([num(e, 'offset'), num(e, 'offset_end'), batch.length], [0, 58, 30]);
    assert.equal(locateStatement([{ text: batch, repeat: 1, firstLine: 0 }], ev(e))!.text, 'EXECUTE ibo_RefreshTransaction');
    // Azure SQL Database: two statements in a batch typed with CRLF line ends (the page shows LF).
    const azure = readRingBufferXml(realText(sample('learn-azure-ring-buffer-statement-starting.xml'))).events;
    for (const a of azure) {
      const text = str(a, 'sql_text').replace(/\n/g, '\r\n');
      const statement = str(a, 'statement').replace(/\n/g, '\r\n');
      assert.equal(text.slice(num(a, 'offset') / 2, statementEndIndex(num(a, 'offset_end'), text.length)), statement);
      assert.equal(locateStatement([{ text, repeat: 1, firstLine: 0 }], ev(a))!.text, statement.replace(/\s+/g, ' '));
    }
    // -1 (and no value) runs to the end of the text.
    assert.equal(statementEndIndex(-1, 42), 42);
    assert.equal(statementEndIndex(null, 42), 42);
  });

  it('inside a procedure: the statement from the definition at offset 9014..9122 is exactly its 55 characters', () => {
    const e = eventOf('xelogstash-sp-statement-completed.xml');
    const statement = str(e, 'statement');
    const definition = 'x'.repeat(num(e, 'offset') / 2) + statement + ';\nEND';
    const acc = new StatementAccumulator({ batches: [{ text: str(e, 'sql_text'), repeat: 1, firstLine: 0 }], statementUnit: 'microseconds', waitUnit: 'milliseconds', modules: [{ name: 'ibo_Prepaid_AdjustBalances', firstLine: 0, text: definition }] });
    acc.add(e);
    const [row] = acc.finish();
    assert.deepEqual([row!.text, row!.line, row!.module], [statement, 152, 'ibo_Prepaid_AdjustBalances']);
  });

  it('two plan-less statements (query_hash 0: EXECUTE in a batch, EXEC inside a procedure) never share a row, even with the server\'s hash-0 counts', () => {
    const batchStatement = eventOf('xelogstash-sql-statement-completed.xml');
    const procStatement = eventOf('xelogstash-sp-statement-completed.xml');
    assert.equal(str(batchStatement, 'query_hash'), '0');
    assert.equal(str(procStatement, 'query_hash'), '0');
    const acc = new StatementAccumulator({
      batches: [{ text: str(batchStatement, 'sql_text'), repeat: 1, firstLine: 0 }],
      statementUnit: 'microseconds',
      waitUnit: 'milliseconds',
      modules: [{ name: 'ibo_Prepaid_AdjustBalances', firstLine: 0 }],
    });
    acc.add(writelog());
    acc.add(procStatement);
    acc.add(writelog());
    acc.add(batchStatement);
    const h = histograms({ executionsByHash: new Map([['0', 2]]), waitsByHash: new Map([['0', 2]]), waitEvents: 2, statementEvents: 2 });
    acc.add(h);
    const rows = acc.finish();
    assert.equal(rows.length, 2);
    const byLine = new Map(rows.map((r) => [r.line, r]));
    assert.deepEqual([...byLine.keys()].sort((a, b) => a - b), [1, 152]);
    for (const r of rows) {
      assert.equal(r.queryHash, '0');
      assert.equal(r.sharedLines, undefined);
      assert.deepEqual([r.executions, r.writelogWaits, r.approximate], [1, 1, undefined]);
    }
    assert.equal(byLine.get(152)!.module, 'ibo_Prepaid_AdjustBalances');
    assert.equal(byLine.get(152)!.text, 'exec ibo_Prepaid_AdjustAccountBalance_Wallet @AccountID');
    assert.equal(byLine.get(1)!.text, 'EXECUTE ibo_RefreshTransaction');
    assert.ok(h.histograms.notes.some((n) => /query_hash 0 .*never merged by hash/.test(n)), h.histograms.notes.join(' | '));
    assert.deepEqual([acc.attributedWaits, acc.unattributedWaits], [2, 0]);
  });

  it('the server\'s hash-0 totals beyond the sample are never split or guessed: sample counts, "approximate — why", the rest unattributed', () => {
    const batchStatement = eventOf('xelogstash-sql-statement-completed.xml');
    const procStatement = eventOf('xelogstash-sp-statement-completed.xml');
    const acc = new StatementAccumulator({ batches: [{ text: str(batchStatement, 'sql_text'), repeat: 1, firstLine: 0 }], statementUnit: 'microseconds', waitUnit: 'milliseconds', modules: [{ name: 'ibo_Prepaid_AdjustBalances', firstLine: 0 }] });
    acc.add(writelog());
    acc.add(procStatement);
    acc.add(batchStatement);
    const h = histograms({ executionsByHash: new Map([['0', 10]]), waitsByHash: new Map([['0', 3]]), waitEvents: 3, statementEvents: 10 });
    acc.add(h);
    const rows = acc.finish();
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => [r.line, r.executions, r.writelogWaits, r.counts]).sort(), [[1, 1, 0, 'sample'], [152, 1, 1, 'sample']]);
    for (const r of rows) assert.match(r.approximate ?? '', /^approximate — counted from the sample: the server counted 10 executions and 3 WRITELOG waits of plan-less statements under query_hash 0 together, which cannot be split per statement, and the sample holds 2 and 1 of them$/);
    assert.deepEqual([acc.attributedWaits, acc.unattributedWaits], [1, 2]);
    assert.ok(h.histograms.notes.some((n) => /the difference is not attributed to a line/.test(n)));
  });

  it('statements of a procedure or trigger not in the file: rows of their own under its name on the calling line; dynamic SQL\'s hashes count on its caller, never a second row', () => {
    // As real servers send it: a procedure's statements are sp_statement_completed with its object_name and their own
    // query_hash, the EXEC carries 0 (xelogstash-sp-statement-completed.xml); dynamic SQL has no object_name.
    const batch = 'INSERT INTO t VALUES (1);\nEXEC dbo.p;\nUPDATE t SET v = 2;\nEXEC (N\'DELETE u\');';
    const at = (text: string) => batch.indexOf(text);
    const stmt = (name: string, text: string, hash: bigint, where: { line: number; offset: number } | null, objectName = ''): XeEvent => ({
      name, package: 'sqlserver', timestamp: null,
      data: { line_number: { value: where?.line ?? 3 }, offset: { value: (where?.offset ?? 40) * 2 }, offset_end: { value: ((where?.offset ?? 40) + text.length - 1) * 2 }, statement: { value: text }, object_name: { value: objectName }, duration: { value: 10 }, row_count: { value: 1 } },
      actions: { query_hash: { value: hash } },
    });
    const N = 4;
    const acc = new StatementAccumulator({ batches: [{ text: batch, repeat: 1, firstLine: 0 }], statementUnit: 'microseconds', waitUnit: 'milliseconds' });
    for (let i = 0; i < N; i++) {
      acc.add(writelog());
      acc.add(stmt('sql_statement_completed', 'INSERT INTO t VALUES (1)', 11n, { line: 1, offset: at('INSERT') }));
      acc.add(stmt('sp_statement_completed', 'SET NOCOUNT ON', 0n, null, 'p'));
      acc.add(writelog());
      acc.add(stmt('sp_statement_completed', 'INSERT INTO u VALUES (1)', 22n, null, 'p'));
      acc.add(stmt('sql_statement_completed', 'EXEC dbo.p', 0n, { line: 2, offset: at('EXEC dbo.p') }));
      // A trigger of the UPDATE: its statement is a row of the trigger on the UPDATE's line.
      acc.add(writelog());
      acc.add(stmt('sp_statement_completed', 'INSERT INTO audit VALUES (1)', 33n, null, 'trg'));
      acc.add(stmt('sql_statement_completed', 'UPDATE t SET v = 2', 44n, { line: 3, offset: at('UPDATE') }));
      // Dynamic SQL: folded into the EXEC that ran it, and so are the server's counts under its hash.
      acc.add(writelog());
      acc.add(stmt('sp_statement_completed', 'DELETE u', 55n, { line: 1, offset: 0 }));
      acc.add(stmt('sql_statement_completed', "EXEC (N'DELETE u')", 0n, { line: 4, offset: at("EXEC (N'") }));
    }
    const h = histograms({
      executionsByHash: new Map([['11', N], ['0', 3 * N], ['22', N], ['33', N], ['44', N], ['55', N]]),
      waitsByHash: new Map([['11', N], ['22', N], ['33', N], ['55', N]]),
      waitEvents: 4 * N,
      statementEvents: 8 * N,
    });
    acc.add(h);
    const rows = acc.finish();
    assert.deepEqual(rows.map((r) => [r.line, r.module ?? null, r.text, r.executions, r.writelogWaits, r.nestedStatements, r.approximate ?? null]).sort(), [
      [1, null, 'INSERT INTO t VALUES (1)', N, N, 0, null],
      [2, null, 'EXEC dbo.p', N, 0, 0, null],
      [2, 'p', 'INSERT INTO u VALUES (1)', N, N, 0, null],
      [2, 'p', 'SET NOCOUNT ON', N, 0, 0, null],
      [3, null, 'UPDATE t SET v = 2', N, 0, 0, null],
      [3, 'trg', 'INSERT INTO audit VALUES (1)', N, N, 0, null],
      [4, null, "EXEC (N'DELETE u')", N, N, N, null],
    ]);
    assert.ok(!rows.some((r) => r.located === false), 'no "not located" row for a hash the sample saw');
    assert.deepEqual([acc.attributedWaits, acc.unattributedWaits], [4 * N, 0], 'every wait once');
    // The Markdown and the panel name the procedure beside the line; a name from the server stays on its line.
    assert.equal(statementLineText(rows.find((r) => r.text === 'INSERT INTO u VALUES (1)')!), '2 (in p)');
    assert.equal(statementLineText({ ...rows[0]!, module: 'p\n| x |' }), `${rows[0]!.line} (in p\\x0a| x |)`);
  });

  it('a histogram that may have folded statements is detected without trusting it: a sampled hash with no slot, or more statements than slots/2', () => {
    const batch = 'INSERT t VALUES (1);\nINSERT u VALUES (2);\nINSERT v VALUES (3);';
    const statementAt = (text: string, hash: string): XeEvent => {
      const at = batch.indexOf(text);
      return {
        name: 'sql_statement_completed', package: 'sqlserver', timestamp: null,
        data: { line_number: { value: batch.slice(0, at).split('\n').length }, offset: { value: at * 2 }, offset_end: { value: (at + text.length - 1) * 2 }, statement: { value: text }, duration: { value: 10 }, row_count: { value: 1 } },
        actions: { query_hash: { value: BigInt(hash) } },
      };
    };
    const run = (h: Partial<StatementHistograms>) => {
      const acc = new StatementAccumulator({ batches: [{ text: batch, repeat: 1, firstLine: 0 }], statementUnit: 'microseconds', waitUnit: 'milliseconds' });
      acc.add(statementAt('INSERT t VALUES (1);', '13574406096104372066'));
      acc.add(statementAt('INSERT u VALUES (2);', '376380086247690154'));
      acc.add(statementAt('INSERT v VALUES (3);', '16432268320504878462'));
      const e = histograms(h);
      acc.add(e);
      return { rows: acc.finish(), notes: e.histograms.notes };
    };
    // Folded: two slots returned for three statements, the third statement's executions credited to another hash.
    const folded = run({ executionsByHash: new Map([['13574406096104372066', 2], ['376380086247690154', 1]]), executionSlots: 256 });
    for (const r of folded.rows) assert.match(r.approximate ?? '', /1 statement hash\(es\) of the sample have no slot in the executions histogram/);
    assert.ok(folded.notes.some((n) => /approximate — .*may have folded/.test(n)));
    // Every hash placed, but three statements for four slots: past half full.
    const crowded = run({ executionsByHash: new Map([['13574406096104372066', 1], ['376380086247690154', 1], ['16432268320504878462', 1]]), executionSlots: 4 });
    for (const r of crowded.rows) assert.match(r.approximate ?? '', /3 distinct statements for the executions histogram's 4 slots/);
    // The same counts with room to spare: exact, nothing approximate.
    const roomy = run({ executionsByHash: new Map([['13574406096104372066', 1], ['376380086247690154', 1], ['16432268320504878462', 1]]), executionSlots: 16384 });
    for (const r of roomy.rows) assert.deepEqual([r.approximate, r.counts, r.executions], [undefined, 'exact', 1]);
  });
});
