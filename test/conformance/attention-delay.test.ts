// A delayed attention acknowledgement (faults.attentionAckDelayMs): a real server acknowledges ATTENTION only once
// the cancelled statement has stopped and rolled back (MS-TDS 2.2.1.7), so clients must cope with a late DONE(ATTN).
// tedious waits for it up to cancelTimeout and then closes the connection (reference §8a).
import assert from 'node:assert/strict';
import { Connection, Request } from 'tedious';
import { createStandin, type Standin } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';
import { configFor } from './support/tedious-client';

function open(port: number, cancelTimeout: number): Promise<Connection> {
  const config = configFor({ port });
  config.options = { ...config.options, cancelTimeout };
  const connection = new Connection(config);
  return new Promise((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve(connection))));
}

/** Starts WAITFOR DELAY '00:01:00', cancels once the engine shows the wait, resolves with the request's outcome. */
async function cancelWaitfor(standin: Standin, connection: Connection): Promise<{ error: Error | null | undefined; cancelledAt: number; completedAt: number }> {
  let cancelledAt = 0;
  const completed = new Promise<{ error: Error | null | undefined; completedAt: number }>((resolve) => {
    connection.execSqlBatch(new Request("WAITFOR DELAY '00:01:00'", (error) => resolve({ error, completedAt: performance.now() })));
  });
  const deadline = performance.now() + 5000;
  while (![...standin.state.sessions.values()].some((s) => s.currentWait?.type === 'WAITFOR')) {
    assert.ok(performance.now() < deadline, 'the WAITFOR never started');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  cancelledAt = performance.now();
  connection.cancel();
  const outcome = await completed;
  return { ...outcome, cancelledAt };
}

describe('stand-in: delayed attention acknowledgement (tedious)', function () {
  this.timeout(20_000);
  let standin: Standin;
  let server: StandinServer;

  beforeEach(async () => {
    standin = createStandin({ speedFactor: 1 });
    server = await startStandinServer({ engine: standin });
  });
  afterEach(async () => {
    standin.faults.reset();
    await server.close();
  });

  it('holds DONE(ATTN) back for attentionAckDelayMs; tedious completes the cancel then and keeps the connection', async () => {
    standin.faults.attentionAckDelayMs = 400;
    const connection = await open(server.port, 5000);
    try {
      const { error, cancelledAt, completedAt } = await cancelWaitfor(standin, connection);
      assert.equal((error as { code?: string } | undefined)?.code, 'ECANCEL');
      assert.ok(completedAt - cancelledAt >= 380, `the cancel completed after ${Math.round(completedAt - cancelledAt)} ms, before the acknowledgement`);
      const after = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        const request = new Request('SELECT 5 AS five', (e) => (e ? reject(e) : resolve(value)));
        request.on('row', (columns: Array<{ value: unknown }>) => { value = columns[0]!.value; });
        connection.execSqlBatch(request);
      });
      assert.equal(after, 5);
    } finally {
      connection.close();
    }
  });

  it('an acknowledgement later than tedious cancelTimeout ends the connection on the client side', async () => {
    standin.faults.attentionAckDelayMs = 3000;
    const connection = await open(server.port, 300);
    const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
    const { error, cancelledAt, completedAt } = await cancelWaitfor(standin, connection);
    assert.ok(error, 'the request completes with an error');
    assert.ok(completedAt - cancelledAt < 2500, 'tedious gave up before the late acknowledgement');
    await ended;
  });
});
