// The y/N question the CLI asks on a terminal (profile's "Run it?", the restore questions): what each way out of it
// means. A signal while it waits (SIGTERM from a service manager, SIGHUP from a closed terminal) must end the question,
// not leave the process waiting for a key nobody will press; end of input (Ctrl+D) is a no, not a Ctrl+C.
import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { askOn, TYPED_AHEAD_MS } from '../../../src/cli/commands/recovery';

/** A fake terminal: stdin and stderr that say they are TTYs, and everything the question wrote. */
function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString()));
  return { input, output, written: () => written };
}

/** The promise's outcome, or 'pending' when it has not settled by the deadline (a hang, without waiting for ever). */
async function settled<T>(p: Promise<T>, ms = 2000): Promise<{ value: T } | { error: Error } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([p.then((value) => ({ value }), (error: Error) => ({ error })), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('CLI: the y/N question on a terminal', () => {
  it('is not asked without a terminal on both stdin and stderr', () => {
    const t = terminal();
    assert.equal(askOn(Object.assign(new PassThrough(), { isTTY: false }), t.output, 'Run it?'), null);
    assert.equal(askOn(t.input, Object.assign(new PassThrough(), { isTTY: undefined }), 'Run it?'), null);
  });

  /** A clock on which each reading is a second after the last: every answer comes well after its question. */
  const slowReader = () => {
    let t = 0;
    return () => (t += 1000);
  };

  it('"y" and "yes" say yes; Enter alone and anything else say no', async () => {
    for (const [typed, yes] of [['y\r', true], ['YES\r', true], ['\r', false], ['n\r', false], ['yep\r', false]] as const) {
      const t = terminal();
      const answer = askOn(t.input, t.output, 'Run it?', undefined, slowReader())!;
      setImmediate(() => t.input.write(typed));
      assert.deepEqual(await settled(answer), { value: yes }, JSON.stringify(typed));
      assert.match(t.written(), /Run it\? \[y\/N\] /);
    }
  });

  it('a stop signal while it waits ends the question with an AbortError (no hang)', async () => {
    const t = terminal();
    const stop = new AbortController();
    const answer = askOn(t.input, t.output, 'Run it?', stop.signal)!;
    setImmediate(() => stop.abort());
    const outcome = await settled(answer);
    assert.notEqual(outcome, 'pending', 'the question kept waiting after the stop signal');
    assert.ok(typeof outcome === 'object' && 'error' in outcome && outcome.error.name === 'AbortError', JSON.stringify(outcome));
  });

  it('Ctrl+C rejects with an AbortError (the caller says what stays); Ctrl+D (end of input) is a no on a line of its own', async () => {
    const c = terminal();
    const ctrlC = askOn(c.input, c.output, 'Run it?')!;
    setImmediate(() => c.input.write('\x03'));
    const interrupted = await settled(ctrlC);
    assert.ok(typeof interrupted === 'object' && 'error' in interrupted && interrupted.error.name === 'AbortError', JSON.stringify(interrupted));

    const d = terminal();
    const ctrlD = askOn(d.input, d.output, 'Run it?')!;
    setImmediate(() => d.input.write('\x04'));
    assert.deepEqual(await settled(ctrlD), { value: false });
    assert.match(d.written(), /\n$/, 'what follows starts on its own line, not after the question');
  });

  it('a "y" typed before the question was shown is not taken: the question is asked again and waits for a real answer', async () => {
    const t = terminal();
    // Readings: shown at 0, the typed-ahead line at 5 ms (too soon), asked again at 10, answered at 10 + TYPED_AHEAD_MS.
    const clock = [0, 5, 10, 10 + TYPED_AHEAD_MS];
    const answer = askOn(t.input, t.output, 'Run it?', undefined, () => clock.shift() ?? Number.MAX_SAFE_INTEGER)!;
    let answered = false;
    void answer.then(() => (answered = true));
    t.input.write('y\r');
    // Wait for the question to be shown again (an event in its output), with a deadline, then check nothing answered it.
    const deadline = Date.now() + 2000;
    while (!/answer it now/.test(t.written()) && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    assert.match(t.written(), /\(An answer typed before this question was shown is not taken: answer it now\.\)\n/);
    assert.equal(answered, false, 'the typed-ahead "y" answered the question');
    assert.equal(t.written().match(/Run it\? \[y\/N\] /g)?.length, 2, 'asked again');
    t.input.write('n\r');
    assert.deepEqual(await settled(answer), { value: false });
  });
});
