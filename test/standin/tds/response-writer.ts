// Streams one server response message (packet type 0x04, MS-TDS 2.2.3) token by token: fills packets of the
// negotiated size, sends each as soon as it is full, and waits for 'drain' when the socket pushes back.
import type { Duplex } from 'node:stream';
import { HEADER_LENGTH, PacketType, framePackets } from './packet';

/** Packets written between event-loop turns when the socket never pushes back (~128 KB at 4096-byte packets). */
const YIELD_EVERY_PACKETS = 32;

export class ResponseWriter {
  private chunks: Buffer[] = [];
  private length = 0;
  private packetId = 1;
  private blocked = false;
  private packetsSinceYield = 0;

  constructor(
    private readonly transport: () => Duplex,
    private readonly packetSize: () => number,
    private readonly type: number = PacketType.TABULAR_RESULT,
  ) {}

  /** Queue a token; whole packets go out at once. Await `ready()` after writing to honour backpressure. */
  write(token: Buffer): void {
    this.chunks.push(token);
    this.length += token.length;
    const room = this.packetSize() - HEADER_LENGTH;
    if (this.length <= room) return;
    const all = Buffer.concat(this.chunks, this.length);
    const whole = Math.floor((all.length - 1) / room) * room; // keep ≥1 byte back: the last packet carries EOM
    if (whole === 0) return;
    this.send(all.subarray(0, whole), false);
    this.chunks = [all.subarray(whole)];
    this.length = all.length - whole;
  }

  /** Send what is left with EOM (end of message). */
  end(): void {
    this.send(Buffer.concat(this.chunks, this.length), true);
    this.chunks = [];
    this.length = 0;
    this.packetId = 1;
  }

  /** True when the caller should `await ready()` before writing more: the socket pushed back, or it is time to yield. */
  get mustPause(): boolean {
    return this.blocked || this.packetsSinceYield >= YIELD_EVERY_PACKETS || this.closed;
  }

  /** The client is gone: nothing written will arrive, so producers should stop. */
  get closed(): boolean {
    const transport = this.transport();
    return transport.destroyed || !transport.writable;
  }

  /**
   * Resolves when the socket has room again (or is gone, so a dead client never stalls the engine). While the
   * kernel keeps accepting bytes, write() never says false, so also yield to the event loop every few packets:
   * otherwise a fast synchronous row source would starve I/O, including the client's ATTENTION.
   */
  async ready(): Promise<void> {
    if (!this.blocked || this.closed) {
      if (this.packetsSinceYield >= YIELD_EVERY_PACKETS || this.closed) {
        this.packetsSinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return;
    }
    this.packetsSinceYield = 0;
    const transport = this.transport();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        transport.off('drain', done);
        transport.off('close', done);
        transport.off('error', done);
        resolve();
      };
      transport.on('drain', done);
      transport.on('close', done);
      transport.on('error', done);
    });
    this.blocked = false;
  }

  private send(payload: Buffer, last: boolean): void {
    const transport = this.transport();
    if (this.closed) {
      this.packetsSinceYield = YIELD_EVERY_PACKETS; // make the producer yield so the close is noticed
      return;
    }
    for (const packet of framePackets(this.type, payload, this.packetSize(), this.packetId, last)) {
      if (!transport.write(packet)) this.blocked = true;
      this.packetsSinceYield++;
      this.packetId = (this.packetId + 1) & 0xff;
    }
  }
}
