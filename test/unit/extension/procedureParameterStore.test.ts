// Remembered procedure parameters: last values and named sets per procedure, bounded, values only.
import * as assert from 'node:assert/strict';
import { MAX_ANSWER_CHARS, MAX_PROCEDURES, ProcedureParameterStore } from '../../../src/extension/procedures/procedureParameterStore';

function memento() {
  const data = new Map<string, unknown>();
  return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: async (k: string, v: unknown) => { data.set(k, JSON.parse(JSON.stringify(v))); } };
}

describe('procedure parameter store', () => {
  it('remembers the last values per procedure (case-insensitive name, number kept apart)', async () => {
    const store = new ProcedureParameterStore(memento());
    await store.remember('dbo.Load', null, { '@rows': '10', '@note': "'x'" });
    await store.remember('dbo.load', 2, { '@rows': '99' });
    assert.deepEqual(store.last('DBO.LOAD', null), { '@rows': '10', '@note': "'x'" });
    assert.deepEqual(store.last('dbo.load', 2), { '@rows': '99' });
    assert.equal(store.last('dbo.other', null), null);
  });

  it('saves, lists and deletes named sets beside the last values', async () => {
    const store = new ProcedureParameterStore(memento());
    await store.remember('p', null, { '@a': '1' });
    await store.saveSet('p', null, 'small', { '@a': '2' });
    await store.saveSet('p', null, 'large', { '@a': '100000' });
    assert.deepEqual(store.sets('p', null), { small: { '@a': '2' }, large: { '@a': '100000' } });
    assert.deepEqual(store.last('p', null), { '@a': '1' });
    await store.deleteSet('p', null, 'small');
    assert.deepEqual(Object.keys(store.sets('p', null)), ['large']);
  });

  it('keeps at most MAX_PROCEDURES procedures, dropping the least recently used, and skips oversized or odd entries', async () => {
    const m = memento();
    const store = new ProcedureParameterStore(m);
    for (let i = 0; i <= MAX_PROCEDURES; i++) await store.remember(`p${i}`, null, { '@a': String(i) });
    assert.equal(store.last('p0', null), null);
    assert.deepEqual(store.last(`p${MAX_PROCEDURES}`, null), { '@a': String(MAX_PROCEDURES) });
    await store.remember('big', null, { '@a': 'x'.repeat(MAX_ANSWER_CHARS + 1), '@b': '1', notAParameter: '2' } as Record<string, string>);
    assert.deepEqual(store.last('big', null), { '@b': '1' });
  });
});
