// Converters from values as tedious delivers them (bigint → string, nchar padded, bit → boolean) to snapshot fields.
// Cumulative counters stay exact decimal strings (they may pass 2^53); deltas become numbers (they fit).

/** A cumulative counter as an exact decimal string; null when the server sent NULL. */
export function counter(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? BigInt(Math.trunc(value)).toString() : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim()).toString();
  throw new TypeError(`Not an integer counter: ${JSON.stringify(value)}`);
}

/** Like counter() but a missing value reads as 0 (a wait or file absent from a snapshot has not happened yet). */
export function counterOrZero(value: unknown): string {
  return counter(value) ?? '0';
}

/** after − before, exactly, then as a number. Negative only when a counter went backwards (restart, wrap). */
export function delta(before: string | null, after: string | null): number {
  return Number(BigInt(after ?? '0') - BigInt(before ?? '0'));
}

export function num(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return null;
}

/**
 * Longest string a DMV/catalog column read by the probes is kept at. Every such column is sysname (128), nvarchar(256)
 * or @@VERSION-sized (a few hundred characters); only a misbehaving server sends more, and a single 60 KB "name" must
 * not end up in every panel, export and history entry.
 */
export const MAX_TEXT_VALUE_CHARS = 4000;

/** Strings with nchar padding removed, cut at MAX_TEXT_VALUE_CHARS with a visible marker; null stays null. */
export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return truncateText(String(value).trimEnd(), MAX_TEXT_VALUE_CHARS);
}

/** `value` cut to `max` characters plus a marker saying how many were left out (never splits a surrogate pair). */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value;
  let cut = max;
  const code = value.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${value.slice(0, cut)}… [${value.length - cut} more characters not kept]`;
}

export function bool(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value === '1' || value.toLowerCase() === 'true';
  return null;
}

/** Division that reports "no data" instead of NaN/Infinity when the divisor is 0. */
export function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

export function isoOrNull(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'string' && value !== '') return value;
  return null;
}
