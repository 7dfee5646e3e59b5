// Decoding what clients send in RPC parameters: TYPE_INFO (MS-TDS 2.2.5.6) and the value after it (2.2.5.5),
// into the engine's SqlValue plus a T-SQL type name ("int", "nvarchar(4000)", "decimal(18,2)").
import type { SqlValue } from '../engine';
import { TdsProtocolError, type Read, readBytes, readUInt16LE, readUInt8 } from './bytes';
import { TypeId, bytesToGuid } from './columns';

/** Extra type bytes accepted in parameters beyond those the stand-in sends (MS-TDS 2.2.5.4.1-3). */
const InTypeId = {
  FLT4: 0x3b,
  DATETIME: 0x3d,
  DATEN: 0x28,
  TIMEN: 0x29,
  DATETIMN: 0x6f,
  BIGVARBINARY: 0xa5,
  BIGCHAR: 0xaf,
  NCHAR: 0xef,
} as const;

export interface TypeInfo {
  id: number;
  typeName: string;
  /** Length byte/USHORT from TYPE_INFO (fixed types: their size). */
  length: number;
  precision?: number;
  scale?: number;
  plp: boolean;
}

const DAYS_0001_TO_1970 = 719162;
const DAYS_1900_TO_1970 = 25567;
const MS_PER_DAY = 86_400_000;

function intName(size: number): string {
  return { 1: 'tinyint', 2: 'smallint', 4: 'int', 8: 'bigint' }[size] ?? `int${size}`;
}

export function readTypeInfo(buf: Buffer, offset: number): Read<TypeInfo> {
  const id = readUInt8(buf, offset);
  offset = id.offset;
  const fixedSizes: Record<number, [number, string]> = {
    [TypeId.INT1]: [1, 'tinyint'],
    [TypeId.BIT]: [1, 'bit'],
    [TypeId.INT2]: [2, 'smallint'],
    [TypeId.INT4]: [4, 'int'],
    [TypeId.INT8]: [8, 'bigint'],
    [TypeId.FLT8]: [8, 'float'],
    [InTypeId.FLT4]: [4, 'real'],
    [InTypeId.DATETIME]: [8, 'datetime'],
  };
  const fixedType = fixedSizes[id.value];
  if (fixedType) return { value: { id: id.value, length: fixedType[0], typeName: fixedType[1], plp: false }, offset };
  switch (id.value) {
    case TypeId.INTN:
    case TypeId.BITN:
    case TypeId.FLTN:
    case InTypeId.DATETIMN:
    case TypeId.GUID: {
      const len = readUInt8(buf, offset);
      const typeName =
        id.value === TypeId.INTN ? intName(len.value)
        : id.value === TypeId.BITN ? 'bit'
        : id.value === TypeId.FLTN ? (len.value === 4 ? 'real' : 'float')
        : id.value === InTypeId.DATETIMN ? (len.value === 4 ? 'smalldatetime' : 'datetime')
        : 'uniqueidentifier';
      return { value: { id: id.value, length: len.value, typeName, plp: false }, offset: len.offset };
    }
    case TypeId.DECIMALN:
    case TypeId.NUMERICN: {
      const len = readUInt8(buf, offset); // length, precision, scale
      const precision = readUInt8(buf, len.offset);
      const scale = readUInt8(buf, precision.offset);
      const name = id.value === TypeId.DECIMALN ? 'decimal' : 'numeric';
      return { value: { id: id.value, length: len.value, precision: precision.value, scale: scale.value, typeName: `${name}(${precision.value},${scale.value})`, plp: false }, offset: scale.offset };
    }
    case InTypeId.DATEN:
      return { value: { id: id.value, length: 3, typeName: 'date', plp: false }, offset };
    case InTypeId.TIMEN:
    case TypeId.DATETIME2N:
    case TypeId.DATETIMEOFFSETN: {
      const scale = readUInt8(buf, offset);
      const name = id.value === InTypeId.TIMEN ? 'time' : id.value === TypeId.DATETIME2N ? 'datetime2' : 'datetimeoffset';
      return { value: { id: id.value, length: 0, scale: scale.value, typeName: `${name}(${scale.value})`, plp: false }, offset: scale.offset };
    }
    case TypeId.NVARCHAR:
    case InTypeId.NCHAR:
    case TypeId.BIGVARCHAR:
    case InTypeId.BIGCHAR:
    case InTypeId.BIGVARBINARY: {
      const maxLen = readUInt16LE(buf, offset); // USHORTMAXLEN in bytes
      offset = maxLen.offset;
      if (id.value !== InTypeId.BIGVARBINARY) offset = readBytes(buf, offset, 5).offset; // COLLATION
      const unicode = id.value === TypeId.NVARCHAR || id.value === InTypeId.NCHAR;
      const base = { [TypeId.NVARCHAR]: 'nvarchar', [InTypeId.NCHAR]: 'nchar', [TypeId.BIGVARCHAR]: 'varchar', [InTypeId.BIGCHAR]: 'char', [InTypeId.BIGVARBINARY]: 'varbinary' }[id.value]!;
      const plp = maxLen.value === 0xffff;
      const size = plp ? 'max' : String(unicode ? maxLen.value / 2 : maxLen.value);
      return { value: { id: id.value, length: maxLen.value, typeName: `${base}(${size})`, plp }, offset };
    }
    default:
      throw new TdsProtocolError(`RPC parameter type 0x${id.value.toString(16)} is not supported by the stand-in`);
  }
}

