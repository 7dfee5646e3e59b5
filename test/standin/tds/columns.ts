// Result-set tokens: COLMETADATA (MS-TDS 2.2.7.4) with TYPE_INFO (2.2.5.6) per column, and ROW (2.2.7.19) /
// NBCROW (2.2.7.15) value encodings (2.2.5.5), including PLP (2.2.5.2.3) for nvarchar(max)/varchar(max).
import type { Column, ColumnType, SqlValue } from '../engine';
import { bVarChar } from './bytes';
import { DEFAULT_COLLATION, TokenType } from './tokens';

/** MS-TDS 2.2.5.4.1 / 2.2.5.4.2 type bytes. */
export const TypeId = {
  INT1: 0x30,
  BIT: 0x32,
  INT2: 0x34,
  INT4: 0x38,
  FLT8: 0x3e,
  INT8: 0x7f,
  GUID: 0x24,
  INTN: 0x26,
  DATETIME2N: 0x2a,
  DATETIMEOFFSETN: 0x2b,
  BITN: 0x68,
  DECIMALN: 0x6a,
  NUMERICN: 0x6c,
  FLTN: 0x6d,
  BIGVARCHAR: 0xa7,
  BIGCHAR: 0xaf,
  NVARCHAR: 0xe7,
  NCHAR: 0xef,
} as const;

/** Value bytes of one cell (without the NBCROW bitmap). */
type Encoder = (value: SqlValue) => Buffer;

export class ResultEncodingError extends Error {
  override name = 'ResultEncodingError';
}

const PLP_NULL = 0xffffffffffffffffn;
const DAYS_0001_TO_1970 = 719162; // days from 0001-01-01 to 1970-01-01 in the proleptic Gregorian calendar
const MS_PER_DAY = 86_400_000;

function fixed(size: number, write: (out: Buffer, value: SqlValue) => void, nullable: boolean): Encoder {
  return (value) => {
    if (value === null) {
      if (!nullable) throw new ResultEncodingError('NULL in a NOT NULL column');
      return Buffer.from([0]); // xxxN types: length 0 = NULL
    }
    if (!nullable) {
      const out = Buffer.allocUnsafe(size); // every byte is written below
      write(out, value);
      return out;
    }
    const out = Buffer.allocUnsafe(size + 1);
    out[0] = size;
    write(out.subarray(1), value);
    return out;
  };
}

function asNumber(value: SqlValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new ResultEncodingError(`expected a number, got ${typeof value}`);
}

function asBigInt(value: SqlValue): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new ResultEncodingError(`expected a bigint, got ${String(value)}`);
}

/** Decimal text ("-12.50") → unscaled integer at the column's scale, rounding half away from zero. */
export function decimalToUnscaled(text: string, scale: number): bigint {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new ResultEncodingError(`not a decimal: ${text}`);
  const fraction = match[3] ?? '';
  const kept = (fraction + '0'.repeat(scale)).slice(0, scale);
  let unscaled = BigInt((match[2] || '0') + kept);
  if ((fraction[scale] ?? '0') >= '5') unscaled += 1n;
  return match[1] === '-' ? -unscaled : unscaled;
}

export function decimalSize(precision: number): number {
  return precision <= 9 ? 5 : precision <= 19 ? 9 : precision <= 28 ? 13 : 17;
}

function timeBytes(scale: number): number {
  return scale <= 2 ? 3 : scale <= 4 ? 4 : 5;
}

/** MS-TDS 2.2.5.5.1.7/.8: time = units of 10^-scale s since midnight; date = 3-byte days since 0001-01-01. */
function writeTimeAndDate(out: Buffer, offset: number, utcMs: number, scale: number): number {
  let days = Math.floor(utcMs / MS_PER_DAY);
  const msOfDay = utcMs - days * MS_PER_DAY;
  let units = BigInt(Math.round((msOfDay * 10 ** scale) / 1000));
  const unitsPerDay = 86_400n * 10n ** BigInt(scale);
  if (units >= unitsPerDay) {
    units -= unitsPerDay;
    days += 1;
  }
  const tLen = timeBytes(scale);
  for (let i = 0; i < tLen; i++) out.writeUInt8(Number((units >> BigInt(8 * i)) & 0xffn), offset + i);
  out.writeUIntLE(days + DAYS_0001_TO_1970, offset + tLen, 3);
  return offset + tLen + 3;
}

