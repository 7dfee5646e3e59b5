// runLifecycle wires signals and a broken stdout around one CLI run; one process may run many (tests, a host).
import * as assert from 'node:assert/strict';
import { runLifecycle } from '../../../src/cli/commands/lifecycle';

describe('cli run lifecycle', () => {
  it('keeps one stdout error listener however many runs the process makes', () => {
    const io = { stdout: () => undefined, stderr: () => undefined };
    const first = runLifecycle(io as never);
    first.dispose();
    const afterOne = process.stdout.listenerCount('error');
    for (let i = 0; i < 20; i++) runLifecycle(io as never).dispose();
    assert.equal(process.stdout.listenerCount('error'), afterOne);
  });

  it('removes its signal handlers when disposed', () => {
    const io = { stdout: () => undefined, stderr: () => undefined };
    const before = process.listenerCount('SIGTERM');
    const run = runLifecycle(io as never);
    assert.equal(process.listenerCount('SIGTERM'), before + 1);
    run.dispose();
    assert.equal(process.listenerCount('SIGTERM'), before);
  });
});