/** Unsigned little-endian integer of any width → bigint. */
function uintLE(bytes: Buffer): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** Unscaled integer → exact decimal text at `scale` ("-12.50"). */
export function unscaledToDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

function readTimeDate(bytes: Buffer, scale: number, withDate: boolean): number {
  const timeLen = timeLength(scale);
  const units = uintLE(bytes.subarray(0, timeLen));
  const ms = Number((units * 1000n) / 10n ** BigInt(scale));
  if (!withDate) return ms;
  const days = bytes.readUIntLE(timeLen, 3);
  return (days - DAYS_0001_TO_1970) * MS_PER_DAY + ms;
}

/**
 * The Date for a time/datetime2/datetimeoffset value, keeping the 100 ns units past the millisecond as
 * `hundredNanoseconds` (0–9999) so tests can see what arrived; the model's arithmetic still uses milliseconds.
 */
function preciseDate(bytes: Buffer, scale: number, withDate: boolean): Date {
  const date: Date & { hundredNanoseconds?: number } = new Date(readTimeDate(bytes, scale, withDate));
  const units = uintLE(bytes.subarray(0, timeLength(scale))) * 10n ** BigInt(7 - scale);
  const beyondMs = Number(units % 10_000n);
  if (beyondMs > 0) date.hundredNanoseconds = beyondMs;
  return date;
}

/** Read PLP chunks (MS-TDS 2.2.5.2.3) into one buffer, or null for PLP_NULL. */
function readPlp(buf: Buffer, offset: number): Read<Buffer | null> {
  const total = readBytes(buf, offset, 8);
  if (total.value.readBigUInt64LE(0) === 0xffffffffffffffffn) return { value: null, offset: total.offset };
  const chunks: Buffer[] = [];
  offset = total.offset;
  for (;;) {
    const chunkLen = readBytes(buf, offset, 4);
    const length = chunkLen.value.readUInt32LE(0);
    offset = chunkLen.offset;
    if (length === 0) break;
    const chunk = readBytes(buf, offset, length);
    chunks.push(chunk.value);
    offset = chunk.offset;
  }
  return { value: Buffer.concat(chunks), offset };
}

/** Read the value that follows a TYPE_INFO. */
export function readTypedValue(buf: Buffer, offset: number, info: TypeInfo): Read<SqlValue> {
  if (info.plp) {
    const body = readPlp(buf, offset);
    return { value: body.value === null ? null : decodeBytes(body.value, info), offset: body.offset };
  }
  const variableShort = [TypeId.NVARCHAR, InTypeId.NCHAR, TypeId.BIGVARCHAR, InTypeId.BIGCHAR, InTypeId.BIGVARBINARY] as number[];
  if (variableShort.includes(info.id)) {
    const len = readUInt16LE(buf, offset); // USHORTCHARBINLEN, 0xFFFF = NULL
    if (len.value === 0xffff) return { value: null, offset: len.offset };
    const bytes = readBytes(buf, len.offset, len.value);
    return { value: decodeBytes(bytes.value, info), offset: bytes.offset };
  }
  const fixedIds = [TypeId.INT1, TypeId.BIT, TypeId.INT2, TypeId.INT4, TypeId.INT8, TypeId.FLT8, InTypeId.FLT4, InTypeId.DATETIME] as number[];
  if (fixedIds.includes(info.id)) {
    const bytes = readBytes(buf, offset, info.length);
    return { value: decodeBytes(bytes.value, info), offset: bytes.offset };
  }
  const len = readUInt8(buf, offset); // BYTELEN, 0 = NULL
  if (len.value === 0) return { value: null, offset: len.offset };
  const bytes = readBytes(buf, len.offset, len.value);
  return { value: decodeBytes(bytes.value, info), offset: bytes.offset };
}

