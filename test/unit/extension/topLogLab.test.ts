// Lab vs production (issue 30, item 3): a profile added to the run history reaches Heaviest Log Writers (onDidAdd), and
// its statements are found among the routine's production statements by query_hash or by text.
import { strict as assert } from 'node:assert';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { RunHistory, type KeyValueStore } from '../../../src/extension/history/runHistory';
import { ok } from '../../../src/probes/measurement';
import { buildTopLogDocument, routineProductions } from '../../../src/report/topLog';
import { labStatementsOf, queryHashHex } from '../../../src/report/topLogText';
import { history as qsHistory, queryRow } from '../probes/topLogFixtures';
import { makeRun } from '../report/runFixture';

const memory = (): KeyValueStore => {
  const values = new Map<string, unknown>();
  return { get: <T>(k: string) => values.get(k) as T | undefined, update: async (k, v) => void values.set(k, JSON.parse(JSON.stringify(v))) };
};

describe('Heaviest Log Writers: the lab run next to production', () => {
  it('hears every run added to the history, until the listener is disposed', async () => {
    const history = new RunHistory(memory(), () => 10);
    const heard: number[] = [];
    const listener = history.onDidAdd((_panel, runs) => heard.push(runs.length));
    const run = makeRun({ mode: null });
    await history.add(panelDataFromRun(run, 'srv', new Date(0)), [run]);
    listener.dispose();
    await history.add(panelDataFromRun(run, 'srv', new Date(1)), [run, run]);
    assert.deepEqual(heard, [1]);
  });

  it('writes XE\'s decimal query_hash as Query Store writes binary(8)', () => {
    assert.equal(queryHashHex('13439889529761249077'), '0xBA841451D9E93735');
    assert.equal(queryHashHex('1'), '0x0000000000000001');
    assert.equal(queryHashHex('0'), null, 'plan-less statements carry 0: never a key');
    assert.equal(queryHashHex('18446744073709551616'), null, 'beyond 64 bits');
    assert.equal(queryHashHex('-5'), null);
    assert.equal(queryHashHex(undefined), null);
  });

  it('finds the routine\'s log-writing statements in the run by hash, by text, or by module — and nothing else', () => {
    const doc = buildTopLogDocument(qsHistory({ rows: ok([queryRow({ queryHash: '0xBA841451D9E93735' }), queryRow({ queryId: '8', queryHash: '0x0000000000000009', text: 'DELETE FROM dbo.t WHERE v < 0', logBytes: 800, executions: 4 })]) }), { standIn: true });
    const p = routineProductions(doc)[0]!;
    const figure = (over: object) => ({ line: 1, text: '', executions: 1, durationMs: 1, writelogWaits: 0, writelogMs: 0, rows: 0, batchIndex: -1, nestedStatements: 0, ...over });
    const run = makeRun({ mode: null });
    run.statements = [
      figure({ queryHash: '13439889529761249077', executions: 100 }),
      figure({ text: 'DELETE  FROM dbo.t\nWHERE v < 0;', executions: 2 }),
      figure({ text: 'UPDATE dbo.t SET v = 0', module: 'load_rows', executions: 3 }),
      figure({ text: 'UPDATE dbo.other SET v = 0', module: 'other_proc', executions: 50 }),
      figure({ text: 'SELECT 1', queryHash: '0', executions: 7 }),
    ] as typeof run.statements;
    assert.deepEqual(labStatementsOf(p, run).map((s) => s.executions), [100, 2, 3]);
  });
});
