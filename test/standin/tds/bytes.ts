// Small pure readers and writers for TDS wire values: each reader takes (buffer, offset) and returns the value
// plus the offset after it, and throws TdsProtocolError when the buffer is too short (malformed input).

/** A malformed or unsupported client message; the connection answers with an error or closes, the process lives. */
export class TdsProtocolError extends Error {
  override name = 'TdsProtocolError';
}

export interface Read<T> {
  value: T;
  offset: number;
}

export function need(buf: Buffer, offset: number, length: number, what: string): void {
  if (offset < 0 || length < 0 || offset + length > buf.length) {
    throw new TdsProtocolError(`truncated ${what}: need ${length} bytes at ${offset}, have ${buf.length - offset}`);
  }
}

export function readUInt8(buf: Buffer, offset: number): Read<number> {
  need(buf, offset, 1, 'BYTE');
  return { value: buf.readUInt8(offset), offset: offset + 1 };
}

export function readUInt16LE(buf: Buffer, offset: number): Read<number> {
  need(buf, offset, 2, 'USHORT');
  return { value: buf.readUInt16LE(offset), offset: offset + 2 };
}

export function readUInt32LE(buf: Buffer, offset: number): Read<number> {
  need(buf, offset, 4, 'DWORD');
  return { value: buf.readUInt32LE(offset), offset: offset + 4 };
}

export function readInt32LE(buf: Buffer, offset: number): Read<number> {
  need(buf, offset, 4, 'LONG');
  return { value: buf.readInt32LE(offset), offset: offset + 4 };
}

export function readBytes(buf: Buffer, offset: number, length: number): Read<Buffer> {
  need(buf, offset, length, 'bytes');
  return { value: buf.subarray(offset, offset + length), offset: offset + length };
}

/** MS-TDS 2.2.5.1.3 B_VARCHAR: BYTE count of UCS-2 characters, then the characters. */
export function readBVarChar(buf: Buffer, offset: number): Read<string> {
  const count = readUInt8(buf, offset);
  const bytes = readBytes(buf, count.offset, count.value * 2);
  return { value: bytes.value.toString('utf16le'), offset: bytes.offset };
}

/** MS-TDS 2.2.5.1.3 US_VARCHAR: USHORT count of UCS-2 characters, then the characters. */
export function readUsVarChar(buf: Buffer, offset: number): Read<string> {
  const count = readUInt16LE(buf, offset);
  const bytes = readBytes(buf, count.offset, count.value * 2);
  return { value: bytes.value.toString('utf16le'), offset: bytes.offset };
}

/** B_VARCHAR for writing; names longer than 255 UCS-2 units are cut, as the length is one byte. */
export function bVarChar(text: string): Buffer {
  const chars = text.slice(0, 255);
  const out = Buffer.alloc(1 + chars.length * 2);
  out.writeUInt8(chars.length, 0);
  out.write(chars, 1, 'utf16le');
  return out;
}

/** US_VARCHAR for writing (messages up to 65535 UCS-2 units). */
export function usVarChar(text: string): Buffer {
  const chars = text.slice(0, 0xffff);
  const out = Buffer.alloc(2 + chars.length * 2);
  out.writeUInt16LE(chars.length, 0);
  out.write(chars, 2, 'utf16le');
  return out;
}

/** B_VARBYTE for writing: BYTE length then bytes. */
export function bVarByte(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}
