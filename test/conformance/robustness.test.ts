// Random request payloads after a valid login never crash the stand-in: each gets an error answer or a closed
// connection, and the server keeps accepting and serving new clients.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startStandinServer, type StandinServer } from '../standin/server';
import { PacketType } from '../standin/tds/packet';
import { BATCH, FakeEngine } from './support/fake-engine';
import { RawClient, preloginNotSupported, sqlBatch } from './support/raw-client';

describe('stand-in robustness against malformed requests', () => {
  let server: StandinServer;

  before(async () => {
    server = await startStandinServer({ engine: new FakeEngine() });
  });
  after(async () => {
    await server.close();
  });

  it('answers or closes on random RPC / batch / transaction-manager / LOGIN7 payloads and keeps serving', async () => {
    const types = [PacketType.RPC, PacketType.SQL_BATCH, PacketType.TRANSACTION_MANAGER, PacketType.LOGIN7, PacketType.BULK_LOAD];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...types), fc.uint8Array({ maxLength: 300 }), async (type, bytes) => {
        const client = await RawClient.open(server.port);
        try {
          await client.login();
          client.send(type, Buffer.from(bytes));
          const answer = await client.readMessage();
          // Either an answer message (tokens) or the server closed this one connection.
          if (answer) assert.equal(answer.packets[0]!.type, PacketType.TABULAR_RESULT);
        } finally {
          await client.close();
        }
      }),
      { numRuns: 60 },
    );
    await expectHealthy();
  });

  it('closes only that connection on random PRELOGIN / LOGIN7 payloads before login', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.uint8Array({ maxLength: 300 }), async (atLogin, bytes) => {
        const client = await RawClient.open(server.port);
        try {
          if (atLogin) {
            client.send(PacketType.PRELOGIN, preloginNotSupported());
            assert.ok(await client.readMessage());
            client.send(PacketType.LOGIN7, Buffer.from(bytes));
          } else client.send(PacketType.PRELOGIN, Buffer.from(bytes));
          const answer = await client.readMessage();
          if (answer) assert.equal(answer.packets[0]!.type, PacketType.TABULAR_RESULT);
        } finally {
          await client.close();
        }
      }),
      { numRuns: 60 },
    );
    await expectHealthy();
  });

  async function expectHealthy(): Promise<void> {
    const healthy = await RawClient.open(server.port);
    try {
      await healthy.login();
      healthy.send(PacketType.SQL_BATCH, sqlBatch(BATCH.selectOne));
      const response = await healthy.readMessage();
      assert.equal(response?.payload[0], 0x81, 'COLMETADATA from a fresh connection');
    } finally {
      await healthy.close();
    }
  }
});
