// Bounds on what input can make us keep: run history (entries, size per entry, total, and on load), samples, echoed
// messages and single huge values. Adversarial inputs, each asserted against its stated cap.
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { MAX_ENTRY_CHARS, MAX_HISTORY_CHARS, MAX_HISTORY_ENTRIES, HISTORY_KEY, RunHistory, type KeyValueStore } from '../../../src/extension/history/runHistory';
import { MAX_TEXT_VALUE_CHARS, text, truncateText } from '../../../src/probes/values';
import { SAMPLING, ThinningSeries } from '../../../src/profile/sampler';
import { limitMessages } from '../../../src/shared/messageFlood';
import { makeRun } from '../report/runFixture';

/** Like workspaceState: values go through JSON; `writes` records the size of every stored value. */
class JsonMemento implements KeyValueStore {
  values = new Map<string, string>();
  writes: number[] = [];
  get<T>(key: string): T | undefined {
    const v = this.values.get(key);
    return v === undefined ? undefined : (JSON.parse(v) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    this.writes.push(text.length);
    this.values.set(key, text);
  }
}

function panel(i: number, padding = 0) {
  const run = makeRun({ mode: null });
  const data = panelDataFromRun(run, 'srv', new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
  if (padding > 0) data.title = 'x'.repeat(padding);
  return { run, data };
}

describe('bounds on adversarial input', () => {
  it('history: a stored state with 100,000 entries loads at most history.size (and never more than 500)', async () => {
    const store = new JsonMemento();
    const stub = { id: 'x', kind: 'profile', panel: { kind: 'profile', title: 't', header: {} } };
    store.values.set(HISTORY_KEY, JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ ...stub, id: `e${i}` }))));
    assert.equal(new RunHistory(store, () => 20).list().length, 20);
    for (const silly of [1e9, Number.NaN, Infinity, -5]) {
      const n = new RunHistory(store, () => silly).list().length;
      assert.ok(n >= 1 && n <= MAX_HISTORY_ENTRIES, `${silly}: ${n}`);
    }
    const history = new RunHistory(store, () => 20);
    await history.trim();
    assert.equal((store.get<unknown[]>(HISTORY_KEY) ?? []).length, 20, 'trim writes the bounded list back');
    const { run, data: next } = panel(1);
    await history.add(next, [run]);
    assert.equal((store.get<unknown[]>(HISTORY_KEY) ?? []).length, 20);
  });

  it('history: an entry too large keeps its panel without the raw runs, or is not kept; the total stays bounded', async () => {
    const store = new JsonMemento();
    const history = new RunHistory(store, () => 500);
    // Raw runs far over the per-entry cap: dropped, the panel is kept.
    const { data } = panel(1);
    const bigRun = makeRun({ mode: null });
    bigRun.notes = ['n'.repeat(MAX_ENTRY_CHARS)];
    const kept = await history.add(data, [bigRun]);
    assert.deepEqual(kept.runs, []);
    assert.equal(kept.runsDropped, 1);
    // A panel itself over the cap is not stored at all.
    const before = store.writes.length;
    await history.add(panel(2, MAX_ENTRY_CHARS + 10).data, []);
    assert.equal(store.writes.length, before);
    // Many entries just under the per-entry cap: the stored total never passes MAX_HISTORY_CHARS.
    for (let i = 0; i < 15; i++) await history.add(panel(10 + i, MAX_ENTRY_CHARS - 200_000).data, []);
    assert.ok(Math.max(...store.writes) <= MAX_HISTORY_CHARS + 1000, `largest write ${Math.max(...store.writes)}`);
    assert.ok(history.list().length < 15);
  });

  it('samples: a million readings keep fewer than SAMPLING.maxSamples, evenly spaced over the whole run', () => {
    const series = new ThinningSeries<number>(SAMPLING.maxSamples);
    for (let i = 0; i < 1_000_000; i++) series.add(i);
    assert.ok(series.items.length < SAMPLING.maxSamples && series.items.length > SAMPLING.maxSamples / 4, String(series.items.length));
    const steps = new Set(series.items.slice(1).map((v, i) => v - series.items[i]!));
    assert.deepEqual([...steps], [series.step], 'one even step');
    assert.ok(series.items.at(-1)! >= 1_000_000 - series.step, 'the series reaches the end of the run');
    assert.ok(series.items[0]! < series.step * 2, 'and starts at its beginning');
  });

  it('messages: a PRINT flood echoes the first 1000 and one summary line', () => {
    const echoed: number[] = [];
    const notes: string[] = [];
    const onMessage = limitMessages<number>((m) => echoed.push(m), (t) => notes.push(t));
    for (let i = 0; i < 100_000; i++) onMessage(i);
    assert.equal(echoed.length, 1000);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /more than 1000 messages/);
  });

  it('single huge values from a server are cut with a marker', () => {
    const huge = 'd'.repeat(60_000);
    const cut = text(huge)!;
    assert.ok(cut.length < MAX_TEXT_VALUE_CHARS + 60);
    assert.match(cut, /… \[56000 more characters not kept\]$/);
    assert.equal(text('sysname   '), 'sysname');
    assert.equal(truncateText(`${'a'.repeat(9)}😀`, 10), `${'a'.repeat(9)}… [2 more characters not kept]`, 'no half surrogate pair');
  });
});
