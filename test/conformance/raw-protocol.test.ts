// The stand-in at byte level: hand-built LOGIN7, responses split at the negotiated packet size, malformed input
// that must not crash the server, many concurrent connections, and close() releasing every socket.
import assert from 'node:assert/strict';
import { startStandinServer, type StandinServer } from '../standin/server';
import { PacketType } from '../standin/tds/packet';
import { BATCH, BIG_TEXT, FakeEngine } from './support/fake-engine';
import { RawClient, sqlBatch } from './support/raw-client';
import { batch, close, connect } from './support/tedious-client';

describe('stand-in TDS layer at byte level', () => {
  let engine: FakeEngine;
  let server: StandinServer;
  const clients: RawClient[] = [];

  beforeEach(async () => {
    engine = new FakeEngine();
    server = await startStandinServer({ engine });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await server.close();
  });

  async function open(): Promise<RawClient> {
    const client = await RawClient.open(server.port);
    clients.push(client);
    return client;
  }

  it('parses a hand-built LOGIN7 and de-obfuscates its password', async () => {
    const client = await open();
    const response = await client.login({ packetSize: 1024 });
    assert.equal(response.packets[0]!.type, PacketType.TABULAR_RESULT);
    const login = engine.logins[0]!;
    assert.deepEqual(
      [login.userName, login.password, login.database, login.appName, login.hostName, login.clientPid, login.packetSize],
      ['sa', 'StandIn-1', 'lab', 'raw-client', 'rawhost', 4242, 1024],
    );
  });

  it('splits a large response into packets of the negotiated size, EOM only on the last', async () => {
    const client = await open();
    await client.login({ packetSize: 512 });
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.bigText), 512);
    const response = await client.readMessage();
    assert.ok(response);
    assert.ok(response.packets.length > 200, `${response.packets.length} packets`);
    assert.ok(response.packets.every((p) => p.length <= 512));
    assert.deepEqual(
      response.packets.map((p) => p.status),
      [...Array(response.packets.length - 1).fill(0x00), 0x01],
    );
    assert.ok(response.packets.slice(0, -1).every((p) => p.length === 512), 'all but the last packet are full');
    assert.deepEqual(response.packets.slice(0, 3).map((p) => p.packetId), [1, 2, 3]);
    assert.ok(response.payload.includes(Buffer.from(BIG_TEXT, 'utf16le')));
  });

  it('ends statements with DONE status bits: COUNT and MORE between statements, ERROR on the failing one', async () => {
    const client = await open();
    await client.login();
    const doneAt = (payload: Buffer, fromEnd: number): string => payload.subarray(payload.length - 13 * fromEnd, payload.length - 13 * (fromEnd - 1)).toString('hex');
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.selectOne));
    const one = await client.readMessage();
    // DONE 0xFD, Status 0x0010 (COUNT), CurCmd 0, DoneRowCount 1
    assert.equal(doneAt(one!.payload, 1), 'fd' + '1000' + '0000' + '0100000000000000');
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.errorAtLine3));
    const three = await client.readMessage();
    assert.equal(doneAt(three!.payload, 1), 'fd' + '0200' + '0000' + '0000000000000000', 'final DONE: ERROR');
    assert.ok(three!.payload.includes(Buffer.from('fd' + '1100' + '0000' + '0100000000000000', 'hex')), 'DONE with MORE|COUNT before it');
  });

  it('acknowledges ATTENTION in its own message after ending the cancelled response', async () => {
    const client = await open();
    await client.login();
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.waitfor));
    const deadline = Date.now() + 5000;
    while (engine.running === 0) {
      assert.ok(Date.now() < deadline, 'the engine never started waiting');
      await new Promise((resolve) => setImmediate(resolve));
    }
    client.send(PacketType.ATTENTION, Buffer.alloc(0));
    const cancelled = await client.readMessage();
    assert.equal(cancelled!.payload.length, 0, 'the cancelled response ends without tokens');
    const ack = await client.readMessage();
    assert.equal(ack!.payload.toString('hex'), 'fd' + '2000' + '0000' + '0000000000000000', 'DONE with ATTN');
    assert.equal(engine.running, 0);
  });

  it('an ATTENTION read together with its request cancels that request: the response first, then DONE(ATTN)', async () => {
    // A client that cancels at once (SIGTERM just as a batch starts) can put both on the wire before the server has
    // picked the request up. Acknowledging at once and then running the request uncancelled left tedious reading the
    // batch's results as if they answered nothing, and the run hung (integration/mcp/mcpSignals, 1 run in ~10).
    const client = await open();
    await client.login();
    client.sendTogether([{ type: PacketType.SQL_BATCH, payload: sqlBatch(BATCH.waitfor) }, { type: PacketType.ATTENTION, payload: Buffer.alloc(0) }]);
    const cancelled = await client.readMessage();
    assert.equal(cancelled!.payload.length, 0, 'the cancelled response ends without tokens');
    const ack = await client.readMessage();
    assert.equal(ack!.payload.toString('hex'), 'fd' + '2000' + '0000' + '0000000000000000', 'DONE with ATTN');
    assert.equal(engine.running, 0);
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.selectOne));
    const next = await client.readMessage();
    assert.equal(next!.payload[0], 0x81, 'COLMETADATA: the next request is answered as its own');
  });

  it('answers a malformed request with an error and keeps the connection', async () => {
    const client = await open();
    await client.login();
    client.send(PacketType.RPC, Buffer.from([0x16, 0x00, 0x00, 0x00, 0x01])); // ALL_HEADERS claims 22 bytes, has 5
    const error = await client.readMessage();
    assert.ok(error);
    assert.equal(error.payload[0], 0xaa, 'ERROR token');
    assert.ok(error.payload.includes(Buffer.from('could not parse the request', 'utf16le')));
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.selectOne));
    const next = await client.readMessage();
    assert.ok(next);
    assert.equal(next.payload[0], 0x81, 'COLMETADATA: the connection still works');
  });

  it('closes only the offending connection on broken framing, and keeps serving others', async () => {
    const bad = await open();
    bad.socket.write(Buffer.from([0x12, 0x01, 0x00, 0x04, 0x00, 0x00, 0x01, 0x00])); // length 4 < header size
    assert.equal(await bad.readMessage(), null);
    const garbage = await open();
    garbage.socket.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.equal(await garbage.readMessage(), null);
    const connection = await connect({ port: server.port });
    try {
      assert.equal((await batch(connection, BATCH.selectOne)).rows[0]![0]!.value, 1);
    } finally {
      await close(connection);
    }
  });

  it('serves 40 concurrent tedious connections, half of them over TLS', async () => {
    const connections = await Promise.all(Array.from({ length: 40 }, (_, i) => connect({ port: server.port, encrypt: i % 2 === 0, trustServerCertificate: true })));
    try {
      assert.equal(server.connections, 40);
      const results = await Promise.all(connections.map((c) => batch(c, BATCH.selectOne)));
      assert.ok(results.every((r) => r.rows[0]![0]!.value === 1));
      assert.equal(engine.logins.filter((login) => login.encrypted).length, 20);
    } finally {
      await Promise.all(connections.map(close));
    }
  });

  it('stops pulling rows from the engine while the client does not read, and resumes when it does', async () => {
    const client = await open();
    await client.login();
    client.socket.pause();
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.fastRows));
    // Poll (deadline 10 s) until the count has not moved for 5 polls in a row: the writer is waiting for 'drain'.
    const deadline = Date.now() + 10_000;
    let last = -1;
    let stable = 0;
    while (stable < 5) {
      assert.ok(Date.now() < deadline, `the engine kept producing rows with nobody reading (${engine.rowsPulled})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (engine.rowsPulled === last) stable++;
      else [stable, last] = [0, engine.rowsPulled];
    }
    assert.ok(engine.rowsPulled > 0 && engine.rowsPulled < 5_000_000, `${engine.rowsPulled} rows in flight: bounded by socket buffers`);
    const stalledAt = engine.rowsPulled;
    client.discard = true;
    client.socket.resume();
    while (engine.rowsPulled < stalledAt + 100_000) {
      assert.ok(Date.now() < deadline + 10_000, 'rows did not flow again after the client resumed reading');
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it('close() ends open sockets, in-flight requests and the listener', async () => {
    const client = await open();
    await client.login();
    client.send(PacketType.SQL_BATCH, sqlBatch(BATCH.waitfor));
    const deadline = Date.now() + 5000;
    while (engine.running === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(engine.running, 1);
    await server.close();
    assert.equal(await client.readMessage(), null, 'the server closed the socket');
    assert.equal(server.connections, 0);
    assert.equal(engine.running, 0, 'the waiting request was aborted');
    assert.equal(engine.loggedOut, 1);
    await assert.rejects(RawClient.open(server.port), /ECONNREFUSED/);
  });
});