/** Canonical GUID text → the mixed-endian wire order (first three groups little-endian). */
export function guidToBytes(text: string): Buffer {
  const hex = text.replace(/[{}-]/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new ResultEncodingError(`not a GUID: ${text}`);
  const b = Buffer.from(hex, 'hex');
  return Buffer.from([b[3]!, b[2]!, b[1]!, b[0]!, b[5]!, b[4]!, b[7]!, b[6]!, ...b.subarray(8)]);
}

export function bytesToGuid(b: Buffer): string {
  const order = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];
  const hex = order.map((i) => b[i]!.toString(16).padStart(2, '0')).join('').toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** PLP body: ULONGLONG total length, chunks (ULONG length + bytes), ULONG 0 terminator. */
export function plp(bytes: Buffer | null): Buffer {
  if (bytes === null) {
    const out = Buffer.alloc(8);
    out.writeBigUInt64LE(PLP_NULL);
    return out;
  }
  const head = Buffer.alloc(bytes.length > 0 ? 12 : 8);
  head.writeBigUInt64LE(BigInt(bytes.length), 0);
  if (bytes.length > 0) head.writeUInt32LE(bytes.length, 8); // one chunk; packets split it anyway
  return Buffer.concat([head, bytes, Buffer.alloc(4)]);
}

function textEncoder(type: Extract<ColumnType, { kind: 'nvarchar' | 'varchar' }>, nullable: boolean): Encoder {
  const encoding: BufferEncoding = type.kind === 'nvarchar' ? 'utf16le' : 'latin1'; // CP1252 collation ≈ latin1
  return (value) => {
    if (value === null && !nullable) throw new ResultEncodingError('NULL in a NOT NULL column');
    const bytes = value === null ? null : Buffer.from(String(value), encoding);
    if (type.length === 'max') return plp(bytes);
    if (bytes === null) return Buffer.from([0xff, 0xff]); // USHORTCHARBINLEN 0xFFFF = NULL
    const maxBytes = type.kind === 'nvarchar' ? type.length * 2 : type.length;
    if (bytes.length > maxBytes) throw new ResultEncodingError(`value of ${bytes.length} bytes exceeds ${type.kind}(${type.length})`);
    const head = Buffer.alloc(2);
    head.writeUInt16LE(bytes.length, 0);
    return Buffer.concat([head, bytes]);
  };
}

/** TYPE_INFO bytes and the cell encoder for one column. */
export function describeColumn(column: Column): { typeInfo: Buffer; encode: Encoder } {
  const { type, nullable } = column;
  switch (type.kind) {
    case 'int':
    case 'bigint':
    case 'smallint':
    case 'tinyint': {
      const size = { tinyint: 1, smallint: 2, int: 4, bigint: 8 }[type.kind];
      const fixedId = { tinyint: TypeId.INT1, smallint: TypeId.INT2, int: TypeId.INT4, bigint: TypeId.INT8 }[type.kind];
      const write = (out: Buffer, v: SqlValue): void => {
        if (size === 4) out.writeInt32LE(asNumber(v));
        else if (size === 8) out.writeBigInt64LE(asBigInt(v));
        else if (size === 2) out.writeInt16LE(asNumber(v));
        else out.writeUInt8(asNumber(v));
      };
      // NOT NULL columns use the fixed-length type (as SQL Server does); nullable ones INTN with a length byte.
      return { typeInfo: nullable ? Buffer.from([TypeId.INTN, size]) : Buffer.from([fixedId]), encode: fixed(size, write, nullable) };
    }
    case 'bit':
      return {
        typeInfo: nullable ? Buffer.from([TypeId.BITN, 1]) : Buffer.from([TypeId.BIT]),
        encode: fixed(1, (out, v) => out.writeUInt8(v === true || v === 1 ? 1 : 0), nullable),
      };
    case 'float':
      return {
        typeInfo: nullable ? Buffer.from([TypeId.FLTN, 8]) : Buffer.from([TypeId.FLT8]),
        encode: fixed(8, (out, v) => out.writeDoubleLE(asNumber(v)), nullable),
      };
    case 'decimal': {
      const size = decimalSize(type.precision);
      return {
        // DECIMALN: length, precision, scale
        typeInfo: Buffer.from([TypeId.DECIMALN, size, type.precision, type.scale]),
        encode: fixed(
          size,
          (out, v) => {
            out.fill(0);
            const unscaled = decimalToUnscaled(typeof v === 'number' ? v.toFixed(type.scale) : String(v), type.scale);
            out.writeUInt8(unscaled < 0n ? 0 : 1, 0); // sign: 1 = positive
            let magnitude = unscaled < 0n ? -unscaled : unscaled;
            for (let i = 1; i < size; i++) {
              out.writeUInt8(Number(magnitude & 0xffn), i);
              magnitude >>= 8n;
            }
          },
          true,
        ),
      };
    }
    case 'nvarchar':
    case 'varchar': {
      // nchar(n) / char(n) go out as NCHARTYPE / BIGCHARTYPE (same USHORTLEN + collation layout, MS-TDS 2.2.5.4.3).
      const fixedLength = type.fixed === true && type.length !== 'max';
      const id = type.kind === 'nvarchar' ? (fixedLength ? TypeId.NCHAR : TypeId.NVARCHAR) : fixedLength ? TypeId.BIGCHAR : TypeId.BIGVARCHAR;
      const maxLen = type.length === 'max' ? 0xffff : type.kind === 'nvarchar' ? type.length * 2 : type.length;
      const info = Buffer.alloc(3);
      info.writeUInt8(id, 0);
      info.writeUInt16LE(maxLen, 1); // USHORTMAXLEN in bytes; 0xFFFF = MAX (PLP)
      return { typeInfo: Buffer.concat([info, DEFAULT_COLLATION]), encode: textEncoder(type, nullable) };
    }
    case 'datetime2':
    case 'datetimeoffset': {
      const withOffset = type.kind === 'datetimeoffset';
      const size = timeBytes(type.scale) + 3 + (withOffset ? 2 : 0);
      return {
        typeInfo: Buffer.from([withOffset ? TypeId.DATETIMEOFFSETN : TypeId.DATETIME2N, type.scale]),
        encode: fixed(
          size,
          (out, v) => {
            const instant = withOffset ? (v as { date: Date; offsetMinutes: number }) : { date: v as Date, offsetMinutes: 0 };
            if (!(instant.date instanceof Date)) throw new ResultEncodingError(`expected a Date for ${type.kind}`);
            // datetimeoffset stores UTC date/time plus the offset; datetime2 stores the wall-clock value as given
            const end = writeTimeAndDate(out, 0, instant.date.getTime(), type.scale);
            if (withOffset) out.writeInt16LE(instant.offsetMinutes, end);
          },
          true,
        ),
      };
    }
    case 'uniqueidentifier':
      return {
        typeInfo: Buffer.from([TypeId.GUID, 16]),
        encode: fixed(16, (out, v) => guidToBytes(String(v)).copy(out), true),
      };
  }
}

export interface EncodedResultSet {
  metadata: Buffer;
  encodeRow(values: SqlValue[]): Buffer;
}

/** COLMETADATA token plus a row encoder bound to those columns. */
export function encodeResultSet(columns: Column[]): EncodedResultSet {
  const described = columns.map(describeColumn);
  const parts: Buffer[] = [Buffer.from([TokenType.COLMETADATA, columns.length & 0xff, columns.length >> 8])];
  columns.forEach((column, i) => {
    const head = Buffer.alloc(6);
    head.writeUInt32LE(0, 0); // UserType
    head.writeUInt16LE(column.nullable ? 0x0001 : 0x0000, 4); // Flags: fNullable
    parts.push(head, described[i]!.typeInfo, bVarChar(column.name));
  });
  const nullBitmapBytes = Math.ceil(columns.length / 8);
  return {
    metadata: Buffer.concat(parts),
    encodeRow(values) {
      if (values.length !== columns.length) throw new ResultEncodingError(`row has ${values.length} values for ${columns.length} columns`);
      if (!values.includes(null)) {
        // ROW: token byte, then every cell (the hot path of large results: one allocation for the row)
        const cells = new Array<Buffer>(values.length);
        let total = 1;
        for (let i = 0; i < values.length; i++) total += (cells[i] = described[i]!.encode(values[i]!)).length;
        const row = Buffer.allocUnsafe(total);
        row[0] = TokenType.ROW;
        let offset = 1;
        for (const cell of cells) offset += cell.copy(row, offset);
        return row;
      }
      // NBCROW: a bitmap marks NULLs, which then take no bytes at all
      const bitmap = Buffer.alloc(nullBitmapBytes);
      const cells: Buffer[] = [];
      values.forEach((v, i) => {
        if (v === null) {
          if (!columns[i]!.nullable) throw new ResultEncodingError(`NULL in NOT NULL column ${columns[i]!.name}`);
          bitmap[i >> 3] = bitmap[i >> 3]! | (1 << (i & 7));
        } else cells.push(described[i]!.encode(v));
      });
      return Buffer.concat([Buffer.from([TokenType.NBCROW]), bitmap, ...cells]);
    },
  };
}
