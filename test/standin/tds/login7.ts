// LOGIN7 (MS-TDS 2.2.6.4): the fixed header, the offset/length table of variable fields, password de-obfuscation.
import { TdsProtocolError, need, readUInt32LE } from './bytes';

export interface Login7 {
  tdsVersion: number; // e.g. 0x74000004 for TDS 7.4
  packetSize: number; // 0 = keep the server's default
  clientProgVersion: number;
  clientPid: number;
  connectionId: number;
  optionFlags1: number;
  optionFlags2: number;
  typeFlags: number;
  optionFlags3: number;
  hostName: string;
  userName: string;
  password: string;
  appName: string;
  serverName: string;
  libraryName: string;
  language: string;
  database: string;
  /** OptionFlags2 fIntSecurity: integrated (SSPI) login, which the stand-in does not offer. */
  integratedSecurity: boolean;
}

/**
 * MS-TDS 2.2.6.4: a password byte is obfuscated by swapping its nibbles and XOR-ing 0xA5. Undo it: XOR first,
 * then swap the nibbles back.
 */
export function deobfuscatePassword(bytes: Buffer): string {
  const clear = Buffer.alloc(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const x = bytes[i]! ^ 0xa5;
    clear[i] = ((x & 0x0f) << 4) | (x >> 4);
  }
  return clear.toString('utf16le');
}

/** The inverse, for tests that build LOGIN7 by hand. */
export function obfuscatePassword(password: string): Buffer {
  const clear = Buffer.from(password, 'utf16le');
  const out = Buffer.alloc(clear.length);
  for (let i = 0; i < clear.length; i++) {
    const b = clear[i]!;
    out[i] = (((b & 0x0f) << 4) | (b >> 4)) ^ 0xa5;
  }
  return out;
}

/** Offset of the OffsetLength table: 36 bytes of fixed fields (Length .. ClientLCID). */
const OFFSET_TABLE = 36;

/** Read one (ib USHORT, cch USHORT) pair at `at` and the UCS-2 text it points to (offsets from the record start). */
function field(buf: Buffer, at: number): { text: string; raw: Buffer } {
  need(buf, at, 4, 'LOGIN7 offset/length');
  const ib = buf.readUInt16LE(at);
  const cch = buf.readUInt16LE(at + 2);
  need(buf, ib, cch * 2, 'LOGIN7 variable field');
  const raw = buf.subarray(ib, ib + cch * 2);
  return { text: raw.toString('utf16le'), raw };
}

export function parseLogin7(buf: Buffer): Login7 {
  const length = readUInt32LE(buf, 0).value; // Length: the whole LOGIN7 record
  if (length > buf.length || length < OFFSET_TABLE + 9 * 4) throw new TdsProtocolError(`LOGIN7 length ${length} does not fit its ${buf.length}-byte message`);
  const record = buf.subarray(0, length);
  const optionFlags2 = record.readUInt8(25);
  return {
    tdsVersion: record.readUInt32LE(4), // TDSVersion, little-endian on the wire (0x74000004 = 7.4)
    packetSize: record.readUInt32LE(8), // PacketSize
    clientProgVersion: record.readUInt32LE(12), // ClientProgVer
    clientPid: record.readUInt32LE(16), // ClientPID
    connectionId: record.readUInt32LE(20), // ConnectionID
    optionFlags1: record.readUInt8(24), // OptionFlags1
    optionFlags2, // OptionFlags2
    typeFlags: record.readUInt8(26), // TypeFlags
    optionFlags3: record.readUInt8(27), // OptionFlags3
    // 28: ClientTimZone LONG, 32: ClientLCID ULONG — not used by the stand-in
    hostName: field(record, OFFSET_TABLE + 0).text, // ibHostName / cchHostName
    userName: field(record, OFFSET_TABLE + 4).text, // ibUserName / cchUserName
    password: deobfuscatePassword(field(record, OFFSET_TABLE + 8).raw), // ibPassword / cchPassword
    appName: field(record, OFFSET_TABLE + 12).text, // ibAppName / cchAppName
    serverName: field(record, OFFSET_TABLE + 16).text, // ibServerName / cchServerName
    // OFFSET_TABLE + 20: ibExtension / cbExtension (FeatureExt, a byte offset, not text) — ignored
    libraryName: field(record, OFFSET_TABLE + 24).text, // ibCltIntName / cchCltIntName
    language: field(record, OFFSET_TABLE + 28).text, // ibLanguage / cchLanguage
    database: field(record, OFFSET_TABLE + 32).text, // ibDatabase / cchDatabase
    integratedSecurity: (optionFlags2 & 0x80) !== 0, // fIntSecurity
  };
}
