// Conversions of Extended Events text to values: `<value>` by its declared type, `timestamp` attributes to dates.
// Each reads either a string or a range of the document, so the reader's fast path never slices what it can parse.

import type { XeScalar } from './reader';

const INTEGER = /^-?\d+$/;
const FLOAT_TYPES = new Set(['float32', 'float64']);

/** Integers as number when exact, else bigint (uint64 counters); floats and booleans by declared type; the rest as text. */
export function convertXeValue(raw: string, typeName: string | null): XeScalar {
  if (INTEGER.test(raw)) {
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : BigInt(raw);
  }
  if (typeName !== null) {
    if (FLOAT_TYPES.has(typeName)) {
      const f = Number(raw);
      return Number.isNaN(f) ? raw : f;
    }
    if (typeName === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  }
  return raw;
}

/**
 * convertXeValue(s.slice(from, to), type) where the type name is s.slice(typeFrom, typeTo) (null when typeFrom < 0).
 * Integers of up to 15 digits — sizes, ids, durations, sequence numbers — are exact doubles, so they are computed in
 * place with the same result as Number(); everything else goes through convertXeValue.
 */
export function convertXeValueAt(s: string, from: number, to: number, typeFrom: number, typeTo: number): XeScalar {
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
  return convertXeValue(s.slice(from, to), typeFrom < 0 ? null : s.slice(typeFrom, typeTo));
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