/** Time part width for a scale (MS-TDS 2.2.5.5.1.8: 3 bytes up to scale 2, 4 up to 4, else 5). */
function timeLength(scale: number): number {
  return scale <= 2 ? 3 : scale <= 4 ? 4 : 5;
}

/**
 * The value lengths MS-TDS allows for a type (2.2.5.5.1), or null when any length decodes. The length byte comes from
 * the client, so it is checked before any read: a short value must fail as a protocol error, not a RangeError.
 */
function allowedLengths(info: TypeInfo): readonly number[] | null {
  switch (info.id) {
    case TypeId.INT1: case TypeId.INT2: case TypeId.INT4: case TypeId.INT8:
    case TypeId.FLT8: case InTypeId.FLT4: case InTypeId.DATETIME:
      return [info.length];
    case TypeId.INTN: return [1, 2, 4, 8];
    case TypeId.BIT: case TypeId.BITN: return [1];
    case TypeId.FLTN: return [4, 8];
    case TypeId.DECIMALN: case TypeId.NUMERICN: return [5, 9, 13, 17]; // sign byte + 4, 8, 12 or 16
    case TypeId.GUID: return [16];
    case InTypeId.DATEN: return [3];
    case InTypeId.TIMEN: return [timeLength(info.scale ?? 7)];
    case TypeId.DATETIME2N: return [timeLength(info.scale ?? 7) + 3];
    case TypeId.DATETIMEOFFSETN: return [timeLength(info.scale ?? 7) + 5]; // + 3 date bytes + 2 offset bytes
    case InTypeId.DATETIMN: return [4, 8];
    default: return null;
  }
}

function decodeBytes(bytes: Buffer, info: TypeInfo): SqlValue {
  const allowed = allowedLengths(info);
  if (allowed !== null && !allowed.includes(bytes.length)) {
    throw new TdsProtocolError(`${info.typeName} value of ${bytes.length} bytes (expected ${allowed.join(' or ')})`);
  }
  switch (info.id) {
    case TypeId.INT1:
    case TypeId.INT2:
    case TypeId.INT4:
    case TypeId.INT8:
    case TypeId.INTN:
      if (bytes.length === 8) return bytes.readBigInt64LE(0);
      return bytes.length === 1 ? bytes.readUInt8(0) : bytes.readIntLE(0, bytes.length);
    case TypeId.BIT:
    case TypeId.BITN:
      return bytes.readUInt8(0) !== 0;
    case TypeId.FLT8:
    case InTypeId.FLT4:
    case TypeId.FLTN:
      return bytes.length === 4 ? bytes.readFloatLE(0) : bytes.readDoubleLE(0);
    case TypeId.DECIMALN:
    case TypeId.NUMERICN: {
      const magnitude = uintLE(bytes.subarray(1)); // byte 0 is the sign: 1 positive, 0 negative
      return unscaledToDecimal(bytes.readUInt8(0) === 1 ? magnitude : -magnitude, info.scale ?? 0);
    }
    case TypeId.NVARCHAR:
    case InTypeId.NCHAR:
      return bytes.toString('utf16le');
    case TypeId.BIGVARCHAR:
    case InTypeId.BIGCHAR:
      return bytes.toString('latin1');
    case InTypeId.BIGVARBINARY:
      return `0x${bytes.toString('hex').toUpperCase()}`;
    case TypeId.GUID:
      return bytesToGuid(bytes);
    case InTypeId.DATEN:
      return new Date((bytes.readUIntLE(0, 3) - DAYS_0001_TO_1970) * MS_PER_DAY);
    case InTypeId.TIMEN:
      return preciseDate(bytes, info.scale ?? 7, false);
    case TypeId.DATETIME2N:
      return preciseDate(bytes, info.scale ?? 7, true);
    case TypeId.DATETIMEOFFSETN: {
      const utc = readTimeDate(bytes, info.scale ?? 7, true);
      return { date: new Date(utc), offsetMinutes: bytes.readInt16LE(bytes.length - 2) };
    }
    case InTypeId.DATETIME:
    case InTypeId.DATETIMN: {
      if (bytes.length === 4) {
        // smalldatetime: USHORT days since 1900-01-01, USHORT minutes
        return new Date((bytes.readUInt16LE(0) - DAYS_1900_TO_1970) * MS_PER_DAY + bytes.readUInt16LE(2) * 60_000);
      }
      // datetime: LONG days since 1900-01-01, ULONG 1/300 s ticks
      return new Date((bytes.readInt32LE(0) - DAYS_1900_TO_1970) * MS_PER_DAY + Math.round((bytes.readUInt32LE(4) * 10) / 3));
    }
    default:
      throw new TdsProtocolError(`cannot decode type 0x${info.id.toString(16)}`);
  }
}
