// `npm run demo -- --host …`: a non-loopback bind address gets code-server's password auth with a fresh password.
import * as assert from 'node:assert/strict';
import { demoPassword, isLoopbackHost } from '../../../scripts/demoAuth';

describe('scripts/demo: who may open code-server', () => {
  it('loopback hosts need no password; every other bind address gets a fresh random one', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      assert.equal(isLoopbackHost(h), true, h);
      assert.equal(demoPassword(h), null, h);
    }
    for (const h of ['0.0.0.0', '::', '192.168.1.20', 'myhost.example', '127.0.0.1.evil.example']) {
      assert.equal(isLoopbackHost(h), false, h);
      const a = demoPassword(h);
      const b = demoPassword(h);
      assert.ok(a && a.length >= 20, h);
      assert.notEqual(a, b, 'a new password per run');
    }
  });
});
