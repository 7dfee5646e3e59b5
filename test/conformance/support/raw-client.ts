// A byte-level TDS client for tests that tedious cannot express: hand-built PRELOGIN and LOGIN7, malformed
// packets, and inspection of every packet header the stand-in sends back.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { obfuscatePassword } from '../../standin/tds/login7';
import { HEADER_LENGTH, PacketType, framePackets, readPacketHeader, type PacketHeader } from '../../standin/tds/packet';
import { LOGIN } from './fake-engine';

export interface RawMessage {
  packets: PacketHeader[];
  payload: Buffer;
}

export class RawClient {
  private buffered = Buffer.alloc(0);
  private readonly waiters: Array<() => void> = [];
  ended = false;
  /** Throw incoming bytes away (a reader that only drains the socket). */
  discard = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      if (this.discard) return;
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  send(type: number, payload: Buffer, packetSize = 4096): void {
    for (const packet of framePackets(type, payload, packetSize, 1, true)) this.socket.write(packet);
  }

  /** Several messages in one socket write, so the server reads them in one chunk (a request and its ATTENTION). */
  sendTogether(messages: ReadonlyArray<{ type: number; payload: Buffer }>, packetSize = 4096): void {
    this.socket.write(Buffer.concat(messages.flatMap((m) => [...framePackets(m.type, m.payload, packetSize, 1, true)])));
  }

  /** Next whole message (until a packet with EOM), or null when the server closed first. */
  async readMessage(): Promise<RawMessage | null> {
    const packets: PacketHeader[] = [];
    const parts: Buffer[] = [];
    for (;;) {
      if (this.buffered.length >= HEADER_LENGTH) {
        const { value: header } = readPacketHeader(this.buffered, 0);
        if (this.buffered.length >= header.length) {
          packets.push(header);
          parts.push(this.buffered.subarray(HEADER_LENGTH, header.length));
          this.buffered = this.buffered.subarray(header.length);
          if (header.status & 0x01) return { packets, payload: Buffer.concat(parts) };
          continue;
        }
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }

  /** PRELOGIN with ENCRYPT_NOT_SUP, then LOGIN7; resolves with the login response. */
  async login(options: { packetSize?: number; password?: string } = {}): Promise<RawMessage> {
    this.send(PacketType.PRELOGIN, preloginNotSupported());
    const prelogin = await this.readMessage();
    assert.ok(prelogin, 'PRELOGIN answered');
    this.send(PacketType.LOGIN7, buildLogin7({ user: LOGIN.user, password: options.password ?? LOGIN.password, database: LOGIN.database, packetSize: options.packetSize ?? 4096 }));
    const response = await this.readMessage();
    assert.ok(response, 'LOGIN7 answered');
    return response;
  }
}

/** PRELOGIN: VERSION and ENCRYPTION (0x02 NOT_SUP) options, then the terminator. */
export function preloginNotSupported(): Buffer {
  return Buffer.from([
    0x00, 0x00, 0x0b, 0x00, 0x06, // VERSION at offset 11, 6 bytes
    0x01, 0x00, 0x11, 0x00, 0x01, // ENCRYPTION at offset 17, 1 byte
    0xff, // TERMINATOR
    0x10, 0x00, 0x00, 0x00, 0x00, 0x00, // version 16.0.0.0
    0x02, // ENCRYPT_NOT_SUP
  ]);
}

/** LOGIN7 (MS-TDS 2.2.6.4) for TDS 7.4 with host, user, password, app, server, library, language, database. */
export function buildLogin7(options: { user: string; password: string; database: string; packetSize: number }): Buffer {
  const texts: Array<Buffer> = [
    Buffer.from('rawhost', 'utf16le'), // HostName
    Buffer.from(options.user, 'utf16le'), // UserName
    obfuscatePassword(options.password), // Password
    Buffer.from('raw-client', 'utf16le'), // AppName
    Buffer.from('127.0.0.1', 'utf16le'), // ServerName
    Buffer.alloc(0), // Extension (unused)
    Buffer.from('raw', 'utf16le'), // CltIntName
    Buffer.alloc(0), // Language
    Buffer.from(options.database, 'utf16le'), // Database
  ];
  const fixedLength = 94; // 36 fixed + 9 offset/length pairs + ClientID 6 + SSPI 4 + AtchDBFile 4 + ChangePassword 4 + cbSSPILong 4
  const head = Buffer.alloc(fixedLength);
  head.writeUInt32LE(0x74000004, 4); // TDSVersion 7.4
  head.writeUInt32LE(options.packetSize, 8); // PacketSize
  head.writeUInt32LE(4242, 16); // ClientPID
  head.writeUInt8(0xe0, 24); // OptionFlags1: USE_DB_ON, INIT_DB_FATAL, SET_LANG_ON
  head.writeUInt8(0x03, 25); // OptionFlags2: INIT_LANG_FATAL, ODBC_ON
  let offset = fixedLength;
  texts.forEach((text, i) => {
    head.writeUInt16LE(offset, 36 + i * 4); // ib
    head.writeUInt16LE(text.length / 2, 38 + i * 4); // cch
    offset += text.length;
  });
  const record = Buffer.concat([head, ...texts]);
  record.writeUInt32LE(record.length, 0); // Length
  return record;
}

/** SQL batch payload: ALL_HEADERS with a transaction descriptor header, then UTF-16LE text. */
export function sqlBatch(sql: string): Buffer {
  const headers = Buffer.alloc(22);
  headers.writeUInt32LE(22, 0); // TotalLength
  headers.writeUInt32LE(18, 4); // HeaderLength
  headers.writeUInt16LE(2, 8); // HeaderType: transaction descriptor
  // 10..17 TransactionDescriptor = 0, 18..21 OutstandingRequestCount
  headers.writeUInt32LE(1, 18);
  return Buffer.concat([headers, Buffer.from(sql, 'utf16le')]);
}
