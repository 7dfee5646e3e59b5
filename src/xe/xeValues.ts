// Conversions of Extended Events text to values: `<value>` by its declared type, `timestamp` attributes to dates.
// Each reads either a string or a range of the document, so the reader's fast path never slices what it can parse.

import type { XeScalar } from './events';

const INTEGER = /^-?\d+$/;

/**
 * How a `<value>` is read, from its field's declared `<type name=..>` (the type objects of package0 in
 * sys.dm_xe_objects, object_type = 'type': https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-xe-objects-transact-sql).
 * Real output declares `binary_data` values such as `01` (a login's SID): the digits do not make it a number.
 * event_file rows carry no `<type>` at all (test/fixtures/real-server): there an all-digit value is read as a number,
 * the only information left. A type that is none of package0's (a map such as wait_types, lock_mode) holds a map key:
 * an integer when it is one, else its text (`0x0000001c` for error_destination).
 */
export type XeTypeClass =
  /** No `<type>` element (event_file rows). */
  | 'undeclared'
  | 'integer'
  | 'float'
  | 'boolean'
  | 'text'
  /** A map type (its value is the map key). */
  | 'map';

const INTEGER_TYPES = new Set(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64']);
const FLOAT_TYPES = new Set(['float32', 'float64']);
/** package0 types whose values are text, whatever characters they hold. */
const TEXT_TYPES = new Set([
  'unicode_string', 'ansi_string', 'unicode_string_ptr', 'ansi_string_ptr', 'binary_data', 'guid', 'guid_ptr', 'xml',
  'callstack', 'ptr', 'activity_id', 'activity_id_xfer', 'char', 'wchar', 'filetime', 'sos_context', 'database_context', 'null',
]);

export function xeTypeClass(typeName: string | null): XeTypeClass {
  if (typeName === null) return 'undeclared';
  if (INTEGER_TYPES.has(typeName)) return 'integer';
  if (FLOAT_TYPES.has(typeName)) return 'float';
  if (typeName === 'boolean') return 'boolean';
  if (TEXT_TYPES.has(typeName)) return 'text';
  return 'map';
}

function integerOf(raw: string): XeScalar {
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : BigInt(raw);
}

/** A `<value>` by its declared type class: integers as number when exact, else bigint (uint64 counters, hashes). */
export function convertXeValueOfClass(raw: string, cls: XeTypeClass): XeScalar {
  switch (cls) {
    case 'text':
      return raw;
    case 'float': {
      const f = Number(raw);
      return raw.trim() === '' || Number.isNaN(f) ? raw : f;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    default:
      return INTEGER.test(raw) ? integerOf(raw) : raw;
  }
}

/** convertXeValue by the declared type's name (null: no `<type>` element). */
export function convertXeValue(raw: string, typeName: string | null): XeScalar {
  return convertXeValueOfClass(raw, xeTypeClass(typeName));
}

/**
 * convertXeValueOfClass(s.slice(from, to), cls). Integers of up to 15 digits — sizes, ids, durations, sequence
 * numbers — are exact doubles, so they are computed in place with the same result as Number(); everything else goes
 * through convertXeValueOfClass.
 */
export function convertXeValueAt(s: string, from: number, to: number, cls: XeTypeClass): XeScalar {
  if (cls === 'text') return s.slice(from, to);
  if (cls !== 'float' && cls !== 'boolean') {
    const negative = s.charCodeAt(from) === 45; /* - */
    const first = negative ? from + 1 : from;
    if (to > first && to - first <= 15) {
      let v = 0;
      let i = first;
      for (; i < to; i++) {
        const d = s.charCodeAt(i) - 48;
        if (d < 0 || d > 9) break;
        v = v * 10 + d;
      }
      if (i === to) return negative ? -v : v;
    }
  }
  return convertXeValueOfClass(s.slice(from, to), cls);
}

/** The two-digit number at s[i], or -1 when either character is not an ASCII digit. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Days from 1970-01-01 to year-month-day (proleptic Gregorian, month 1–12, any day ≥ 1: the excess rolls into the next
 * month as in Date.UTC), by Hinnant's days_from_civil — plain arithmetic, where a Date.UTC call per event cost 15% of
 * the reader. Years ≥ 100 only: Date.UTC reads 0–99 as 1900–1999.
 */
function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y--;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * The date in s[from, to). XE timestamps are `YYYY-MM-DDTHH:MM:SS.fffZ` (reference §4.3); that shape is parsed by hand,
 * others by Date; null when unparsable. Only the T, '.' and Z are checked, not the '-' and ':' (as before: the readers
 * agree on every input, test/unit/xe/readerEquivalence.test.ts).
 */
export function parseTimestampAt(s: string, from: number, to: number): Date | null {
  if (
    to - from === 24 &&
    s.charCodeAt(from + 10) === 84 /* T */ &&
    s.charCodeAt(from + 19) === 46 /* . */ &&
    s.charCodeAt(from + 23) === 90 /* Z */
  ) {
    const century = two(s, from);
    const yy = two(s, from + 2);
    const mo = two(s, from + 5);
    const d = two(s, from + 8);
    const h = two(s, from + 11);
    const mi = two(s, from + 14);
    const sec = two(s, from + 17);
    const msHigh = two(s, from + 20);
    const msLow = s.charCodeAt(from + 22) - 48;
    if (century >= 0 && yy >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && sec >= 0 && sec < 60 && msHigh >= 0 && msLow >= 0 && msLow <= 9) {
      const y = century * 100 + yy;
      const ms = msHigh * 10 + msLow;
      if (y >= 100) return new Date(daysFromCivil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + ms);
      return new Date(Date.UTC(y, mo - 1, d, h, mi, sec, ms));
    }
  }
  const date = new Date(s.slice(from, to));
  return Number.isNaN(date.getTime()) ? null : date;
}

export function parseTimestamp(raw: string | undefined): Date | null {
  return raw === undefined ? null : parseTimestampAt(raw, 0, raw.length);
}
