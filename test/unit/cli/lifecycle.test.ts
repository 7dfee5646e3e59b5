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
  it('says what a stop does at the moment it comes: the command tells it (profile never restores DELAYED_DURABILITY)', () => {
    const said: string[] = [];
    const io = { stdout: () => undefined, stderr: (t: string) => void said.push(t) };
    let phase = 'ending the question: the workload is not run';
    const run = runLifecycle(io as never, { stopping: () => phase, exit: () => undefined });
    try {
      process.emit('SIGTERM');
      assert.equal(said[0], 'Received SIGTERM: ending the question: the workload is not run (exit code 143). Send the signal again to exit at once.\n');
      assert.ok(run.signal.aborted);
    } finally {
      run.dispose();
    }
    phase = 'unused';
    const compare = runLifecycle(io as never, { exit: () => undefined });
    try {
      process.emit('SIGHUP');
      assert.match(said[1]!, /^Received SIGHUP: stopping the workload, restoring DELAYED_DURABILITY and dropping the event session before exiting \(exit code 129\)/);
    } finally {
      compare.dispose();
    }
  });
});
