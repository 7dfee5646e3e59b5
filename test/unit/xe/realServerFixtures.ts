// Loads test/fixtures/real-server: the manifest and each sample's text, with the documents a reader takes (a target's
// whole XML, or the event_file rows: one per line where the manifest says so, else the whole file as one row).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REAL_SERVER_DIR = join(__dirname, '../../fixtures/real-server');

export interface RealSample {
  file: string;
  source: string;
  provenance: { repository?: string; commit?: string; path?: string; url?: string; foundIn?: string };
  server: string;
  kind: string;
  rows?: Array<{ file_name: string; file_offset: string }>;
  form: { origin: string; type: 'open-close' | 'self-closing' | 'none' | 'n/a'; cdata: boolean; prettyPrinted: boolean | string };
  trims: string;
  statementChecks?: Array<{ event: number; batch: string; expectedStatement: string }>;
  expect: {
    events?: Record<string, number>;
    ringBuffer?: { eventCount: number; totalEventsProcessed: number; droppedCount: number; truncated: boolean };
    textValues?: Record<string, string>;
    queryHash?: string;
    module?: string;
    histogram?: { buckets: number; slots: Record<string, number> };
  };
}

export interface RealManifest {
  sources: Record<string, string>;
  samples: RealSample[];
  notFound: string[];
}

export function realManifest(): RealManifest {
  return JSON.parse(readFileSync(join(REAL_SERVER_DIR, 'manifest.json'), 'utf8')) as RealManifest;
}

export function realText(sample: RealSample | string): string {
  return readFileSync(join(REAL_SERVER_DIR, typeof sample === 'string' ? sample : sample.file), 'utf8');
}

/** Every .xml file of the folder (the manifest must list each one). */
export function realFiles(): string[] {
  return readdirSync(REAL_SERVER_DIR).filter((f) => f.endsWith('.xml')).sort();
}

export const isRingBuffer = (s: RealSample) => s.kind.startsWith('ring_buffer');
export const isHistogram = (s: RealSample) => s.kind.startsWith('histogram');
/** Event documents (event_file rows or single events): not a target's XML. */
export const isEventRows = (s: RealSample) => !isRingBuffer(s) && !isHistogram(s);

/** The event_file rows of an event-document sample, as sys.fn_xe_file_target_read_file would return them. */
export function realRows(sample: RealSample): Array<{ object_name: string; event_data: string; file_name: string; file_offset: string }> {
  const text = realText(sample);
  const docs = sample.kind.includes('one row per line') ? text.split('\n').filter((l) => l.trim().length > 0) : [text];
  return docs.map((event_data, i) => ({
    object_name: /<event\s+name="([^"]+)"/.exec(event_data)?.[1] ?? '',
    event_data,
    file_name: sample.rows?.[i]?.file_name ?? `${sample.file}.xel`,
    file_offset: sample.rows?.[i]?.file_offset ?? String((i + 1) * 512),
  }));
}
