// One way to write a quantity, used by the panel, the exports and the CLI alike: bytes in binary units labelled as
// such (KiB, MiB, GiB — 1024-based, like sys.dm_io_virtual_file_stats' byte counts divided by 1024), rates per
// second in the same units, durations that grow from ms to s to min, and counts with thousands separators.

/** Fixed-locale number text: up to `digits` decimals, thousands separated by commas. */
export function formatNumber(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Number(value.toFixed(digits));
  const [int, frac] = Math.abs(rounded).toString().split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${rounded < 0 && rounded !== 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}`;
}

/** Like formatNumber, but always `digits` decimals ("1.00 s", "17.0×"), so figures of one kind line up. */
export function formatFixed(value: number, digits: number): string {
  if (!Number.isFinite(value)) return String(value);
  const [int, frac] = Math.abs(value).toFixed(digits).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const negative = value < 0 && Number(Math.abs(value).toFixed(digits)) !== 0;
  return `${negative ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}`;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** 1536 → "1.5 KiB", 5,346,689,024 → "4.98 GiB": the largest unit that keeps the figure at or above 1. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 ? 0 : value >= 100 ? 1 : 2;
  return `${bytes < 0 ? '-' : ''}${unit === 0 ? formatNumber(value, 0) : formatFixed(value, digits)} ${BYTE_UNITS[unit]}`;
}

/** The divisor and label that fit the largest of `values` (a chart axis shares one unit). */
export function byteScale(values: readonly (number | null)[]): { divisor: number; unit: (typeof BYTE_UNITS)[number] } {
  const max = Math.max(0, ...values.map((v) => Math.abs(v ?? 0)));
  let unit = 0;
  let divisor = 1;
  while (max / divisor >= 1024 && unit < BYTE_UNITS.length - 1) {
    divisor *= 1024;
    unit++;
  }
  return { divisor, unit: BYTE_UNITS[unit]! };
}

/** Bytes per second: "12.5 MiB/s". */
export function formatByteRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** 0.42 → "0.42 ms", 1,296 → "1.30 s", 95,000 → "1 min 35 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const abs = Math.abs(ms);
  if (abs < 1) return `${formatNumber(ms, 3)} ms`;
  if (abs < 1000) return `${formatNumber(ms, 1)} ms`;
  if (abs < 60_000) return `${formatFixed(ms / 1000, 2)} s`;
  const minutes = Math.floor(abs / 60_000);
  const seconds = Math.round((abs % 60_000) / 1000);
  return `${ms < 0 ? '-' : ''}${minutes} min${seconds > 0 ? ` ${seconds} s` : ''}`;
}

/** A count: "12,345". */
export function formatCount(n: number): string {
  return formatNumber(n, 0);
}

/** A speed-up factor: two decimals below 2 (1.15×), one above (9.8×, 30.5×). */
export function formatFactor(f: number): string {
  return `${formatFixed(f, Math.abs(f) < 2 ? 2 : Math.abs(f) >= 1000 ? 0 : 1)}×`;
}

/** A share 0…1 as a whole percent, "<1 %" for a small non-zero share. */
export function formatShare(share: number): string {
  if (share > 0 && share < 0.005) return '<1 %';
  return `${Math.round(share * 100)} %`;
}
