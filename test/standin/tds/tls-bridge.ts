// The byte stream under the stand-in's TLS server socket. MS-TDS 2.2.6.5 / 3.3.5.1: while TLS handshakes, its
// records travel inside PRELOGIN (0x12) packets; afterwards TLS records go on the wire directly. Node's TLS
// server runs on top of this Duplex, which wraps and unwraps that framing, then becomes a plain pass-through.
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { MessageAssembler, PacketType, framePackets } from './packet';

/** TLS record content types (RFC 5246 6.2.1): change_cipher_spec .. application_data, i.e. 0x14..0x17. */
function startsTlsRecord(chunk: Buffer): boolean {
  const first = chunk[0];
  return first !== undefined && first >= 0x14 && first <= 0x17;
}

export class PreloginTlsBridge extends Duplex {
  private mode: 'handshake' | 'raw';
  private readonly assembler = new MessageAssembler();
  private outgoing: Buffer[] = [];
  private flushScheduled = false;
  private packetId = 1;
  private released = false;
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);
  private readonly onEnd = (): void => {
    this.push(null);
  };
  private readonly onError = (error: Error): void => {
    this.destroy(error);
  };

  /**
   * mode 'handshake': TDS 7.x, TLS inside PRELOGIN packets; 'raw': TDS 8.0 (strict), TLS from the first byte.
   * `initial` holds bytes already taken from the socket (the peeked first chunk in strict mode).
   */
  constructor(
    private readonly socket: Socket,
    mode: 'handshake' | 'raw',
    initial?: Buffer,
  ) {
    super();
    this.mode = mode;
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
    if (initial && initial.length > 0) this.receive(initial);
  }

  private receive(chunk: Buffer): void {
    if (this.mode === 'handshake' && this.assembler.bufferedBytes === 0 && startsTlsRecord(chunk)) {
      // The client finished its handshake and now sends TLS records unwrapped: every later byte is raw TLS.
      this.flushHandshake();
      this.mode = 'raw';
    }
    if (this.mode === 'raw') {
      if (!this.push(chunk)) this.socket.pause();
      return;
    }
    try {
      for (const message of this.assembler.push(chunk)) {
        if (message.type !== PacketType.PRELOGIN) {
          this.destroy(new Error(`expected a PRELOGIN packet carrying TLS handshake, got type 0x${message.type.toString(16)}`));
          return;
        }
        if (!this.push(message.payload)) this.socket.pause();
      }
    } catch (error) {
      this.destroy(error as Error);
    }
  }

  override _read(): void {
    if (!this.released) this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.mode === 'handshake') {
      // One TLS flight is several writes; collect them and answer the client's PRELOGIN message with one message.
      this.outgoing.push(chunk);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flushHandshake());
      }
      callback();
      return;
    }
    if (this.socket.write(chunk)) callback();
    else this.socket.once('drain', () => callback());
  }

  private flushHandshake(): void {
    this.flushScheduled = false;
    if (this.outgoing.length === 0 || this.socket.destroyed) return;
    const payload = Buffer.concat(this.outgoing);
    this.outgoing = [];
    // Packet size is not negotiated yet; 4096 is the PRELOGIN-phase default both drivers accept.
    for (const packet of framePackets(PacketType.PRELOGIN, payload, 4096, this.packetId, true)) {
      this.socket.write(packet);
      this.packetId = (this.packetId + 1) & 0xff;
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.released) callback();
    else this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.detach();
    if (!this.released) this.socket.destroy(error ?? undefined);
    callback(error);
  }

  /**
   * Login-only encryption (ENCRYPT_OFF): after LOGIN7 the session continues in clear text on the same socket.
   * Stop reading from and writing to it, without closing it, so the caller can take the socket back.
   */
  release(): void {
    this.released = true;
    this.detach();
  }

  private detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('error', this.onError);
  }
}
