// The per-statement exact counts (issue 16): the statement session's histogram of WRITELOG waits and its companion's
// histogram of statement completions, both grouped by sqlserver.query_hash, checked against event_counter's totals.

import type { XeEvent } from './reader';
import { parseHistogramTextTarget } from './targetData';

/**
 * Exact counts per statement hash (decimal text of sqlserver.query_hash), read from the histogram targets, with the
 * event_counter totals they are checked against (a full histogram ignores new values: the difference says how many).
 */
export interface StatementHistograms {
  /** WRITELOG wait events per hash (null: the wait histogram could not be read). */
  waitsByHash: Map<string, number> | null;
  /** Statement completions per hash (null: the companion session did not run or could not be read). */
  executionsByHash: Map<string, number> | null;
  /** event_counter's exact totals (null: not read). */
  waitEvents: number | null;
  statementEvents: number | null;
  /** Each histogram's `buckets` attribute: its slot count after rounding (null: not read or not stated). */
  waitSlots?: number | null;
  executionSlots?: number | null;
  notes: string[];
}

/**
 * The pseudo-event collect() hands to `onEvent` after the sampled events when the histograms were read, so the
 * caller's fold (StatementAccumulator.add) receives the exact counts through the same callback as the sample.
 */
export const STATEMENT_HISTOGRAMS_EVENT = 'durability_lens.statement_histograms';
export interface StatementHistogramsEvent extends XeEvent {
  histograms: StatementHistograms;
}

/**
 * Parses both histograms (null XML: that one was not read) and says how many events each did not place: the
 * histogram target ignores new values once its slots are full and is fed asynchronously (events can be dropped
 * under ALLOW_SINGLE_EVENT_LOSS), so only event_counter's synchronous totals reveal it.
 */
export function readStatementHistograms(
  xml: { waits: string | null; executions: string | null },
  waitEvent: string | null,
  statementEvents: readonly string[],
  counts: Map<string, number> | null,
  earlierNotes: readonly string[] = [],
): StatementHistograms {
  const notes = [...earlierNotes];
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const slots = { WRITELOG: null as number | null, executions: null as number | null };
  const read = (text: string | null, what: 'WRITELOG' | 'executions'): Map<string, number> | null => {
    if (text === null) return null;
    const h = parseHistogramTextTarget(text);
    if (h.parseError !== null) {
      notes.push(`The ${what} histogram could not be read (${h.parseError}).`);
      return null;
    }
    slots[what] = h.slots;
    return h.buckets;
  };
  const waitsByHash = waitEvent ? read(xml.waits, 'WRITELOG') : null;
  const executionsByHash = read(xml.executions, 'executions');
  const waitEvents = counts && waitEvent ? (counts.get(waitEvent) ?? 0) : null;
  const statementTotal = counts ? statementEvents.reduce((n, e) => n + (counts.get(e) ?? 0), 0) : null;
  if (waitsByHash && waitEvents !== null && sum(waitsByHash) < waitEvents) {
    notes.push(`The WRITELOG histogram placed ${sum(waitsByHash)} of ${waitEvents} waits (slots full or events dropped); the rest are not attributed.`);
  }
  if (executionsByHash && statementTotal !== null && sum(executionsByHash) < statementTotal) {
    notes.push(`The executions histogram placed ${sum(executionsByHash)} of ${statementTotal} statement completions (slots full or events dropped).`);
  }
  return { waitsByHash, executionsByHash, waitEvents, statementEvents: statementTotal, waitSlots: slots.WRITELOG, executionSlots: slots.executions, notes };
}
