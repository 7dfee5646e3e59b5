// TDS packet framing (MS-TDS 2.2.3): the 8-byte packet header, reassembly of multi-packet messages,
// and splitting an outgoing message into packets of the negotiated size.
import { TdsProtocolError } from './bytes';

/** MS-TDS 2.2.3.1.1 packet types the stand-in receives or sends. */
export const PacketType = {
  SQL_BATCH: 0x01,
  RPC: 0x03,
  TABULAR_RESULT: 0x04, // every server response
  ATTENTION: 0x06,
  BULK_LOAD: 0x07,
  TRANSACTION_MANAGER: 0x0e,
  LOGIN7: 0x10,
  SSPI: 0x11,
  PRELOGIN: 0x12,
} as const;

/** MS-TDS 2.2.3.1.2 status bits. */
export const PacketStatus = {
  NORMAL: 0x00,
  EOM: 0x01, // last packet of the message
  IGNORE: 0x02, // client asks the server to ignore this message
  RESETCONNECTION: 0x08, // reset session state before running this request
  RESETCONNECTIONSKIPTRAN: 0x10,
} as const;

export const HEADER_LENGTH = 8;
/** MS-TDS 2.2.6.4: packet size is at most 32767 bytes. */
export const MAX_PACKET_SIZE = 32767;
/** A cap on one reassembled request so a hostile client cannot make the stand-in buffer without end. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export interface PacketHeader {
  type: number;
  status: number;
  length: number; // whole packet, header included
  spid: number;
  packetId: number;
  window: number;
}

/** MS-TDS 2.2.3.1: Type BYTE, Status BYTE, Length USHORT (big-endian), SPID USHORT (big-endian), PacketID BYTE, Window BYTE. */
export function readPacketHeader(buf: Buffer, offset: number): { value: PacketHeader; offset: number } {
  if (buf.length - offset < HEADER_LENGTH) throw new TdsProtocolError('truncated packet header');
  const header: PacketHeader = {
    type: buf.readUInt8(offset),
    status: buf.readUInt8(offset + 1),
    length: buf.readUInt16BE(offset + 2),
    spid: buf.readUInt16BE(offset + 4),
    packetId: buf.readUInt8(offset + 6),
    window: buf.readUInt8(offset + 7),
  };
  if (header.length < HEADER_LENGTH) throw new TdsProtocolError(`packet length ${header.length} is shorter than its header`);
  return { value: header, offset: offset + HEADER_LENGTH };
}

export function writePacketHeader(header: PacketHeader): Buffer {
  const out = Buffer.alloc(HEADER_LENGTH);
  out.writeUInt8(header.type, 0);
  out.writeUInt8(header.status, 1);
  out.writeUInt16BE(header.length, 2);
  out.writeUInt16BE(header.spid, 4);
  out.writeUInt8(header.packetId & 0xff, 6); // PacketID wraps modulo 256
  out.writeUInt8(header.window, 7); // Window: always 0
  return out;
}

/** A whole client message: the payloads of its packets joined, with the first packet's type and status. */
export interface TdsMessage {
  type: number;
  status: number;
  payload: Buffer;
  resetConnection: boolean;
  ignore: boolean;
}

/** Collects bytes from the wire and hands out complete messages (the last packet carries EOM). */
export class MessageAssembler {
  private pending: Buffer = Buffer.alloc(0);
  private parts: Buffer[] = [];
  private partsLength = 0;
  private first: PacketHeader | undefined;

  /** Feed wire bytes; returns the messages completed by them, in order. Throws TdsProtocolError on garbage. */
  push(chunk: Buffer): TdsMessage[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const done: TdsMessage[] = [];
    let offset = 0;
    while (this.pending.length - offset >= HEADER_LENGTH) {
      const { value: header } = readPacketHeader(this.pending, offset);
      if (header.length > MAX_PACKET_SIZE + HEADER_LENGTH) throw new TdsProtocolError(`packet length ${header.length} exceeds the TDS maximum`);
      if (this.pending.length - offset < header.length) break;
      const payload = this.pending.subarray(offset + HEADER_LENGTH, offset + header.length);
      offset += header.length;
      const message = this.acceptPacket(header, payload);
      if (message) done.push(message);
    }
    this.pending = offset === this.pending.length ? Buffer.alloc(0) : Buffer.from(this.pending.subarray(offset));
    return done;
  }

  /** Bytes received that do not yet form a whole packet (the TLS switch needs to know there are none). */
  get bufferedBytes(): number {
    return this.pending.length + this.partsLength;
  }

  private acceptPacket(header: PacketHeader, payload: Buffer): TdsMessage | undefined {
    // MS-TDS 2.2.1.7: an ATTENTION may arrive between packets of nothing else; it is always one packet.
    if (header.type === PacketType.ATTENTION) {
      return { type: header.type, status: header.status, payload: Buffer.alloc(0), resetConnection: false, ignore: false };
    }
    if (this.first && this.first.type !== header.type) {
      throw new TdsProtocolError(`packet type 0x${header.type.toString(16)} inside a 0x${this.first.type.toString(16)} message`);
    }
    this.first ??= header;
    this.parts.push(Buffer.from(payload));
    this.partsLength += payload.length;
    if (this.partsLength > MAX_MESSAGE_BYTES) throw new TdsProtocolError('message exceeds the stand-in limit');
    if ((header.status & PacketStatus.EOM) === 0) return undefined;
    const first = this.first;
    const message: TdsMessage = {
      type: first.type,
      status: first.status,
      payload: Buffer.concat(this.parts, this.partsLength),
      resetConnection: (first.status & (PacketStatus.RESETCONNECTION | PacketStatus.RESETCONNECTIONSKIPTRAN)) !== 0,
      ignore: (header.status & PacketStatus.IGNORE) !== 0,
    };
    this.first = undefined;
    this.parts = [];
    this.partsLength = 0;
    return message;
  }
}

/**
 * Split one message payload into packets of at most packetSize bytes (header included). `last` says whether
 * this slice ends the message (EOM); a streaming writer calls this repeatedly with last=false.
 */
export function framePackets(type: number, payload: Buffer, packetSize: number, firstPacketId: number, last: boolean, spid = 0): Buffer[] {
  const room = packetSize - HEADER_LENGTH;
  const packets: Buffer[] = [];
  let offset = 0;
  let packetId = firstPacketId;
  do {
    const end = Math.min(offset + room, payload.length);
    const isLast = last && end === payload.length;
    const header = writePacketHeader({
      type,
      status: isLast ? PacketStatus.EOM : PacketStatus.NORMAL,
      length: HEADER_LENGTH + (end - offset),
      spid,
      packetId,
      window: 0,
    });
    packets.push(Buffer.concat([header, payload.subarray(offset, end)]));
    packetId = (packetId + 1) & 0xff;
    offset = end;
  } while (offset < payload.length);
  return packets;
}
