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

/** The number in s[from, from + count) when it is all ASCII digits, else -1. */
function digits(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * The date in s[from, to). XE timestamps are `YYYY-MM-DDTHH:MM:SS.fffZ` (reference §4.3); that shape is parsed by hand
 * (3x cheaper), others by Date; null when unparsable.
 */
export function parseTimestampAt(s: string, from: number, to: number): Date | null {
  if (
    to - from === 24 &&
    s.charCodeAt(from + 10) === 84 /* T */ &&
    s.charCodeAt(from + 19) === 46 /* . */ &&
    s.charCodeAt(from + 23) === 90 /* Z */
  ) {
    const y = digits(s, from, 4);
    const mo = digits(s, from + 5, 2);
    const d = digits(s, from + 8, 2);
    const h = digits(s, from + 11, 2);
    const mi = digits(s, from + 14, 2);
    const sec = digits(s, from + 17, 2);
    const ms = digits(s, from + 20, 3);
    if (y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && sec >= 0 && sec < 60 && ms >= 0) {
      return new Date(Date.UTC(y, mo - 1, d, h, mi, sec, ms));
    }
  }
  const date = new Date(s.slice(from, to));
  return Number.isNaN(date.getTime()) ? null : date;
}

export function parseTimestamp(raw: string | undefined): Date | null {
  return raw === undefined ? null : parseTimestampAt(raw, 0, raw.length);
}
