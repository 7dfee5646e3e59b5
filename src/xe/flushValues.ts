// The numeric fields of log-flush events as the reader gives them, and the values no server can send (an edited file):
// shared by the aggregator (which leaves such values out, with a note) and `trace read` (which refuses the file).
import type { XeEvent, XeField } from './reader';

/** A field's number (bigint as Number), or null when absent or not numeric. */
export function numeric(field: XeField | undefined): number | null {
  if (!field) return null;
  const v = field.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/**
 * A log-flush value no server can send: a write_size or a log_flush_complete duration below zero or not finite (a size
 * and a time are never negative; the fields are unsigned integers). Such an event comes from an edited file: its value
 * is never summed (`trace read` refuses the file; the aggregator leaves the value out and says so).
 */
export function impossibleFlushValue(event: XeEvent): { field: 'write_size' | 'duration'; value: number } | null {
  const size = numeric(event.data.write_size);
  if (size !== null && !(size >= 0 && Number.isFinite(size))) return { field: 'write_size', value: size };
  const duration = event.name === 'log_flush_complete' ? numeric(event.data.duration) : null;
  if (duration !== null && !(duration >= 0 && Number.isFinite(duration))) return { field: 'duration', value: duration };
  return null;
}
