import { strict as assert } from 'node:assert';
import { createLoader, loadDriver, loadedDriver } from '../../../src/db/loadDriver';

describe('db: the driver loads on first use', () => {
  it('shares one load between concurrent callers and keeps the module', async () => {
    let imports = 0;
    const loader = createLoader(async () => ({ n: ++imports }));
    assert.equal(loader.loaded(), undefined);
    const [a, b] = await Promise.all([loader.load(), loader.load()]);
    assert.equal(a, b);
    assert.equal(imports, 1);
    assert.equal(loader.loaded(), a);
    await loader.load();
    assert.equal(imports, 1);
  });

  it('does not keep a failed load: the next call imports again', async () => {
    let attempts = 0;
    const loader = createLoader(async () => {
      attempts++;
      if (attempts === 1) throw new Error('chunk missing');
      return { ok: true };
    });
    await assert.rejects(loader.load(), /chunk missing/);
    assert.equal(loader.loaded(), undefined);
    assert.deepEqual(await loader.load(), { ok: true });
    assert.equal(attempts, 2);
  });

  it('loads the real driver module (connect, runWorkload, TediousSession, fetchServerCertificate)', async () => {
    const driver = await loadDriver();
    assert.equal(typeof driver.connect, 'function');
    assert.equal(typeof driver.runWorkload, 'function');
    assert.equal(typeof driver.fetchServerCertificate, 'function');
    assert.equal(loadedDriver(), driver);
  });
});
